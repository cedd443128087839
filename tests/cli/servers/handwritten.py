"""A low-level server publishing hand-written input schemas that some clients refuse: a root
anyOf (beside `type`), an object without `properties`, an untyped property, `type` beside `anyOf`, a type list
and a `format: uri`."""

from typing import Any

from mcp.server.lowlevel import Server
from mcp.types import CallToolResult, ListToolsResult, TextContent, Tool

SCHEMAS: dict[str, dict[str, Any]] = {
    "either": {"type": "object", "anyOf": [{"type": "object", "properties": {"a": {"type": "string"}}},
                         {"type": "object", "properties": {"b": {"type": "string"}}}]},
    "ping": {"type": "object"},
    "anything": {"type": "object", "properties": {"value": {"description": "any JSON"}}},
    "maybe": {"type": "object", "properties": {"n": {"type": "integer", "anyOf": [{"minimum": 0}, {"maximum": -10}]}}},
    "fetch": {"type": "object", "properties": {"url": {"type": ["string", "null"], "format": "uri"}},
              "required": ["url"], "additionalProperties": False},
}


async def list_tools(ctx: Any, params: Any) -> ListToolsResult:
    return ListToolsResult(tools=[Tool(name=name, input_schema=schema) for name, schema in SCHEMAS.items()])


async def call_tool(ctx: Any, params: Any) -> CallToolResult:
    return CallToolResult(content=[TextContent(text="ok")])


server = Server("handwritten", on_list_tools=list_tools, on_call_tool=call_tool)

if __name__ == "__main__":
    import anyio

    from mcp.server.stdio import stdio_server

    async def main() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(main)
