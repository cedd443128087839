"""`OIDCProxy`: an `OAuthProxy` in front of any OpenID Connect provider, configured from the
provider's discovery document (`/.well-known/openid-configuration`, read on first use: the server
starts even while the provider is down). Identity comes from the `id_token`, verified against the
provider's JWKS with the `nonce` the proxy sent; `identity="userinfo"` asks the userinfo endpoint
instead (for providers whose ID tokens carry little)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from mcp.server.auth.proxy.proxy import OAuthProxy
from mcp.server.auth.proxy.upstream import IdentitySource, UpstreamProvider


class OIDCProxy(OAuthProxy):
    """An `OAuthProxy` whose upstream is an OpenID Connect provider found at `discovery_url`.
    `verify_issuer=False` accepts ID tokens whatever their `iss` (multi-tenant issuers); other
    keyword arguments are `OAuthProxy`'s."""

    def __init__(
        self,
        *,
        discovery_url: str,
        client_id: str,
        client_secret: str,
        base_url: str,
        secret: str | bytes,
        upstream_scopes: Sequence[str] = ("openid", "email", "profile"),
        identity: IdentitySource = "id_token",
        subject_claim: str = "sub",
        provider_name: str = "OpenID Connect",
        extra_authorize_params: Mapping[str, str] | None = None,
        verify_issuer: bool = True,
        timeout: float = 10.0,
        **options: Any,
    ) -> None:
        upstream = UpstreamProvider(
            name=provider_name,
            client_id=client_id,
            client_secret=client_secret,
            discovery_url=discovery_url,
            scopes=list(upstream_scopes),
            identity=identity,
            subject_claim=subject_claim,
            extra_authorize_params=dict(extra_authorize_params or {}),
            verify_issuer=verify_issuer,
            timeout=timeout,
        )
        super().__init__(upstream=upstream, base_url=base_url, secret=secret, **options)


__all__ = ["OIDCProxy"]
