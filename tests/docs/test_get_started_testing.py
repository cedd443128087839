"""docs/get-started/testing.md: `Client(server)` is an in-memory connection for tests (a pytest
fixture can yield one); a failing tool is an `is_error=True` result with or without
`raise_exceptions=True`; a failure outside a tool body is sanitised to "Internal server error" unless
`raise_exceptions=True`; `mode="legacy"` pins the handshake era."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from mcp import Client, MCPError
from mcp.server import MCPServer
from mcp.types import CallToolResult, TextContent

pytestmark = pytest.mark.anyio


def calculator() -> MCPServer:
    mcp = MCPServer("Calculator")

    @mcp.tool()
    def divide(a: int, b: int) -> float:
        return a / b

    @mcp.prompt()
    def crash() -> str:
        raise RuntimeError("the disk caught fire")

    return mcp


@pytest.fixture
async def client() -> AsyncIterator[Client]:
    async with Client(calculator(), raise_exceptions=True) as connected:
        yield connected


async def test_a_fixture_yields_a_connected_client_and_the_whole_result_compares(client: Client) -> None:
    result = await client.call_tool("divide", {"a": 9, "b": 3})
    assert result.meta is not None  # the server's identity stamp, dropped before comparing
    result.meta = None
    assert result == CallToolResult(content=[TextContent(type="text", text="3.0")], structured_content={"result": 3.0})


async def test_a_failing_tool_is_an_error_result_with_or_without_raise_exceptions(client: Client) -> None:
    assert (await client.call_tool("divide", {"a": 1, "b": 0})).is_error
    async with Client(calculator()) as plain:
        assert (await plain.call_tool("divide", {"a": 1, "b": 0})).is_error


async def test_a_failure_outside_a_tool_is_sanitised_unless_raise_exceptions_is_on(client: Client) -> None:
    async with Client(calculator()) as plain:
        with pytest.raises(MCPError) as sanitised:
            await plain.get_prompt("crash")
        assert (sanitised.value.error.code, sanitised.value.error.message) == (-32603, "Internal server error")
    with pytest.raises(MCPError) as real:
        await client.get_prompt("crash")
    assert (real.value.error.code, real.value.error.message) == (-32603, "Error rendering prompt crash")


async def test_the_default_client_negotiates_the_modern_era_and_legacy_can_be_pinned() -> None:
    async with Client(calculator()) as modern:
        assert modern.protocol_version == "2026-07-28"
    async with Client(calculator(), mode="legacy") as legacy:
        assert legacy.protocol_version != "2026-07-28"
        assert (await legacy.call_tool("divide", {"a": 8, "b": 2})).structured_content == {"result": 4.0}
