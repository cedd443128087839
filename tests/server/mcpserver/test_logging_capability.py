"""`MCPServer` logs as the official SDK does: it serves no `logging/setLevel` (-32601) and declares
no `logging` capability on either wire, and its context's log helpers are never filtered on a
handshake-era connection (there is no level to set); on the 2026-07-28 wire a request gets only
what its `io.modelcontextprotocol/logLevel` asked for."""

from __future__ import annotations

from typing import Any

import pytest

from mcp import Client, MCPError
from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.types import METHOD_NOT_FOUND

pytestmark = [pytest.mark.anyio, pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")]


def build() -> MCPServer:
    mcp = MCPServer("logs")

    @mcp.tool()
    async def chatty(ctx: Context) -> str:
        await ctx.debug("debug line")
        await ctx.warning("warning line")
        return "ok"

    return mcp


async def test_a_handshake_era_client_cannot_set_a_level_and_gets_every_line() -> None:
    got: list[Any] = []

    async def on_log(params: Any) -> None:
        got.append(params.data)

    async with Client(build(), mode="legacy", logging_callback=on_log) as client:
        capabilities = client.session.server_capabilities
        assert capabilities is not None and capabilities.logging is None
        with pytest.raises(MCPError) as refused:
            await client.set_logging_level("warning")
        assert refused.value.error.code == METHOD_NOT_FOUND
        await client.call_tool("chatty", {})
    assert got == ["debug line", "warning line"]


async def test_the_2026_wire_does_not_advertise_logging_and_delivers_only_the_level_asked() -> None:
    got: list[Any] = []

    async def on_log(params: Any) -> None:
        got.append(params.data)

    async with Client(build(), mode="2026-07-28", logging_callback=on_log) as client:
        result = await client.session.send_discover("2026-07-28")
        assert "logging" not in result["capabilities"]
        await client.call_tool("chatty", {})
        assert got == []
        await client.call_tool("chatty", {}, meta={"io.modelcontextprotocol/logLevel": "warning"})
    assert got == ["warning line"]
