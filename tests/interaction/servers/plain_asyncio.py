"""Servers started the way many hosts do it, with `asyncio.run` (not `anyio.run`), so nothing but
asyncio itself is set up around them: `plain_asyncio.py mcpserver|lowlevel`."""

from __future__ import annotations

import asyncio
import sys
from typing import Any

import anyio

from mcp.server import MCPServer
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.types import CallToolRequestParams, CallToolResult, ListToolsResult, TextContent, Tool

mcp = MCPServer("plain-asyncio")


@mcp.tool()
def add(a: int, b: int) -> int:
    return a + b


@mcp.tool()
async def add_later(a: int, b: int) -> int:
    await anyio.sleep(0.01)  # a real wait on the loop's timer (with a timeout around it below): the behaviour
    with anyio.fail_after(5):
        await asyncio.sleep(0)
    return a + b


async def list_tools(ctx: Any, params: Any) -> ListToolsResult:
    return ListToolsResult(tools=[Tool(name="add", input_schema={"type": "object"})])


async def call_tool(ctx: Any, params: CallToolRequestParams) -> CallToolResult:
    args = params.arguments or {}
    if args.get("wait"):
        with anyio.fail_after(5):
            await anyio.sleep(0.01)  # a real wait under a timeout: the behaviour under test
    total = args["a"] + args["b"]
    return CallToolResult(content=[TextContent(text=str(total))], structured_content={"result": total})


lowlevel = Server("plain-asyncio-lowlevel", on_list_tools=list_tools, on_call_tool=call_tool)


async def serve_lowlevel() -> None:
    async with stdio_server() as (read_stream, write_stream):
        await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())


if __name__ == "__main__":
    asyncio.run(serve_lowlevel() if sys.argv[1:] == ["lowlevel"] else mcp.run_stdio_async())
