"""One replica of the service the multi-process tests run three of: an `MCPServer` whose state
is in Redis. Usage: replica_server.py PORT REDIS_URL PREFIX WORKER_NAME MARKER_DIR"""

from __future__ import annotations

import sys
from pathlib import Path

import anyio

from mcp.redis import RedisState
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.request_state import RequestStateSecurity
from mcp.server.tasks import TaskContext, Tasks

port, redis_url, prefix, worker, marker_dir = sys.argv[1:6]
markers = Path(marker_dir)

tasks = Tasks()


@tasks.tool()
async def long_job(label: str) -> str:
    """Runs until cancelled; leaves a marker file saying which worker ran it and how it ended."""
    (markers / f"{label}.started").write_text(worker)
    try:
        await anyio.sleep(60)
    finally:
        (markers / f"{label}.ended").write_text(worker)
    return "finished"


@tasks.tool()
async def ask_job(ctx: TaskContext) -> str:
    """Parks in input_required until the client answers the question "q"."""
    answer = await ctx.input("test/question", {"text": "which number?"}, key="q")
    return f"{worker} got {answer['value']}"


mcp = MCPServer("replicated", extensions=[tasks], state=RedisState.from_url(redis_url, prefix=prefix, resumable=True),
                request_state_security=RequestStateSecurity(keys=[b"k" * 32]))


@mcp.tool()
def whoami() -> str:
    """The worker serving this request."""
    return worker


@mcp.tool()
async def announce(ctx: Context) -> str:
    """Tell every listener that the tool list changed."""
    await ctx.notify_tools_changed()
    return worker


@mcp.tool()
async def touch(uri: str, ctx: Context) -> str:
    """Tell subscribers that the resource `uri` changed."""
    await ctx.notify_resource_updated(uri)
    return worker


@mcp.tool()
async def ticks(count: int, ctx: Context) -> str:
    """`count` progress notifications, one every 20 ms, then the answer."""
    for i in range(1, count + 1):
        await ctx.report_progress(i, count, f"tick {i} from {worker}")
        await anyio.sleep(0.02)
    return f"{count} ticks from {worker}"


@mcp.tool()
def blob(size: int) -> str:
    """`size` characters (the answer carries them twice: text and structured content)."""
    return "x" * size


@mcp.resource("doc://readme")
def readme() -> str:
    return "hello"


mcp.run(transport="streamable-http", host="127.0.0.1", port=int(port))
