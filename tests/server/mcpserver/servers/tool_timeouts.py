"""A server whose tools overrun their timeouts (spawned over stdio, or served by uvicorn, by
test_tool_timeouts.py). Each tool writes what happened to it into the folder `record`: a file
named for the tool, holding "started", then how it ended ("cancelled", "stopped by
check_cancelled", "saw ctx.cancelled", "finished")."""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path

import anyio
import anyio.from_thread

from mcp.server.mcpserver import Context, MCPServer

SERVER_DEFAULT = 0.6
"""The server-wide `tool_timeout` in seconds; tools without a `timeout=` of their own get it."""

LONG = 30.0
"""How long a tool would run if nothing stopped it: far past every bound the tests wait."""


def build(record: Path) -> MCPServer:
    mcp = MCPServer("tool-timeouts", tool_timeout=SERVER_DEFAULT)

    def note(tool: str, what: str) -> None:
        (record / tool).write_text(what)

    @mcp.tool(timeout=0.3)
    async def sleepy() -> str:
        """Sleeps far past its 0.3 s timeout."""
        note("sleepy", "started")
        try:
            await anyio.sleep(LONG)
        except anyio.get_cancelled_exc_class():
            note("sleepy", "cancelled")
            raise
        return "woke up"

    @mcp.tool(timeout=2.0)
    async def stalls() -> str:
        """Sleeps past its 2 s timeout: long enough for other calls to be served meanwhile."""
        note("stalls", "started")
        await anyio.sleep(LONG)
        return "woke up"

    @mcp.tool(timeout=0.3)
    def grinding() -> str:
        """Sync: works in small steps, asking anyio whether to stop between them."""
        note("grinding", "started")
        deadline = time.monotonic() + LONG
        try:
            while time.monotonic() < deadline:
                anyio.from_thread.check_cancelled()
                time.sleep(0.01)
        except BaseException:  # anyio's cancellation exception (asyncio's or trio's)
            note("grinding", "stopped by check_cancelled")
            raise
        note("grinding", "finished")
        return "done"

    @mcp.tool(timeout=0.3)
    def polling(ctx: Context) -> str:
        """Sync: works until `ctx.cancelled`, then returns a result that must be dropped."""
        note("polling", "started")
        deadline = time.monotonic() + LONG
        while time.monotonic() < deadline and not ctx.cancelled:
            time.sleep(0.01)
        note("polling", "saw ctx.cancelled" if ctx.cancelled else "finished")
        return "a late result nobody may see"

    @mcp.tool()
    async def defaulted() -> str:
        """No timeout of its own: the server's `tool_timeout` bounds it."""
        await anyio.sleep(LONG)
        return "woke up"

    @mcp.tool(timeout=5.0)
    async def generous() -> str:
        """Its own 5 s wins over the server's shorter default."""
        await anyio.sleep(SERVER_DEFAULT + 0.4)
        return "finished within its own timeout"

    @mcp.tool(timeout=math.inf)
    async def exempt() -> str:
        """`math.inf`: no bound at all, whatever the server's default."""
        await anyio.sleep(SERVER_DEFAULT + 0.4)
        return "finished without a bound"

    @mcp.tool()
    def echo(text: str) -> str:
        return text

    return mcp


if __name__ == "__main__":
    build(Path(sys.argv[1])).run()
