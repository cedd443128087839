"""The OpenAI Agents SDK's MCP server objects against one of our servers, driven directly (no
model): connect, list the tools, call both. Prints what they saw as JSON.

    python agents_drive.py stdio SERVER_SCRIPT
    python agents_drive.py http URL
"""

import asyncio
import json
import sys

from agents.mcp import MCPServerStdio, MCPServerStreamableHttp


async def use(server) -> dict:
    async with server:
        tools = await server.list_tools()
        added = await server.call_tool("add", {"a": 2, "b": 3})
        reading = await server.call_tool("reading", {"city": "Oslo"})
        import mcp

        return {
            "sdk": mcp.__file__,
            "tools": sorted(tool.name for tool in tools),
            "output_schemas": {tool.name: tool.output_schema for tool in tools},
            "add_text": added.content[0].text,
            "add_structured": added.structured_content,
            "reading_structured": reading.structured_content,
            "reading_error": reading.is_error,
        }


if __name__ == "__main__":
    if sys.argv[1] == "stdio":
        server = MCPServerStdio(params={"command": sys.executable, "args": [sys.argv[2]]}, cache_tools_list=True)
    else:
        server = MCPServerStreamableHttp(params={"url": sys.argv[2]})
    print(json.dumps(asyncio.run(use(server))))
