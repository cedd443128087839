"""`subscriptions/listen` is answered as an SSE stream even when the server runs with
`json_response=True`: a JSON body would wait for the stream's end, so clients (ours, the official
one, the MCP Inspector) saw no bytes at all, not even the acknowledgement. Real uvicorn, real client."""

from __future__ import annotations

from typing import Any

import anyio
import httpx
import pytest
from httpkit import uvicorn_server

from mcp import Client
from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.shared.subscriptions import ToolsListChanged

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def build() -> MCPServer:
    mcp = MCPServer("board")

    @mcp.tool()
    async def change(ctx: Context) -> str:
        await ctx.notify_tools_changed()
        return "done"

    return mcp


@pytest.mark.parametrize("stateless", [False, True])
async def test_a_listen_stream_in_json_response_mode_is_acknowledged_and_delivers_events(stateless: bool) -> None:
    app = build().streamable_http_app(json_response=True, stateless_http=stateless)
    async with uvicorn_server(app) as base, Client(f"{base}/mcp", mode="2026-07-28") as client:
        with anyio.fail_after(30):
            async with client.listen(tools_list_changed=True) as sub:
                assert sub.honored.tools_list_changed is True
                assert (await client.call_tool("change", {})).is_error is False
                events: list[Any] = []
                async for event in sub:
                    events.append(event)
                    break
    assert events == [ToolsListChanged()]


async def test_a_listen_that_does_not_accept_event_streams_is_refused_with_406() -> None:
    app = build().streamable_http_app(json_response=True, stateless_http=True)
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}
    body = {"jsonrpc": "2.0", "id": 1, "method": "subscriptions/listen",
            "params": {"notifications": {"toolsListChanged": True}, "_meta": meta}}
    async with uvicorn_server(app) as base, httpx.AsyncClient() as http:
        response = await http.post(f"{base}/mcp", json=body, headers={
            "accept": "application/json", "mcp-protocol-version": "2026-07-28", "mcp-method": "subscriptions/listen"})
    assert (response.status_code, response.content) == (406, b"")  # as the official 2026-07-28 entry
