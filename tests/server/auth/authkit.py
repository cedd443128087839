"""The server-side authorization tests' shared parts: an in-memory embedded authorization server
provider, and `protect`, composing an `MCPServer`'s Streamable HTTP app with `wrap_with_auth` the way
`streamable_http_app()` wires it. A module of its own (not the conftest) so test modules import it by
a name no other folder's conftest can shadow."""

from __future__ import annotations

import secrets
import time
from typing import Any

from starlette.applications import Starlette
from starlette.routing import Route

from mcp.server.auth.app import wrap_with_auth
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    IdentityAssertionParams,
    OAuthAuthorizationServerProvider,
    RefreshToken,
    TokenError,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken


class MemoryProvider(OAuthAuthorizationServerProvider[AuthorizationCode, RefreshToken, AccessToken]):
    """An embedded authorization server that approves every authorization request at once."""

    def __init__(self) -> None:
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.access_tokens: dict[str, AccessToken] = {}
        self.refresh_tokens: dict[str, RefreshToken] = {}
        self.revoked: list[str] = []
        self.assertions: list[IdentityAssertionParams] = []
        self.authorize_params: list[AuthorizationParams] = []

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        self.clients[client_info.client_id] = client_info

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        self.authorize_params.append(params)
        code = secrets.token_urlsafe(16)
        self.codes[code] = AuthorizationCode(
            code=code, scopes=params.scopes or [], expires_at=time.time() + 300, client_id=client.client_id,
            code_challenge=params.code_challenge, redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly, resource=params.resource,
            subject="alice",
        )
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(self, client: OAuthClientInformationFull,
                                      authorization_code: str) -> AuthorizationCode | None:
        return self.codes.get(authorization_code)

    async def exchange_authorization_code(self, client: OAuthClientInformationFull,
                                          authorization_code: AuthorizationCode) -> OAuthToken:
        del self.codes[authorization_code.code]
        return self._issue(client.client_id, authorization_code.scopes, authorization_code.resource,
                           authorization_code.subject)

    async def load_refresh_token(self, client: OAuthClientInformationFull, refresh_token: str) -> RefreshToken | None:
        return self.refresh_tokens.get(refresh_token)

    async def exchange_refresh_token(self, client: OAuthClientInformationFull, refresh_token: RefreshToken,
                                     scopes: list[str]) -> OAuthToken:
        del self.refresh_tokens[refresh_token.token]
        return self._issue(client.client_id, scopes, refresh_token.resource, "alice")

    async def load_access_token(self, token: str) -> AccessToken | None:
        return self.access_tokens.get(token)

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        self.revoked.append(token.token)
        self.access_tokens.pop(token.token, None)
        self.refresh_tokens.pop(token.token, None)

    async def exchange_identity_assertion(self, client: OAuthClientInformationFull,
                                          params: IdentityAssertionParams) -> OAuthToken:
        self.assertions.append(params)
        if params.assertion != "valid-id-jag":
            raise TokenError("invalid_grant", "the assertion did not verify")
        token = self._issue(client.client_id, params.scopes or [], params.resource, "bob@example.com")
        return token.model_copy(update={"refresh_token": None})

    def _issue(self, client_id: str, scopes: list[str], resource: str | None, subject: str | None) -> OAuthToken:
        access = f"mcp_{secrets.token_hex(8)}"
        refresh = f"rt_{secrets.token_hex(8)}"
        self.access_tokens[access] = AccessToken(token=access, client_id=client_id, scopes=scopes,
                                                 expires_at=int(time.time()) + 3600, resource=resource,
                                                 subject=subject)
        self.refresh_tokens[refresh] = RefreshToken(token=refresh, client_id=client_id, scopes=scopes,
                                                    resource=resource)
        return OAuthToken(access_token=access, expires_in=3600, scope=" ".join(scopes) or None, refresh_token=refresh)


def protect(mcp: Any, settings: AuthSettings, *, token_verifier: Any = None, auth_server_provider: Any = None,
            mcp_path: str = "/mcp", extra_routes: list[Route] | None = None) -> Starlette:
    """`mcp.streamable_http_app()` with its MCP endpoint behind `wrap_with_auth` (what
    `MCPServer(auth=..., token_verifier=...)` does)."""
    base = mcp.streamable_http_app()
    endpoint = next(route for route in base.routes if getattr(route, "path", None) == mcp_path)
    gated, routes = wrap_with_auth(endpoint.app, token_verifier=token_verifier, auth=settings, mcp_path=mcp_path,
                                   auth_server_provider=auth_server_provider)
    return Starlette(routes=[Route(mcp_path, endpoint=gated, methods=["GET", "POST", "DELETE"]), *routes,
                             *(extra_routes or [])],
                     lifespan=base.router.lifespan_context)
