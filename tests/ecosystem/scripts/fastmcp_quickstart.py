"""FastMCP's quick start on whatever `mcp` is installed: a server with a tool, resources and a
prompt, and its `Client`, which prints as JSON what it saw.

    python fastmcp_quickstart.py serve-stdio
    python fastmcp_quickstart.py serve-http PORT
    python fastmcp_quickstart.py client memory|stdio|URL
"""

import asyncio
import json
import sys

from fastmcp import Client, FastMCP

mcp = FastMCP("Demo")


@mcp.tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@mcp.resource("greeting://{name}")
def greeting(name: str) -> str:
    """A greeting for `name`."""
    return f"Hello, {name}!"


@mcp.resource("data://config")
def config() -> dict:
    """The demo's settings."""
    return {"mode": "demo"}


@mcp.prompt
def review(code: str) -> str:
    """Ask for a code review."""
    return f"Please review this code:\n\n{code}"


async def drive(target: object) -> dict:
    async with Client(target) as client:
        tools = await client.list_tools()
        added = await client.call_tool("add", {"a": 2, "b": 3})
        resources = await client.list_resources()
        templates = await client.list_resource_templates()
        hello = await client.read_resource("greeting://Ada")
        settings = await client.read_resource("data://config")
        prompts = await client.list_prompts()
        prompt = await client.get_prompt("review", {"code": "x = 1"})
        import mcp as sdk

        return {
            "sdk": sdk.__file__,
            "tools": [tool.name for tool in tools],
            "add_data": added.data,
            "add_structured": added.structured_content,
            "resources": [str(resource.uri) for resource in resources],
            "templates": [template.uri_template for template in templates],
            "greeting": hello[0].text,
            "config": json.loads(settings[0].text),
            "prompts": [p.name for p in prompts],
            "prompt_text": prompt.messages[0].content.text,
        }


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "serve-stdio":
        mcp.run(show_banner=False)
    elif mode == "serve-http":
        mcp.run(transport="http", host="127.0.0.1", port=int(sys.argv[2]), show_banner=False)
    else:
        target = sys.argv[2]
        if target == "memory":
            chosen: object = mcp
        elif target == "stdio":
            from fastmcp.client.transports import PythonStdioTransport

            chosen = PythonStdioTransport(__file__, args=["serve-stdio"])
        else:
            chosen = target
        print(json.dumps(asyncio.run(drive(chosen))))
