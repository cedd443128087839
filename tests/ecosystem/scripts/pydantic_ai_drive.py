"""pydantic-ai's MCP client (`pydantic_ai.mcp.MCPToolset`, on FastMCP's client) against one of our
servers, driven directly and through an agent whose model is a local function (no LLM): list the
tools, call both. Prints what it saw as JSON.

    python pydantic_ai_drive.py stdio SERVER_SCRIPT
    python pydantic_ai_drive.py http URL
"""

import asyncio
import json
import sys

from fastmcp.client.transports import StdioTransport
from pydantic_ai import Agent
from pydantic_ai.mcp import MCPToolset
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel


def call_reading_then_answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """The model's turns: call `reading` for Cairo, then answer with what the tool returned."""
    returned = [part for message in messages for part in getattr(message, "parts", ())
                if isinstance(part, ToolReturnPart)]
    if not returned:
        return ModelResponse(parts=[ToolCallPart("reading", {"city": "Cairo"})])
    return ModelResponse(parts=[TextPart(json.dumps(returned[-1].content))])


async def use(toolset: MCPToolset) -> dict:
    async with toolset:
        tools = await toolset.list_tools()
        added = await toolset.direct_call_tool("add", {"a": 2, "b": 3})
        reading = await toolset.direct_call_tool("reading", {"city": "Oslo"})
        agent = Agent(FunctionModel(call_reading_then_answer), toolsets=[toolset])
        answer = await agent.run("How warm is Cairo?")
    import mcp

    return {
        "sdk": mcp.__file__,
        "tools": sorted(tool.name for tool in tools),
        "output_schemas": {tool.name: tool.output_schema for tool in tools},
        "add": added,
        "reading": reading,
        "agent_answer": json.loads(answer.output),
    }


if __name__ == "__main__":
    if sys.argv[1] == "stdio":
        toolset = MCPToolset(StdioTransport(command=sys.executable, args=[sys.argv[2]]), tool_error_behavior="error")
    else:
        toolset = MCPToolset(sys.argv[2], tool_error_behavior="error")
    print(json.dumps(asyncio.run(use(toolset))))
