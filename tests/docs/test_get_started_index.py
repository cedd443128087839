"""docs/get-started/index.md: a docs example is tested through the in-memory `Client(mcp)`: no
subprocess, no port, no transport; the same test shape works for the reader's own server."""

from __future__ import annotations

import pytest

from mcp import Client
from mcp.server import MCPServer

pytestmark = pytest.mark.anyio


def adder() -> MCPServer:
    mcp = MCPServer("Adder")

    @mcp.tool()
    def add(a: int, b: int) -> int:
        return a + b

    return mcp


async def test_client_of_the_server_object_connects_in_memory_and_calls_a_tool() -> None:
    async with Client(adder()) as client:
        result = await client.call_tool("add", {"a": 20, "b": 22})
        assert result.structured_content == {"result": 42}


async def test_each_in_memory_client_is_a_fresh_connection_to_the_same_server() -> None:
    server = adder()
    for _ in range(2):
        async with Client(server) as client:
            assert [tool.name for tool in (await client.list_tools()).tools] == ["add"]
