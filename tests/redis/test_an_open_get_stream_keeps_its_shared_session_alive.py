"""A shared session whose client holds only its GET stream open is not idle: the worker holding
the stream renews the record's TTL, and ends the stream once the session is gone everywhere."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import pytest
from redis_server import RedisServer

from mcp.redis import RedisState
from mcp.server.mcpserver import MCPServer
from mcp.server.request_state import RequestStateSecurity

sys.path.insert(0, str(Path(__file__).parents[1] / "server" / "http"))
from httpkit import SSEStream, asgi_client

pytestmark = pytest.mark.anyio

HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json",
           "mcp-protocol-version": "2025-11-25"}


def _pttl(redis_server: RedisServer, key: str) -> int:
    return int(redis_server.call("PTTL", key).strip().lstrip(b":"))


async def test_the_record_is_renewed_while_the_get_stream_is_open_and_the_stream_ends_when_it_is_deleted(
        redis_server: RedisServer, prefix: str) -> None:
    server = MCPServer("svc", state=RedisState.from_url(redis_server.url, prefix=prefix),
                       request_state_security=RequestStateSecurity(keys=[b"k" * 32]))
    app = server.streamable_http_app(session_idle_timeout=0.9)
    async with asgi_client(app, lifespan=True) as http:
        init = await http.post("/mcp", headers=HEADERS, json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
        session_id = init.headers["mcp-session-id"]
        key = f"{prefix}:session:{session_id}"
        headers = dict(HEADERS, accept="text/event-stream", **{"mcp-session-id": session_id})
        async with http.stream("GET", "/mcp", headers=headers) as response, SSEStream(response) as stream:
            assert response.status_code == 200
            lowest = _pttl(redis_server, key)
            with anyio.fail_after(10):  # the TTL goes back up: renewed, with no request sent
                while (ttl := _pttl(redis_server, key)) <= lowest:
                    lowest = min(lowest, ttl)
                    await anyio.sleep(0.02)
            assert ttl > 0
            redis_server.call("DEL", key)  # gone (expired, or deleted by a worker that missed the broadcast)
            with anyio.fail_after(10):
                assert await stream.rest() == []  # the stream ends by itself
