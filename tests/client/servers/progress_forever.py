"""A stdio server whose tool reports progress for ever (spawned by test_call_timeouts.py): it
writes "cancelled" to the file argv[1] when the client's `notifications/cancelled` stops it."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio

from mcp.server.mcpserver import Context, MCPServer

RECORD = Path(sys.argv[1])
mcp = MCPServer("progress-forever")


@mcp.tool()
async def busy(ctx: Context) -> str:
    step = 0
    try:
        while True:
            step += 1
            await ctx.report_progress(step)
            await anyio.sleep(0.05)
    except anyio.get_cancelled_exc_class():
        RECORD.write_text("cancelled")
        raise


if __name__ == "__main__":
    mcp.run()
