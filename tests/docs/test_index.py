"""docs/index.md: a two-function file is a complete server (one tool, one templated resource)
whose schema comes from the type hints; the SDK builds servers and clients and speaks stdio,
Streamable HTTP and SSE."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from docskit import serve_http, stdio_script

from mcp import Client
from mcp.client.session import ClientSession
from mcp.client.sse import sse_client
from mcp.server import MCPServer

pytestmark = pytest.mark.anyio

SOURCE = '''
from mcp.server import MCPServer

mcp = MCPServer("Hello")


@mcp.tool()
def subtract(a: int, b: int) -> int:
    """Subtract b from a."""
    return a - b


@mcp.resource("hello://{name}")
def hello(name: str) -> str:
    """Say hello."""
    return f"Hello, {name}!"


if __name__ == "__main__":
    mcp.run()
'''


def hello_server() -> MCPServer:
    namespace: dict[str, object] = {"__name__": "hello"}
    exec(compile(SOURCE, "hello.py", "exec"), namespace)
    server = namespace["mcp"]
    assert isinstance(server, MCPServer)
    return server


async def check(client: Client) -> None:
    (tool,) = (await client.list_tools()).tools
    assert tool.input_schema["properties"] == {"a": {"title": "A", "type": "integer"},
                                               "b": {"title": "B", "type": "integer"}}
    assert tool.input_schema["required"] == ["a", "b"]
    assert (await client.call_tool("subtract", {"a": 5, "b": 2})).structured_content == {"result": 3}
    (template,) = (await client.list_resource_templates()).resource_templates
    assert template.uri_template == "hello://{name}"
    assert (await client.read_resource("hello://World")).contents[0].text == "Hello, World!"  # type: ignore[union-attr]


async def test_the_two_functions_are_a_complete_server_in_memory() -> None:
    async with Client(hello_server()) as client:
        await check(client)


async def test_the_same_server_over_stdio(tmp_path: Path) -> None:
    with anyio.fail_after(30):
        async with Client(stdio_script(tmp_path, SOURCE)) as client:
            await check(client)


async def test_the_same_server_over_streamable_http() -> None:
    with serve_http(lambda: hello_server().streamable_http_app()) as base:
        async with Client(f"{base}/mcp") as client:
            await check(client)


async def test_the_same_server_over_sse() -> None:
    with serve_http(lambda: hello_server().sse_app()) as base, anyio.fail_after(30):
        async with sse_client(f"{base}/sse") as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            result = await session.call_tool("subtract", {"a": 1, "b": 1})
            assert result.structured_content == {"result": 0}
