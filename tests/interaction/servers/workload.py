"""Sync tools with timing and size: what worker threads answering by themselves must get right."""

from __future__ import annotations

import time

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


if __name__ == "__main__":
    mcp.run()
