"""A tool's failure reaches the model in one of three ways: invalid arguments and output that
fails its schema are detailed (the seed page's "Error executing tool NAME: 1 validation error for
..."), a deliberate `ToolError` keeps its text, and any other exception is masked to
`Error executing tool NAME` (its text may hold secrets or paths) with the traceback in the server
log. `MCPServer(mask_error_details=False)` keeps the text, for development."""

from __future__ import annotations

import logging

import pytest
from pydantic import BaseModel

from mcp import Client
from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

pytestmark = pytest.mark.anyio


class Reading(BaseModel):
    city: str
    celsius: int


def build(**options: bool) -> MCPServer:
    mcp = MCPServer("failures", **options)

    @mcp.tool()
    def connect() -> str:
        raise RuntimeError("db password=hunter2 at /srv/secret/config.ini")

    @mcp.tool()
    async def aconnect() -> str:
        raise KeyError("/srv/secret/config.ini")

    @mcp.tool()
    def reserve(seats: int) -> str:
        raise ToolError(f"only 2 seats left, asked for {seats}")

    @mcp.tool()
    def reading() -> Reading:
        return {"city": "Oslo"}  # type: ignore[return-value]  # missing a field: fails its schema

    return mcp


@pytest.mark.parametrize("tool", ["connect", "aconnect"])
async def test_an_unexpected_exception_is_masked_and_its_traceback_logged(
        tool: str, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.ERROR):
        async with Client(build()) as client:
            result = await client.call_tool(tool, {})
    assert result.is_error is True
    assert [block.text for block in result.content] == [f"Error executing tool {tool}"]  # type: ignore[union-attr]
    logged = [record for record in caplog.records if record.getMessage() == f"Error executing tool {tool}"]
    assert logged and logged[0].exc_info is not None and "secret" in str(logged[0].exc_info[1])


async def test_a_deliberate_tool_error_keeps_its_text() -> None:
    async with Client(build()) as client:
        result = await client.call_tool("reserve", {"seats": 5})
    assert result.is_error is True
    assert result.content[0].text == "Error executing tool reserve: only 2 seats left, asked for 5"  # type: ignore[union-attr]


async def test_invalid_arguments_and_invalid_output_are_detailed() -> None:
    async with Client(build()) as client:
        bad_arguments = await client.call_tool("reserve", {"seats": "many"})
        bad_output = await client.call_tool("reading", {})
    assert bad_arguments.is_error is True
    assert bad_arguments.content[0].text.startswith("Error executing tool reserve: 1 validation error")  # type: ignore[union-attr]
    assert bad_output.is_error is True
    assert bad_output.content[0].text.startswith(  # type: ignore[union-attr]
        "Error executing tool reading: 1 validation error for Reading")
    assert "celsius" in bad_output.content[0].text  # type: ignore[union-attr]


async def test_unmasking_keeps_the_text_for_development() -> None:
    async with Client(build(mask_error_details=False)) as client:
        result = await client.call_tool("connect", {})
    assert result.content[0].text == (  # type: ignore[union-attr]
        "Error executing tool connect: db password=hunter2 at /srv/secret/config.ini")


async def test_mcpserver_call_tool_raises_what_tools_call_answers_as_an_error_result() -> None:
    from mcp.server.mcpserver.exceptions import UnexpectedToolError

    mcp = build()
    with pytest.raises(UnexpectedToolError, match=r"^Error executing tool connect$") as crashed:
        await mcp.call_tool("connect", {})
    assert isinstance(crashed.value.__cause__, RuntimeError)
    with pytest.raises(ToolError, match=r"^Error executing tool reserve: only 2 seats left, asked for 3$") as chosen:
        await mcp.call_tool("reserve", {"seats": 3})
    assert not isinstance(chosen.value, UnexpectedToolError)
    with pytest.raises(ToolError, match=r"^Error executing tool reserve: 1 validation error"):
        await mcp.call_tool("reserve", {"seats": "many"})
    with pytest.raises(UnexpectedToolError, match=r"^Error executing tool reading: 1 validation error for Reading"):
        await mcp.call_tool("reading", {})
    with pytest.raises(ToolError, match=r"^Unknown tool: nope$"):
        await mcp.call_tool("nope", {})


async def test_a_tool_error_raised_from_another_exception_keeps_its_own_text() -> None:
    mcp = MCPServer("chained")

    @mcp.tool()
    def book() -> str:
        try:
            raise ValueError("internal detail")
        except ValueError as exc:
            raise ToolError("fully booked") from exc

    async with Client(mcp) as client:
        result = await client.call_tool("book", {})
    assert result.is_error and result.content[0].text == "Error executing tool book: fully booked"  # type: ignore[union-attr]
