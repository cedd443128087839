"""Identity provider presets: an `OAuthProxy` for GitHub, Google, Microsoft Entra ID, Auth0,
WorkOS AuthKit or Keycloak in one call. Each knows the provider's endpoints (or its discovery
document), default scopes and how it says who the user is:

- GitHub: fixed endpoints, opaque tokens, identity from the `/user` API (subject: the numeric id).
- Google, Entra, Auth0, WorkOS, Keycloak: OpenID Connect discovery, identity from the verified
  `id_token` (Entra: subject `oid`, the user's id across applications of the tenant).

Register `proxy.callback_url` (`base_url + "/auth/callback"`) as the redirect URI of the client at
the provider. Every preset passes other keyword arguments (`scopes=`, `store=`,
`token_sources=`, ...) to `OAuthProxy`; `upstream_scopes=` replaces the provider scopes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mcp.server.auth.proxy.oidc import OIDCProxy
from mcp.server.auth.proxy.proxy import OAuthProxy
from mcp.server.auth.proxy.upstream import UpstreamProvider


def github_proxy(
    *,
    client_id: str,
    client_secret: str,
    base_url: str,
    secret: str | bytes,
    upstream_scopes: Sequence[str] = ("read:user",),
    api_base: str = "https://api.github.com",
    web_base: str = "https://github.com",
    **options: Any,
) -> OAuthProxy:
    """A proxy signing users in with a GitHub OAuth App or GitHub App (`api_base`/`web_base` for
    GitHub Enterprise Server)."""
    upstream = UpstreamProvider(
        name="GitHub",
        client_id=client_id,
        client_secret=client_secret,
        authorization_endpoint=f"{web_base}/login/oauth/authorize",
        token_endpoint=f"{web_base}/login/oauth/access_token",
        userinfo_endpoint=f"{api_base}/user",
        scopes=list(upstream_scopes),
        identity="github",
        subject_claim="id",
    )
    return OAuthProxy(upstream=upstream, base_url=base_url, secret=secret, **options)


def google_proxy(
    *,
    client_id: str,
    client_secret: str,
    base_url: str,
    secret: str | bytes,
    upstream_scopes: Sequence[str] = ("openid", "email", "profile"),
    **options: Any,
) -> OIDCProxy:
    """A proxy signing users in with Google (offline access: Google returns a refresh token)."""
    return OIDCProxy(
        discovery_url="https://accounts.google.com/.well-known/openid-configuration",
        client_id=client_id,
        client_secret=client_secret,
        base_url=base_url,
        secret=secret,
        upstream_scopes=upstream_scopes,
        provider_name="Google",
        extra_authorize_params={"access_type": "offline", "prompt": "consent"},
        **options,
    )


def entra_proxy(
    *,
    tenant_id: str,
    client_id: str,
    client_secret: str,
    base_url: str,
    secret: str | bytes,
    upstream_scopes: Sequence[str] = ("openid", "profile", "email", "offline_access"),
    authority: str = "https://login.microsoftonline.com",
    **options: Any,
) -> OIDCProxy:
    """A proxy signing users in with Microsoft Entra ID (one tenant: its id or domain; `organizations`
    or `common` for multi-tenant apps, whose tokens carry each user's own tenant as issuer)."""
    multi = tenant_id in ("common", "organizations", "consumers")
    return OIDCProxy(
        discovery_url=f"{authority}/{tenant_id}/v2.0/.well-known/openid-configuration",
        client_id=client_id,
        client_secret=client_secret,
        base_url=base_url,
        secret=secret,
        upstream_scopes=upstream_scopes,
        provider_name="Microsoft",
        subject_claim="oid",
        verify_issuer=not multi,
        **options,
    )


def auth0_proxy(
    *,
    domain: str,
    client_id: str,
    client_secret: str,
    base_url: str,
    secret: str | bytes,
    upstream_scopes: Sequence[str] = ("openid", "profile", "email", "offline_access"),
    audience: str | None = None,
    **options: Any,
) -> OIDCProxy:
    """A proxy signing users in with an Auth0 tenant (`domain`, e.g. `example.us.auth0.com`);
    `audience` asks Auth0 for access tokens of that API."""
    extra = {"audience": audience} if audience else {}
    return OIDCProxy(
        discovery_url=f"https://{domain}/.well-known/openid-configuration",
        client_id=client_id,
        client_secret=client_secret,
        base_url=base_url,
        secret=secret,
        upstream_scopes=upstream_scopes,
        provider_name="Auth0",
        extra_authorize_params=extra,
        **options,
    )


def workos_proxy(
    *,
    authkit_domain: str,
    client_id: str,
    client_secret: str,
    base_url: str,
    secret: str | bytes,
    upstream_scopes: Sequence[str] = ("openid", "profile", "email", "offline_access"),
    **options: Any,
) -> OIDCProxy:
    """A proxy signing users in with WorkOS AuthKit (`authkit_domain`, e.g. `example.authkit.app`)."""
    return OIDCProxy(
        discovery_url=f"https://{authkit_domain}/.well-known/openid-configuration",
        client_id=client_id,
        client_secret=client_secret,
        base_url=base_url,
        secret=secret,
        upstream_scopes=upstream_scopes,
        provider_name="WorkOS",
        **options,
    )


def keycloak_proxy(
    *,
    realm_url: str,
    client_id: str,
    client_secret: str,
    base_url: str,
    secret: str | bytes,
    upstream_scopes: Sequence[str] = ("openid", "profile", "email"),
    **options: Any,
) -> OIDCProxy:
    """A proxy signing users in with a Keycloak realm (`realm_url`, e.g.
    `https://sso.example.com/realms/staff`)."""
    return OIDCProxy(
        discovery_url=f"{realm_url.rstrip('/')}/.well-known/openid-configuration",
        client_id=client_id,
        client_secret=client_secret,
        base_url=base_url,
        secret=secret,
        upstream_scopes=upstream_scopes,
        provider_name="Keycloak",
        **options,
    )


__all__ = ["auth0_proxy", "entra_proxy", "github_proxy", "google_proxy", "keycloak_proxy", "workos_proxy"]
