"""Sync tools with timing and size: what worker threads answering by themselves must get right."""

from __future__ import annotations

import time
from pathlib import Path

import anyio
import anyio.abc
import anyio.from_thread

from mcp.server import MCPServer
from mcp.server.mcpserver import Context

mcp = MCPServer("workload")
_shield_release: list[anyio.Event] = []  # made on first use, inside the server's event loop


def _release() -> anyio.Event:
    if not _shield_release:
        _shield_release.append(anyio.Event())
    return _shield_release[0]


@mcp.tool()
def add(a: int, b: int) -> int:
    return a + b


@mcp.tool()
def slow(seconds: float, tag: str) -> str:
    time.sleep(seconds)
    return tag


@mcp.tool()
def big(size: int) -> str:
    return "x" * size


@mcp.tool()
def fail(message: str) -> str:
    raise RuntimeError(message)


@mcp.tool()
async def ping_async() -> str:
    return "pong"


@mcp.tool()
async def shielded(path: str, ctx: Context) -> str:
    """Inside an anyio shield: reports progress "inside the shield", waits for `release_shield`,
    writes `path`; then waits long enough to be cancelled."""
    with anyio.CancelScope(shield=True):
        await ctx.report_progress(0, 1, "inside the shield")
        await _release().wait()
        Path(path).write_text("shield held")
    await anyio.sleep(30)
    return "never cancelled"


@mcp.tool()
async def release_shield() -> str:
    """Lets `shielded` leave its shield."""
    _release().set()
    return "released"


@mcp.tool()
async def fanout(path: str, ctx: Context) -> str:
    """Two child tasks that wait forever; each appends a line to `path` when it is cancelled.
    Reports progress "children waiting" once both have started."""

    async def child(name: str, *, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        try:
            task_status.started()
            await anyio.sleep(30)
        finally:
            with Path(path).open("a") as out:
                out.write(f"{name} stopped\n")

    async with anyio.create_task_group() as tg:
        await tg.start(child, "one")
        await tg.start(child, "two")
        await ctx.report_progress(0, 1, "children waiting")
    return "never cancelled"


@mcp.tool()
def index_books(path: str, count: int) -> str:
    """A sync tool the way the docs write one: it reaches the loop with `anyio.from_thread` and
    checks for cancellation between steps; appends each step (or "cancelled") to `path`."""
    try:
        for step in range(count):
            anyio.from_thread.check_cancelled()
            loop_says = anyio.from_thread.run_sync(lambda: "loop")
            with Path(path).open("a") as out:
                out.write(f"{step} {loop_says}\n")
            time.sleep(0.02)  # a step of work: a cancellation lands between steps
    except BaseException:
        with Path(path).open("a") as out:
            out.write("cancelled\n")
        raise
    return f"indexed {count}"


@mcp.tool()
async def wait_async(seconds: float, tag: str) -> str:
    await anyio.sleep(seconds)
    return tag


if __name__ == "__main__":
    mcp.run()
