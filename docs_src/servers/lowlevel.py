from typing import Any

from mcp.server.lowlevel import Server
from mcp.types import CallToolResult, ListToolsResult, TextContent, Tool


async def list_tools(ctx: Any, params: Any) -> ListToolsResult:
    schema = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
              "required": ["a", "b"]}
    return ListToolsResult(tools=[Tool(name="add", input_schema=schema)])


async def call_tool(ctx: Any, params: Any) -> CallToolResult:
    total = params.arguments["a"] + params.arguments["b"]
    return CallToolResult(
        content=[TextContent(text=str(total))],
        structured_content={"result": total},
        _meta={"computed_by": "lowlevel"},  # seen by the application, not by the model
    )


server = Server("calculator", on_list_tools=list_tools, on_call_tool=call_tool)
