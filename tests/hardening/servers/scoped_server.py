"""A server behind bearer tokens with scoped items (so the gate reads request bodies to check
what they call), started with `mcp.run()`, its log on stderr:

    python scoped_server.py PORT streamable-http|sse [REDIS_URL PREFIX]

(Streamable HTTP in JSON-response mode; with Redis, its handshake-era sessions are shared with
every process started with the same URL and prefix.) Tokens: `alice` and `bob` (the same OAuth
client, `notes:read`, two subjects) and `carol` (`notes:read notes:admin`)."""

from __future__ import annotations

import sys
from typing import Any

from pydantic import AnyHttpUrl

from mcp.server import MCPServer
from mcp.server.auth.settings import AuthSettings
from mcp.server.auth.verifiers import StaticTokenVerifier

TOKENS = {
    "alice": {"client_id": "notes-app", "sub": "alice", "scopes": ["notes:read"]},
    "bob": {"client_id": "notes-app", "sub": "bob", "scopes": ["notes:read"]},
    "carol": {"client_id": "notes-app", "sub": "carol", "scopes": ["notes:read", "notes:admin"]},
}

if __name__ == "__main__":
    port, transport = int(sys.argv[1]), sys.argv[2]
    options: dict[str, Any] = {}
    if len(sys.argv) > 4:
        from mcp.redis import RedisState

        options["state"] = RedisState.from_url(sys.argv[3], prefix=sys.argv[4])
    mcp = MCPServer("scoped", token_verifier=StaticTokenVerifier(TOKENS), auth=AuthSettings(
        issuer_url=AnyHttpUrl("https://auth.example.com"),
        resource_server_url=AnyHttpUrl(f"http://127.0.0.1:{port}/mcp")), **options)

    @mcp.tool()
    def echo(text: str) -> str:
        return text

    @mcp.tool(required_scopes=["notes:admin"])
    def purge() -> str:
        return "purged"

    @mcp.resource("notes://secret", required_scopes=["notes:admin"])
    def secret() -> str:
        return "the secret"

    @mcp.resource("pair://{name}-{date}", required_scopes=["notes:admin"])
    def pair(name: str, date: str) -> str:
        return f"{name} on {date}"

    @mcp.resource("notes://public")
    def public() -> str:
        return "hello"

    if transport == "sse":
        mcp.run(transport="sse", host="127.0.0.1", port=port)
    else:
        mcp.run(transport="streamable-http", host="127.0.0.1", port=port, json_response=True)
