"""`Client(StdioServerParameters(...))` against a real server subprocess."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import pytest

from mcp import Client, MCPError, StdioServerParameters

pytestmark = pytest.mark.anyio

SERVER = str(Path(__file__).parent / "servers" / "weather.py")


def _params() -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=[SERVER])


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_a_stdio_client_lists_and_calls_tools_in_both_eras(mode: str) -> None:
    with anyio.fail_after(20):
        async with Client(_params(), mode=mode) as client:
            assert client.protocol_version == ("2026-07-28" if mode == "auto" else "2025-11-25")
            assert client.server_info is not None and client.server_info.name == "Weather"
            tools = await client.list_tools()
            assert tools.tools[0].name == "get_temperature"
            result = await client.call_tool("get_temperature", {"city": "Reykjavik"})
            assert result.structured_content == {"result": 4}
            forecast = await client.call_tool("get_forecast", {"city": "London", "days": 3})
            assert len(forecast.content) == 3


async def test_a_server_that_dies_mid_call_fails_the_call_instead_of_hanging() -> None:
    with anyio.fail_after(20):
        async with Client(_params()) as client:
            with pytest.raises(MCPError) as info:
                await client.call_tool("die", {})
            assert info.value.code == -32000


async def test_methods_outside_async_with_raise_a_clear_error() -> None:
    client = Client(_params())
    with pytest.raises(RuntimeError, match="Client must be used within an async context manager"):
        await client.list_tools()


async def test_a_client_cannot_be_entered_twice() -> None:
    with anyio.fail_after(20):
        client = Client(_params())
        async with client:
            pass
        with pytest.raises(RuntimeError, match="cannot reenter"):
            async with client:
                pass


async def test_a_missing_server_command_raises_a_clear_error() -> None:
    with anyio.fail_after(20), pytest.raises(OSError):
        async with Client(StdioServerParameters(command="/nonexistent/mcp-server")):
            pass
