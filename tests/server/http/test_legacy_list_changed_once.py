"""A handshake-era server that follows the official docs, calling both `ctx.notify_tools_changed()`
and `ctx.session.send_tool_list_changed()` for one change, sends its caller one
`notifications/tools/list_changed`, not two; a further change is still sent, and the official
`send_*` form used alone keeps its one-notification-per-call behaviour. Real uvicorn, real client."""

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
#: Sent by every tool after its tools notices: notifications tied to no request ride the session's
#: GET stream in order, so once this one arrives every notice of the call has arrived too.
MARKER = "notifications/resources/list_changed"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def build() -> MCPServer:
    mcp = MCPServer("board")

    @mcp.tool()
    async def both_forms(ctx: Context) -> str:
        await ctx.notify_tools_changed()
        await ctx.session.send_tool_list_changed()
        await ctx.session.send_resource_list_changed()
        return "done"

    @mcp.tool()
    async def two_changes_both_forms(ctx: Context) -> str:
        for _ in range(2):
            await ctx.notify_tools_changed()
            await ctx.session.send_tool_list_changed()
        await ctx.session.send_resource_list_changed()
        return "done"

    @mcp.tool()
    async def session_form_twice(ctx: Context) -> str:
        await ctx.session.send_tool_list_changed()
        await ctx.session.send_tool_list_changed()
        await ctx.session.send_resource_list_changed()
        return "done"

    return mcp


async def _notices(*calls: str) -> list[int]:
    """Per tool call in order, how many tools/list_changed the caller received during it; the
    client re-lists the tools between calls, as a client acting on the notice does."""
    received: list[str] = []
    marked = anyio.Event()

    async def collect(message: Any) -> None:
        method = getattr(message, "method", None)
        if method == MARKER:
            marked.set()
        elif method is not None:
            received.append(method)

    counts: list[int] = []
    app = build().streamable_http_app()
    with anyio.fail_after(30):
        async with uvicorn_server(app) as base, Client(f"{base}/mcp", mode="legacy", message_handler=collect) as client:
            for name in calls:
                received.clear()
                marked = anyio.Event()
                assert (await client.call_tool(name, {})).is_error is False
                await marked.wait()
                counts.append(received.count(TOOLS_CHANGED))
                await client.list_tools()
    return counts


@pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")
async def test_calling_both_forms_for_one_change_sends_the_caller_one_notification() -> None:
    assert await _notices("both_forms", "both_forms") == [1, 1]


@pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")
async def test_two_changes_in_one_call_each_announced_with_both_forms_send_two_as_officially() -> None:
    assert await _notices("two_changes_both_forms") == [2]


@pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")
async def test_the_official_session_form_alone_sends_once_per_call() -> None:
    assert await _notices("session_form_twice") == [2]
