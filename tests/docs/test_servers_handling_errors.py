"""docs/servers/handling-errors.md: an exception in a tool is an `is_error=True` result the model
reads; `MCPError` fails the request with its code, message and data intact; a resource raises
`ResourceNotFoundError` for -32602 with the URI; bad arguments never reach the function; even
`raise_exceptions=True` leaves a tool error a result.

Deliberate difference (as in the official 2.3.0 package, whose page says otherwise): an
*unexpected* exception's text is masked to `Error executing tool <name>` unless the server is built
with `mask_error_details=False` (README, "What we do beyond the official SDK"); `ToolError` keeps it."""

from __future__ import annotations

import pytest
from docskit import serve_http

from mcp import Client, MCPError
from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import ResourceNotFoundError
from mcp.types import INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, TextContent

pytestmark = pytest.mark.anyio

COLOURS = {"teal": "#008080"}


def paints(**settings: object) -> MCPServer:
    mcp = MCPServer("Paints", **settings)  # type: ignore[arg-type]

    @mcp.tool()
    def hex_for(name: str) -> str:
        if name not in COLOURS:
            raise ValueError(f"No colour called {name!r}.")
        return COLOURS[name]

    @mcp.tool()
    def hex_or_tool_error(name: str) -> str:
        if name not in COLOURS:
            raise ToolError(f"No colour called {name!r}.")
        return COLOURS[name]

    @mcp.tool()
    def hex_or_protocol_error(name: str) -> str:
        if name not in COLOURS:
            raise MCPError(INVALID_PARAMS, f"No colour called {name!r}.", {"name": name})
        return COLOURS[name]

    @mcp.resource("colours://{name}")
    def colour(name: str) -> str:
        if name not in COLOURS:
            raise ResourceNotFoundError(f"No colour called {name!r}.")
        return COLOURS[name]

    return mcp


async def test_an_ordinary_exception_is_an_error_result_not_a_raise() -> None:
    async with Client(paints()) as client:
        result = await client.call_tool("hex_for", {"name": "mauve"})
        assert result.is_error and result.structured_content is None
        assert result.content == [TextContent(type="text", text="Error executing tool hex_for")]  # masked
        assert not (await client.call_tool("hex_for", {"name": "teal"})).is_error


async def test_the_message_reaches_the_model_when_details_are_not_masked_or_via_tool_error() -> None:
    expected = [TextContent(type="text", text="Error executing tool hex_for: No colour called 'mauve'.")]
    async with Client(paints(mask_error_details=False)) as client:
        assert (await client.call_tool("hex_for", {"name": "mauve"})).content == expected
    async with Client(paints()) as client:
        result = await client.call_tool("hex_or_tool_error", {"name": "mauve"})
        assert result.is_error
        assert result.content == [TextContent(type="text", text="Error executing tool hex_or_tool_error: No colour called 'mauve'.")]


async def test_mcp_error_fails_the_request_with_code_message_and_data_intact() -> None:
    async with Client(paints()) as client:
        with pytest.raises(MCPError) as raised:
            await client.call_tool("hex_or_protocol_error", {"name": "mauve"})
        assert (raised.value.error.code, raised.value.error.message, raised.value.error.data) == (
            -32602, "No colour called 'mauve'.", {"name": "mauve"})
        assert str(raised.value) == "No colour called 'mauve'."


def test_the_error_code_constants_are_the_json_rpc_numbers() -> None:
    assert (INVALID_PARAMS, INVALID_REQUEST, INTERNAL_ERROR) == (-32602, -32600, -32603)
    from mcp import MCPError as top_level

    assert top_level is MCPError


async def test_a_missing_resource_is_invalid_params_with_the_uri_in_data() -> None:
    async with Client(paints()) as client:
        with pytest.raises(MCPError) as raised:
            await client.read_resource("colours://mauve")
        assert (raised.value.error.code, raised.value.error.message, raised.value.error.data) == (
            -32602, "No colour called 'mauve'.", {"uri": "colours://mauve"})


async def test_a_badly_typed_argument_is_a_tool_error_before_the_function_runs() -> None:
    async with Client(paints()) as client:
        result = await client.call_tool("hex_for", {"name": 5})
        assert result.is_error
        assert isinstance(result.content[0], TextContent) and "name" in result.content[0].text


async def test_raise_exceptions_leaves_a_tool_error_a_result() -> None:
    async with Client(paints(), raise_exceptions=True) as client:
        result = await client.call_tool("hex_for", {"name": "mauve"})
        assert result.is_error


async def test_both_paths_over_streamable_http() -> None:
    with serve_http(lambda: paints().streamable_http_app()) as base:
        async with Client(f"{base}/mcp") as client:
            assert (await client.call_tool("hex_or_tool_error", {"name": "x"})).is_error
            with pytest.raises(MCPError) as raised:
                await client.call_tool("hex_or_protocol_error", {"name": "x"})
            assert raised.value.error.data == {"name": "x"}
            with pytest.raises(MCPError) as missing:
                await client.read_resource("colours://x")
            assert missing.value.error.data == {"uri": "colours://x"}
