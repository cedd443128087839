"""Low-level server benchmark (`mcp.server.lowlevel.Server`, the v2 `on_*` handler API).

Same file for mcpkit (ours) and the official SDK. One tool, `add(a, b)`, listed and
called through `Server("bench-lowlevel", on_list_tools=..., on_call_tool=...)` with
`async def handler(ctx, params)` handlers; no schema validation or result conversion
beyond what the low-level server itself does. Served over stdio the documented way:
`async with stdio_server() as (r, w): await server.run(r, w, server.create_initialization_options())`.
"""

from __future__ import annotations

from typing import Any

import anyio

from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.types import (
    CallToolRequestParams,
    CallToolResult,
    ListToolsResult,
    PaginatedRequestParams,
    TextContent,
    Tool,
)

ADD = Tool(
    name="add",
    description="Add two integers.",
    input_schema={
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
        "required": ["a", "b"],
    },
)


async def list_tools(ctx: Any, params: PaginatedRequestParams | None) -> ListToolsResult:
    return ListToolsResult(tools=[ADD])


async def call_tool(ctx: Any, params: CallToolRequestParams) -> CallToolResult:
    if params.name != "add":
        return CallToolResult(content=[TextContent(text=f"unknown tool {params.name}")], is_error=True)
    args = params.arguments or {}
    total = args["a"] + args["b"]
    return CallToolResult(content=[TextContent(text=str(total))], structured_content={"result": total})


server = Server("bench-lowlevel", on_list_tools=list_tools, on_call_tool=call_tool)


async def main() -> None:
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
