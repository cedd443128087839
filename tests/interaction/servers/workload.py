"""Sync tools with timing and size: what worker threads answering by themselves must get right."""

from __future__ import annotations

import time
from pathlib import Path

import anyio
import anyio.from_thread

from mcp.server import MCPServer

mcp = MCPServer("workload")


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
async def shielded(path: str, seconds: float) -> str:
    """Writes `path` at the end of a shielded wait, then waits long enough to be cancelled."""
    with anyio.CancelScope(shield=True):
        await anyio.sleep(seconds)
        Path(path).write_text("shield held")
    await anyio.sleep(30)
    return "never cancelled"


@mcp.tool()
async def fanout(path: str) -> str:
    """Two child tasks that wait forever; each appends a line to `path` when it is cancelled."""

    async def child(name: str) -> None:
        try:
            await anyio.sleep(30)
        finally:
            with Path(path).open("a") as out:
                out.write(f"{name} stopped\n")

    async with anyio.create_task_group() as tg:
        tg.start_soon(child, "one")
        tg.start_soon(child, "two")
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
            time.sleep(0.02)
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
