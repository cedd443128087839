"""`OAuthProxy`: an authorization server for MCP clients in front of an identity provider that
knows nothing of them.

MCP clients register themselves (DCR, or a client metadata document URL as client id: CIMD) and
run the authorization code flow with PKCE against the proxy; the proxy shows them to the user on a
consent page, then sends the user to the identity provider as its own single pre-registered client
(`UpstreamProvider`). When the provider calls back, the proxy exchanges the provider's code with
its client secret, learns who the user is, keeps the provider's tokens sealed in its store, and
hands the MCP client an authorization code of its own. The tokens the client then gets are the
proxy's (`tokens`): bound to the MCP server's resource, revocable, refreshable; the provider's
secret and tokens never leave the server.

Plug it in as an embedded authorization server:

    proxy = OAuthProxy(upstream=..., base_url="https://mcp.example.com", secret=os.environ["PROXY_SECRET"])
    mcp = MCPServer("Notes", auth_server_provider=proxy, auth=proxy.auth_settings())

State lives in a `ProxyStore`: in memory by default, `RedisProxyStore` for several replicas.
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Sequence
from typing import Any

from pydantic import AnyUrl
from starlette.routing import Route

from mcp.server.auth.middleware.bearer_auth import same_resource
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    AuthorizeError,
    RefreshToken,
    TokenError,
    TokenVerifier,
)
from mcp.server.auth.proxy.cimd import ClientMetadataDocuments, is_metadata_document_url
from mcp.server.auth.proxy.consent import CONSENT_PATH
from mcp.server.auth.proxy.sealing import Sealer, SealError
from mcp.server.auth.proxy.store import InMemoryProxyStore, ProxyStore
from mcp.server.auth.proxy.tokens import mint_access_token, read_access_token
from mcp.server.auth.proxy.upstream import UpstreamClient, UpstreamError, UpstreamProvider
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions, RevocationOptions
from mcp.shared.auth import OAuthClientInformationFull, OAuthMetadata, OAuthToken

logger = logging.getLogger("mcp.server.auth.proxy")

CALLBACK_PATH = "/auth/callback"


class ProxyAuthorizationCode(AuthorizationCode):
    """An authorization code of the proxy: also names the grant (upstream sign-in) behind it."""

    grant_id: str


class ProxyRefreshToken(RefreshToken):
    grant_id: str


class OAuthProxy:
    """An `OAuthAuthorizationServerProvider` bridging MCP clients to one identity provider (see the
    module docstring).

    - `upstream`: the identity provider and the proxy's client there (or a preset's result).
    - `base_url`: the public URL of this server (issuer; the provider must accept
      `base_url + "/auth/callback"` as redirect URI of the proxy's client).
    - `secret`: at least 32 bytes, the same on every replica: signs the proxy's tokens, seals the
      provider's tokens, names store entries.
    - `resource_url`: the MCP endpoint tokens are bound to (default `base_url + "/mcp"`).
    - `scopes`: the scopes clients may ask the proxy for (and get by default).
    - `store`: where state lives (`InMemoryProxyStore()` by default; `RedisProxyStore` to share).
    - `token_sources`: more `TokenVerifier`s tried after the proxy's own tokens (e.g. a
      `JWTVerifier` for machine clients); the first that accepts a token decides.
    - `allow_metadata_documents`: accept CIMD client ids (HTTPS URLs); `metadata_document_fetcher`
      replaces how documents are fetched (tests, or an egress proxy).
    """

    def __init__(
        self,
        *,
        upstream: UpstreamProvider,
        base_url: str,
        secret: str | bytes,
        resource_url: str | None = None,
        scopes: Sequence[str] = (),
        required_scopes: Sequence[str] | None = None,
        store: ProxyStore | None = None,
        token_sources: Sequence[TokenVerifier] = (),
        allow_metadata_documents: bool = True,
        metadata_document_fetcher: Any = None,
        access_token_lifetime: int = 3600,
        refresh_token_lifetime: int = 30 * 24 * 3600,
        code_lifetime: int = 300,
        transaction_lifetime: int = 600,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.resource_url = resource_url or f"{self.base_url}/mcp"
        self.upstream = UpstreamClient(upstream)
        self.sealer = Sealer(secret)
        self.scopes = list(scopes)
        self.required_scopes = list(required_scopes) if required_scopes is not None else None
        self.store: ProxyStore = store if store is not None else InMemoryProxyStore()
        self.token_sources = list(token_sources)
        self.bind_resource(self.resource_url)  # sources checking audiences accept our resource by default
        self.documents = (
            ClientMetadataDocuments(self.store, fetcher=metadata_document_fetcher, default_scopes=self.scopes)
            if allow_metadata_documents
            else None
        )
        self.access_token_lifetime = access_token_lifetime
        self.refresh_token_lifetime = refresh_token_lifetime
        self.code_lifetime = code_lifetime
        self.transaction_lifetime = transaction_lifetime

    # -- configuration --------------------------------------------------------------------------

    @property
    def callback_url(self) -> str:
        """The redirect URI to register for the proxy's client at the identity provider."""
        return self.base_url + CALLBACK_PATH

    def auth_settings(self, **overrides: Any) -> AuthSettings:
        """The `AuthSettings` of an `MCPServer` behind this proxy: the proxy as issuer, its
        resource, registration and revocation enabled, tokens checked against the resource."""
        values: dict[str, Any] = {
            "issuer_url": self.base_url,
            "resource_server_url": self.resource_url,
            "required_scopes": self.required_scopes,
            "client_registration_options": ClientRegistrationOptions(
                enabled=True, valid_scopes=self.scopes or None, default_scopes=self.scopes or None
            ),
            "revocation_options": RevocationOptions(enabled=True),
            "validate_token_resource": True,
        }
        values.update(overrides)
        return AuthSettings(**values)

    def prepare_metadata(self, metadata: OAuthMetadata) -> OAuthMetadata:
        """Called by `create_auth_routes`: the document also announces CIMD support."""
        if self.documents is not None:
            metadata.client_id_metadata_document_supported = True
        return metadata

    def auth_routes(self) -> list[Route]:
        """Called by `create_auth_routes`: the consent page and the provider's callback."""
        from mcp.server.auth.proxy.endpoints import ProxyEndpoints

        endpoints = ProxyEndpoints(self)
        return [
            Route(CONSENT_PATH, endpoint=endpoints.consent, methods=["GET", "POST"]),
            Route(CALLBACK_PATH, endpoint=endpoints.callback, methods=["GET"]),
        ]

    # -- clients --------------------------------------------------------------------------------

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        if self.documents is not None and is_metadata_document_url(client_id):
            return await self.documents.client(client_id)
        stored = await self.store.get(self.sealer.name("client", client_id))
        return OAuthClientInformationFull.model_validate(stored) if stored is not None else None

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        await self.store.put(
            self.sealer.name("client", client_info.client_id),
            client_info.model_dump(mode="json", exclude_none=True),
        )
        logger.info("registered client %s (%s)", client_info.client_id, client_info.client_name or "unnamed")

    # -- authorization ----------------------------------------------------------------------------

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        resource = params.resource or self.resource_url
        if not same_resource(resource, self.resource_url):
            raise AuthorizeError("invalid_target", f"this server issues tokens for {self.resource_url} only")
        scopes = (
            params.scopes if params.scopes is not None else (client.scope.split() if client.scope else [])
        )
        transaction = secrets.token_urlsafe(24)
        await self.store.put(
            self.sealer.name("txn", transaction),
            {
                "client_id": client.client_id,
                "redirect_uri": str(params.redirect_uri),
                "redirect_uri_provided_explicitly": params.redirect_uri_provided_explicitly,
                "code_challenge": params.code_challenge,
                "state": params.state,
                "scopes": scopes,
                "resource": self.resource_url,
                "csrf": secrets.token_urlsafe(24),
            },
            ttl=self.transaction_lifetime,
        )
        return f"{self.base_url}{CONSENT_PATH}?txn={transaction}"

    async def issue_code(self, flow: dict[str, Any], grant_id: str, subject: str) -> str:
        """Called when the provider's sign-in succeeded: the code the client's redirect carries."""
        code = secrets.token_urlsafe(32)
        record = ProxyAuthorizationCode(
            code="",
            scopes=flow["scopes"],
            expires_at=time.time() + self.code_lifetime,
            client_id=flow["client_id"],
            code_challenge=flow["code_challenge"],
            redirect_uri=AnyUrl(flow["redirect_uri"]),
            redirect_uri_provided_explicitly=flow["redirect_uri_provided_explicitly"],
            resource=flow["resource"],
            subject=subject,
            grant_id=grant_id,
        )
        await self.store.put(
            self.sealer.name("code", code), record.model_dump(mode="json"), ttl=self.code_lifetime
        )
        return code

    async def load_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: str
    ) -> ProxyAuthorizationCode | None:
        name = self.sealer.name("code", authorization_code)
        stored = await self.store.get(name)
        if stored is None:
            used = await self.store.get(self.sealer.name("used-code", authorization_code))
            if used is not None:
                # RFC 6749 §4.1.2: a code used twice revokes what it was exchanged for
                logger.warning(
                    "authorization code replayed by client %s: revoking its grant", client.client_id
                )
                await self._revoke_grant(str(used.get("grant_id")))
            return None
        return ProxyAuthorizationCode.model_validate({**stored, "code": authorization_code})

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: ProxyAuthorizationCode
    ) -> OAuthToken:
        code = authorization_code.code
        if await self.store.take(self.sealer.name("code", code)) is None:
            raise TokenError("invalid_grant", "authorization code was already used or has expired")
        await self.store.put(
            self.sealer.name("used-code", code),
            {"grant_id": authorization_code.grant_id},
            ttl=self.refresh_token_lifetime,
        )
        grant = await self.store.get(self.sealer.name("grant", authorization_code.grant_id))
        if grant is None:
            raise TokenError("invalid_grant", "the sign-in behind this code is no longer valid")
        return await self._issue(
            client.client_id,
            authorization_code.subject or "",
            authorization_code.scopes,
            authorization_code.grant_id,
        )

    # -- tokens -----------------------------------------------------------------------------------

    async def _issue(self, client_id: str, subject: str, scopes: list[str], grant_id: str) -> OAuthToken:
        access, _ = mint_access_token(
            self.sealer.signing_key,
            issuer=self.base_url,
            resource=self.resource_url,
            subject=subject,
            client_id=client_id,
            scopes=scopes,
            grant_id=grant_id,
            lifetime=self.access_token_lifetime,
        )
        refresh = secrets.token_urlsafe(32)
        await self.store.put(
            self.sealer.name("refresh", refresh),
            {
                "client_id": client_id,
                "scopes": scopes,
                "subject": subject,
                "grant_id": grant_id,
                "resource": self.resource_url,
                "expires_at": int(time.time()) + self.refresh_token_lifetime,
            },
            ttl=self.refresh_token_lifetime,
        )
        return OAuthToken(
            access_token=access,
            token_type="Bearer",
            expires_in=self.access_token_lifetime,
            scope=" ".join(scopes) or None,
            refresh_token=refresh,
        )

    async def load_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: str
    ) -> ProxyRefreshToken | None:
        stored = await self.store.get(self.sealer.name("refresh", refresh_token))
        if stored is None:
            return None
        return ProxyRefreshToken.model_validate({**stored, "token": refresh_token})

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: ProxyRefreshToken, scopes: list[str]
    ) -> OAuthToken:
        # rotation: the refresh token is single use (taken), its successor comes with the answer
        if await self.store.take(self.sealer.name("refresh", refresh_token.token)) is None:
            raise TokenError("invalid_grant", "refresh token was already used or has expired")
        grant = await self.store.get(self.sealer.name("grant", refresh_token.grant_id))
        if grant is None:
            raise TokenError("invalid_grant", "the sign-in behind this refresh token was revoked")
        await self._refresh_upstream_if_expired(refresh_token.grant_id, grant)
        return await self._issue(
            client.client_id, refresh_token.subject or "", scopes, refresh_token.grant_id
        )

    async def _refresh_upstream_if_expired(self, grant_id: str, grant: dict[str, Any]) -> None:
        """Keep the provider's tokens alive behind a refresh; a provider that refuses ends the grant."""
        try:
            upstream = self.sealer.open(str(grant.get("upstream")), grant_id)
        except SealError:
            raise TokenError("invalid_grant", "the sign-in behind this refresh token is unreadable") from None
        expires_at = upstream.get("expires_at")
        if not isinstance(expires_at, int | float) or expires_at > time.time() + 60:
            return
        if not isinstance(upstream.get("refresh_token"), str):
            return  # nothing to refresh with: the upstream token simply lapses
        try:
            fresh = await self.upstream.refresh(upstream["refresh_token"])
        except UpstreamError as exc:
            logger.warning("upstream refresh failed for grant %s…: %s", grant_id[:8], exc)
            await self._revoke_grant(grant_id)
            raise TokenError("invalid_grant", "the identity provider refused to renew the sign-in") from None
        await self.save_grant(
            grant_id,
            client_id=str(grant.get("client_id")),
            subject=str(grant.get("subject")),
            claims=dict(grant.get("claims") or {}),
            upstream_tokens={**upstream, **fresh},
        )

    async def save_grant(
        self,
        grant_id: str,
        *,
        client_id: str,
        subject: str,
        claims: dict[str, Any],
        upstream_tokens: dict[str, Any],
    ) -> None:
        """Store a sign-in: who, for which client, and the provider's tokens sealed."""
        upstream = dict(upstream_tokens)
        if isinstance(upstream.get("expires_in"), int | float) and "expires_at" not in upstream:
            upstream["expires_at"] = int(time.time() + upstream["expires_in"])
        await self.store.put(
            self.sealer.name("grant", grant_id),
            {
                "client_id": client_id,
                "subject": subject,
                "claims": claims,
                "upstream": self.sealer.seal(upstream, grant_id),
            },
            ttl=self.refresh_token_lifetime,
        )

    async def load_access_token(self, token: str) -> AccessToken | None:
        claims = read_access_token(
            self.sealer.signing_key, token, issuer=self.base_url, resource=self.resource_url
        )
        if claims is not None:
            grant = await self.store.get(self.sealer.name("grant", claims["gid"]))
            if grant is None:
                return None  # revoked
            return AccessToken(
                token=token,
                client_id=claims["client_id"],
                scopes=str(claims.get("scope", "")).split(),
                expires_at=int(claims["exp"]),
                resource=str(claims["aud"]),
                subject=str(claims["sub"]),
                claims={
                    **claims,
                    "token_source": "oauth_proxy",
                    "upstream_claims": grant.get("claims") or {},
                },
            )
        return await self._other_sources(token)

    async def _other_sources(self, token: str) -> AccessToken | None:
        from mcp.server.auth.verifiers.chain import first_accepting

        return await first_accepting(self.token_sources, token) if self.token_sources else None

    def bind_resource(self, resource: str) -> None:
        """Hand the server's resource to token sources that check audiences (`JWTVerifier`)."""
        for source in self.token_sources:
            bind = getattr(source, "bind_resource", None)
            if callable(bind):
                bind(resource)

    async def upstream_access_token(self, access: AccessToken) -> str | None:
        """The identity provider's access token behind one of the proxy's tokens (for a tool that
        calls the provider's API on the user's behalf), or `None`. It stays on the server."""
        grant_id = (access.claims or {}).get("gid")
        if not isinstance(grant_id, str):
            return None
        grant = await self.store.get(self.sealer.name("grant", grant_id))
        if grant is None:
            return None
        try:
            value = self.sealer.open(str(grant.get("upstream")), grant_id).get("access_token")
        except SealError:
            return None
        return value if isinstance(value, str) else None

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        if isinstance(token, ProxyRefreshToken):
            await self.store.delete(self.sealer.name("refresh", token.token))
            await self._revoke_grant(token.grant_id)
            return
        claims = (token.claims or {}) if isinstance(token, AccessToken) else {}
        grant_id = claims.get("gid")
        if isinstance(grant_id, str) and claims.get("token_source") == "oauth_proxy":
            await self._revoke_grant(grant_id)

    async def _revoke_grant(self, grant_id: str) -> None:
        """End a sign-in: every access token of it stops passing, its refresh tokens stop working."""
        await self.store.delete(self.sealer.name("grant", grant_id))


__all__ = ["CALLBACK_PATH", "OAuthProxy", "ProxyAuthorizationCode", "ProxyRefreshToken"]
