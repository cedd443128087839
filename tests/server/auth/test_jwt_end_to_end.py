"""The whole chain over real HTTP on 127.0.0.1: our OAuth client provider registers with, and is
authorized by, our embedded authorization server, which issues JWT access tokens and serves its
JWKS; a separate resource server verifies them with JWTVerifier (key set fetched over HTTP,
audience bound to its resource URL). A tool needing more scope makes the client step up."""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest
from authkit import MemoryProvider
from jwtkit import JWKSApp, SigningKey, serve_built
from pydantic import AnyUrl
from starlette.applications import Starlette
from starlette.routing import Mount
from test_end_to_end import REDIRECT, Browser, Storage

from mcp import Client
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.routes import create_auth_routes
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions
from mcp.server.auth.verifiers import JWTVerifier
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthToken

pytestmark = [pytest.mark.anyio, pytest.mark.parametrize("anyio_backend", ["asyncio"])]


class JWTIssuingProvider(MemoryProvider):
    """The in-memory authorization server, issuing signed JWT access tokens (RFC 9068)."""

    def __init__(self, issuer: str, key: SigningKey) -> None:
        super().__init__()
        self.issuer, self.key = issuer, key
        self.issued: list[dict[str, Any]] = []

    def _issue(self, client_id: str, scopes: list[str], resource: str | None, subject: str | None) -> OAuthToken:
        now = int(time.time())
        claims = {"iss": self.issuer, "aud": resource, "sub": subject, "client_id": client_id, "iat": now,
                  "exp": now + 600, "scope": " ".join(scopes)}
        self.issued.append(claims)
        token = self.key.sign(claims)
        self.access_tokens[token] = AccessToken(token=token, client_id=client_id, scopes=scopes)
        return OAuthToken(access_token=token, expires_in=600, scope=" ".join(scopes))


def authorization_server(key: SigningKey, holder: dict[str, Any]) -> Any:
    def make(base: str) -> Starlette:
        provider = holder["provider"] = JWTIssuingProvider(base, key)
        routes = create_auth_routes(provider, issuer_url=base, client_registration_options=(  # type: ignore[arg-type]
            ClientRegistrationOptions(enabled=True, valid_scopes=["notes:read", "notes:write"])))
        holder["jwks"] = JWKSApp(key)
        return Starlette(routes=[*routes, Mount("/keys", app=holder["jwks"].app)])

    return make


def resource_server(issuer: str) -> Any:
    def make(base: str) -> Any:
        mcp = MCPServer("notes", token_verifier=JWTVerifier(issuer=issuer, jwks_uri=f"{issuer}/keys/jwks"),
                        auth=AuthSettings(issuer_url=issuer, resource_server_url=f"{base}/mcp",
                                          required_scopes=["notes:read"], validate_token_resource=True))

        @mcp.tool()
        def whoami() -> str:
            token = get_access_token()
            assert token is not None
            return f"{token.subject} via {token.client_id} ({' '.join(token.scopes)})"

        @mcp.tool(required_scopes=["notes:write"])
        def delete_note() -> str:
            return "deleted"

        return mcp.streamable_http_app()

    return make


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_our_client_our_authorization_server_and_a_jwt_verifying_resource_server(mode: str) -> None:
    key = SigningKey("ES256")
    holder: dict[str, Any] = {}
    with serve_built(authorization_server(key, holder)) as issuer, serve_built(resource_server(issuer)) as rs:
        # registered for both scopes up front: the scope a dynamic registration asks for is the one
        # discovery selects (the resource's `notes:read`), which a step-up could not go beyond
        client = OAuthClientInformationFull(client_id="e2e-client", redirect_uris=[AnyUrl(REDIRECT)],
                                            token_endpoint_auth_method="none", scope="notes:read notes:write",
                                            grant_types=["authorization_code", "refresh_token"])
        holder["provider"].clients[client.client_id] = client
        storage = Storage()
        storage.client_info = client
        provider = OAuthClientProvider(
            server_url=f"{rs}/mcp",
            client_metadata=OAuthClientMetadata(client_name="e2e", redirect_uris=[AnyUrl(REDIRECT)],
                                                scope="notes:read notes:write"),
            storage=storage, redirect_handler=(browser := Browser(lambda: httpx.AsyncClient())).redirect,
            callback_handler=browser.callback)
        async with (
            httpx.AsyncClient(auth=provider, timeout=30) as http,
            Client(streamable_http_client(f"{rs}/mcp", http_client=http), mode=mode) as client,
        ):
            listed = [tool.name for tool in (await client.list_tools()).tools]
            who = await client.call_tool("whoami", {})
            deleted = await client.call_tool("delete_note", {})  # 403 insufficient_scope -> step-up
            after = [tool.name for tool in (await client.list_tools()).tools]
    assert isinstance(storage.client_info, OAuthClientInformationFull)
    assert listed == ["whoami"]  # the first token lacks notes:write: delete_note is not shown
    assert who.structured_content == {"result": f"alice via {storage.client_info.client_id} (notes:read)"}
    assert deleted.structured_content == {"result": "deleted"}
    assert after == ["whoami", "delete_note"]
    issued = holder["provider"].issued
    assert [claims["scope"] for claims in issued] == ["notes:read", "notes:read notes:write"]
    assert all(claims["aud"] == f"{rs}/mcp" for claims in issued)
    assert holder["jwks"].requests == 1  # one key set fetch served every verification
