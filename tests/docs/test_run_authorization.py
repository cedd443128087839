"""docs/run/authorization.md: over Streamable HTTP the server is an OAuth resource server: a
`TokenVerifier` turns the bearer token into an `AccessToken` or None; `token_verifier=` and `auth=`
travel together; the app gains the RFC 9728 metadata route; a missing or unknown token is 401 with
the `resource_metadata` pointer before anything runs; `get_access_token()` is the verifier's object
inside handlers, and None in memory (which skips HTTP, authorization included)."""

from __future__ import annotations

import httpx
import pytest
from pydantic import AnyHttpUrl
from starlette.routing import Route
from tests.server.http.httpkit import uvicorn_server

from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.server import MCPServer
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken, TokenVerifier
from mcp.server.auth.settings import AuthSettings
from mcp.types import TextContent

pytestmark = pytest.mark.anyio

ASYNCIO_ONLY = pytest.mark.parametrize("anyio_backend", ["asyncio"])
TOKENS = {"ada-token": AccessToken(token="ada-token", client_id="ada", scopes=["files:read"], subject="ada@x")}
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


class TableVerifier(TokenVerifier):
    async def verify_token(self, token: str) -> AccessToken | None:
        return TOKENS.get(token)


def settings() -> AuthSettings:
    return AuthSettings(issuer_url=AnyHttpUrl("https://login.example.com"),
                        resource_server_url=AnyHttpUrl("http://127.0.0.1:8000/mcp"),
                        required_scopes=["files:read"], validate_token_resource=False)


def files() -> MCPServer:
    mcp = MCPServer("Files", token_verifier=TableVerifier(), auth=settings())

    @mcp.tool()
    def whoami() -> str:
        token = get_access_token()
        return "anonymous" if token is None else f"{token.client_id} {token.subject} {token.scopes}"

    return mcp


def test_the_verifier_and_the_settings_travel_together() -> None:
    with pytest.raises(ValueError):
        MCPServer("Half", token_verifier=TableVerifier())
    with pytest.raises(ValueError):
        MCPServer("Half", auth=settings())


def test_the_app_gains_the_protected_resource_metadata_route() -> None:
    paths = {route.path for route in files().streamable_http_app().routes if isinstance(route, Route)}
    assert paths == {"/mcp", "/.well-known/oauth-protected-resource/mcp"}


@ASYNCIO_ONLY
async def test_discovery_then_401_at_the_door_then_the_callers_identity_inside() -> None:
    async with uvicorn_server(files().streamable_http_app()) as base, httpx.AsyncClient() as http:
        metadata = (await http.get(f"{base}/.well-known/oauth-protected-resource/mcp")).json()
        anonymous = await http.post(f"{base}/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                                    headers=HEADERS)
        forged = await http.post(f"{base}/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                                 headers={**HEADERS, "Authorization": "Bearer made-up"})
        async with httpx.AsyncClient(headers={"Authorization": "Bearer ada-token"}) as authed, \
                Client(streamable_http_client(f"{base}/mcp", http_client=authed)) as client:
            result = await client.call_tool("whoami", {})
    assert metadata["resource"] == "http://127.0.0.1:8000/mcp"
    assert metadata["authorization_servers"] == ["https://login.example.com/"]
    assert metadata["scopes_supported"] == ["files:read"]
    assert metadata["bearer_methods_supported"] == ["header"]
    for refused in (anonymous, forged):
        assert refused.status_code == 401
        challenge = refused.headers["www-authenticate"]
        assert challenge.startswith('Bearer error="invalid_token"')
        assert 'resource_metadata="http://127.0.0.1:8000/.well-known/oauth-protected-resource/mcp"' in challenge
    assert result.content == [TextContent(text="ada ada@x ['files:read']")]


async def test_in_memory_skips_http_and_authorization_with_it() -> None:
    async with Client(files()) as client:
        assert (await client.call_tool("whoami", {})).content == [TextContent(text="anonymous")]
