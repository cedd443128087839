"""MCPServer(auth=..., token_verifier=...): the HTTP app requires a bearer token, serves the
protected-resource metadata, and handlers see the access token."""

from __future__ import annotations

import httpx
import pytest

from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer

pytestmark = pytest.mark.anyio


class Verifier:
    async def verify_token(self, token: str) -> AccessToken | None:
        if token == "good":
            return AccessToken(token=token, client_id="c1", scopes=["read"])
        return None


def make_server() -> MCPServer:
    mcp = MCPServer("secure", token_verifier=Verifier(),
                    auth=AuthSettings(issuer_url="https://auth.example.com", resource_server_url="http://127.0.0.1:8000/mcp",
                                      required_scopes=["read"], validate_token_resource=False))

    @mcp.tool()
    def whoami() -> str:
        token = get_access_token()
        return token.client_id if token is not None else "anonymous"

    return mcp


def test_auth_needs_exactly_one_verifier() -> None:
    with pytest.raises(ValueError, match="without auth settings"):
        MCPServer("x", token_verifier=Verifier())
    with pytest.raises(ValueError, match="exactly one"):
        MCPServer("x", auth=AuthSettings(issuer_url="https://a.example.com", resource_server_url="http://h/mcp",
                                         validate_token_resource=False))


@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_the_endpoint_requires_a_bearer_token_and_handlers_see_it() -> None:
    mcp = make_server()
    app = mcp.streamable_http_app()
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "whoami", "arguments": {}, "_meta": meta}}
    headers = {"accept": "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28",
               "mcp-method": "tools/call", "mcp-name": "whoami"}
    async with mcp.session_manager.run():
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8000") as http:
            denied = await http.post("/mcp", json=body, headers=headers)
            assert denied.status_code == 401
            assert "resource_metadata=" in denied.headers["www-authenticate"]
            wrong = await http.post("/mcp", json=body, headers={**headers, "authorization": "Bearer bad"})
            assert wrong.status_code == 401
            ok = await http.post("/mcp", json=body, headers={**headers, "authorization": "Bearer good"})
            assert ok.status_code == 200
            assert ok.json()["result"]["structuredContent"] == {"result": "c1"}
            prm = await http.get("/.well-known/oauth-protected-resource/mcp")
            assert prm.status_code == 200
            assert prm.json()["authorization_servers"] == ["https://auth.example.com"]
