"""Catalogue control over real uvicorn: a server-wide change reaches a handshake-era session and a
2026-07-28 listen stream; a session's own rules reach that session only (two real sessions); on
stateless HTTP, where there is no session to keep rules for, they are refused with a clear error."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from httpkit import uvicorn_server

from mcp import Client
from mcp.server import MCPServer
from mcp.server.mcpserver import Context

pytestmark = pytest.mark.anyio

TOOLS_CHANGED = "notifications/tools/list_changed"
MARKER = "notifications/resources/list_changed"
"""Sent by `marker`: notifications tied to no request ride a session's GET stream in order, so once
it arrives every earlier notice for that session has arrived too."""


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def build() -> MCPServer:
    mcp = MCPServer("catalogue-http", mask_error_details=False)

    @mcp.tool(tags={"admin"})
    def wipe() -> str:
        return "wiped"

    @mcp.tool()
    def status() -> str:
        return "ok"

    @mcp.tool()
    async def lock_admin() -> str:
        await mcp.disable(tags={"admin"})
        return "locked"

    @mcp.tool()
    async def unlock_for_me(ctx: Context) -> str:
        await ctx.enable(tags={"admin"})
        return "unlocked"

    @mcp.tool()
    async def marker(ctx: Context) -> str:
        await ctx.session.send_resource_list_changed()
        return "marked"

    mcp.disable(tags={"admin"})
    return mcp


class Heard:
    def __init__(self) -> None:
        self.methods: list[str] = []
        self._arrived = anyio.Event()

    async def __call__(self, message: Any) -> None:
        method = getattr(message, "method", None)
        if method is not None:
            self.methods.append(method)
            self._arrived.set()

    async def wait_for(self, method: str) -> None:
        with anyio.fail_after(10):
            while method not in self.methods:
                self._arrived = anyio.Event()
                await self._arrived.wait()


def names(result: Any) -> list[str]:
    return [tool.name for tool in result.tools]


def text(result: Any) -> str:
    return result.content[0].text


@pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")
async def test_a_session_rule_reaches_that_session_only_over_real_http() -> None:
    heard_a, heard_b = Heard(), Heard()
    with anyio.fail_after(30):
        async with (
            uvicorn_server(build().streamable_http_app()) as base,
            Client(f"{base}/mcp", mode="legacy", message_handler=heard_a) as a,
            Client(f"{base}/mcp", mode="legacy", message_handler=heard_b) as b,
        ):
            assert "wipe" not in names(await a.list_tools())
            assert text(await a.call_tool("unlock_for_me", {})) == "unlocked"
            await heard_a.wait_for(TOOLS_CHANGED)
            assert "wipe" in names(await a.list_tools())
            assert text(await a.call_tool("wipe", {})) == "wiped"

            assert text(await b.call_tool("marker", {})) == "marked"
            await heard_b.wait_for(MARKER)
            assert TOOLS_CHANGED not in heard_b.methods
            assert "wipe" not in names(await b.list_tools())
            assert text(await b.call_tool("wipe", {})) == "Unknown tool: wipe"


@pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")
async def test_a_server_wide_change_reaches_a_handshake_session_and_a_listen_stream_over_real_http() -> None:
    mcp = build()
    mcp.enable(tags={"admin"})
    heard = Heard()
    with anyio.fail_after(30):
        async with (
            uvicorn_server(mcp.streamable_http_app()) as base,
            Client(f"{base}/mcp", mode="legacy", message_handler=heard) as legacy,
            Client(f"{base}/mcp", mode="2026-07-28") as modern,
        ):
            assert "wipe" in names(await legacy.list_tools())
            assert "wipe" in names(await modern.list_tools())
            async with modern.listen(tools_list_changed=True) as sub:
                assert text(await legacy.call_tool("lock_admin", {})) == "locked"
                await heard.wait_for(TOOLS_CHANGED)
                with anyio.fail_after(10):
                    async for event in sub:
                        assert event.method == TOOLS_CHANGED
                        break
            assert "wipe" not in names(await legacy.list_tools())
            assert "wipe" not in names(await modern.list_tools())
            assert text(await modern.call_tool("wipe", {})) == "Unknown tool: wipe"


@pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")
async def test_per_session_rules_over_stateless_http_are_refused_with_a_clear_error() -> None:
    with anyio.fail_after(30):
        async with (
            uvicorn_server(build().streamable_http_app(stateless_http=True)) as base,
            Client(f"{base}/mcp", mode="legacy") as client,
        ):
            result = await client.call_tool("unlock_for_me", {})
            assert result.is_error is True
            assert "per-session visibility needs a handshake-era session" in text(result)
            assert "wipe" not in names(await client.list_tools())
