"""docs/whats-new.md: the v2 tour. `MCPServer` replaces `FastMCP` (old path gone); one `Client` for
every transport; the rebuilt low-level `Server` (constructor handlers, typed params, full results,
no argument validation, sanitised exceptions, `MCPError` passes through, `add_request_handler`);
snake_case attributes over a camelCase wire; transport options left the constructor; behaviour
that changed without an import error; what was removed; the 2026-07-28 wire without a session."""

from __future__ import annotations

import importlib
import threading
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from docskit import serve_http, stdio_script
from pydantic import BaseModel

from mcp import Client, MCPError
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client
from mcp.server import MCPServer, Server, ServerRequestContext
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import MCPServerError
from mcp.types import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    CallToolRequestParams,
    CallToolResult,
    ListToolsResult,
    PaginatedRequestParams,
    TextContent,
    Tool,
)

pytestmark = pytest.mark.anyio


def test_the_fastmcp_path_is_gone_and_the_renames_exist() -> None:
    with pytest.raises(ImportError):
        importlib.import_module("mcp.server.fastmcp")
    assert issubclass(MCPServerError, Exception)
    assert not hasattr(MCPServer, "get_context")
    for gone in ("mcp.shared.version", "mcp.shared.progress", "mcp.shared.session", "mcp.client.websocket"):
        with pytest.raises(ImportError):
            importlib.import_module(gone)
    import mcp
    import mcp.client.streamable_http as streamable

    assert not hasattr(mcp, "McpError") and hasattr(mcp, "MCPError")
    assert not hasattr(streamable, "streamablehttp_client")
    assert MCPError(INVALID_PARAMS, "m", {"d": 1}).error.data == {"d": 1}


async def test_ctx_mcp_server_is_the_server_and_sync_tools_run_on_a_worker_thread() -> None:
    mcp = MCPServer("Tour")

    @mcp.tool()
    async def whoami(ctx: Context) -> bool:
        return ctx.mcp_server is mcp

    @mcp.tool()
    def off_loop() -> bool:
        return threading.current_thread() is not threading.main_thread()

    async with Client(mcp) as client:
        assert (await client.call_tool("whoami", {})).structured_content == {"result": True}
        assert (await client.call_tool("off_loop", {})).structured_content == {"result": True}


def test_transport_options_are_not_constructor_options() -> None:
    with pytest.raises(TypeError):
        MCPServer("x", port=9000)  # type: ignore[call-arg]


SEARCH = Tool(name="find_recipe", description="Find a recipe.",
              input_schema={"type": "object", "properties": {"dish": {"type": "string"}}, "required": ["dish"]})


def lowlevel_kitchen() -> Server:
    async def list_tools(ctx: ServerRequestContext, params: PaginatedRequestParams | None) -> ListToolsResult:
        return ListToolsResult(tools=[SEARCH])

    async def call_tool(ctx: ServerRequestContext, params: CallToolRequestParams) -> CallToolResult:
        if params.name != "find_recipe":
            raise MCPError(INVALID_PARAMS, f"Unknown tool: {params.name}")
        arguments = params.arguments or {}
        return CallToolResult(content=[TextContent(type="text", text=f"recipe for {arguments['dish']}")])

    return Server("Kitchen", on_list_tools=list_tools, on_call_tool=call_tool)


async def test_the_low_level_server_takes_handlers_in_the_constructor_and_returns_full_results() -> None:
    async with Client(lowlevel_kitchen()) as client:
        (tool,) = (await client.list_tools()).tools
        assert tool.input_schema == SEARCH.input_schema
        result = await client.call_tool("find_recipe", {"dish": "soup"})
        assert result.content == [TextContent(type="text", text="recipe for soup")]


async def test_arguments_are_not_validated_and_a_handler_exception_is_sanitised() -> None:
    async with Client(lowlevel_kitchen()) as client:
        for arguments in ({"servings": 2}, None):
            with pytest.raises(MCPError) as raised:
                await client.call_tool("find_recipe", arguments)
            assert (raised.value.error.code, raised.value.error.message) == (INTERNAL_ERROR, "Internal server error")
        with pytest.raises(MCPError) as unknown:
            await client.call_tool("bake", {})
        assert (unknown.value.error.code, unknown.value.error.message) == (INVALID_PARAMS, "Unknown tool: bake")


async def test_returning_a_bare_list_is_a_server_side_error() -> None:
    async def list_tools(ctx: ServerRequestContext, params: PaginatedRequestParams | None) -> Any:
        return [SEARCH]

    async with Client(Server("Bare", on_list_tools=list_tools)) as client:
        with pytest.raises(MCPError) as raised:
            await client.list_tools()
        assert raised.value.error.code == INTERNAL_ERROR


async def test_a_hand_built_tool_with_an_empty_schema_fails_tools_list() -> None:
    async def list_tools(ctx: ServerRequestContext, params: PaginatedRequestParams | None) -> ListToolsResult:
        return ListToolsResult(tools=[Tool(name="broken", input_schema={})])

    async with Client(Server("Strict", on_list_tools=list_tools)) as client:
        with pytest.raises(MCPError):
            await client.list_tools()


class Shelve(BaseModel):
    shelf: str


class ShelveRequest(BaseModel):
    method: str = "com.example/shelve"
    params: Any = None


class Shelved(BaseModel):
    shelved: str


async def test_add_request_handler_serves_a_custom_method_with_validated_params() -> None:
    server = Server("Custom")

    async def shelve(ctx: ServerRequestContext, params: Shelve) -> dict[str, Any]:
        return {"shelved": params.shelf}

    server.add_request_handler("com.example/shelve", Shelve, shelve)
    async with Client(server, mode="legacy") as client:
        answer = await client.session.send_request(ShelveRequest(params=Shelve(shelf="B2")), Shelved)
        assert answer == Shelved(shelved="B2")
        with pytest.raises(MCPError) as raised:
            await client.session.send_request(ShelveRequest(params=Shelved(shelved="x")), Shelved)
        assert raised.value.error.code == INVALID_PARAMS


async def test_attributes_are_snake_case_and_the_wire_is_camel_case() -> None:
    result = CallToolResult(content=[], is_error=True, structured_content={"a": 1})
    wire = result.model_dump(by_alias=True, exclude_none=True)
    assert (wire["isError"], wire["structuredContent"]) == (True, {"a": 1})
    assert "is_error" not in wire and result.is_error
    assert Tool(name="t", input_schema={"type": "object"}).input_schema == {"type": "object"}


async def test_an_mcp_error_in_a_tool_is_a_protocol_error_and_others_are_results() -> None:
    mcp = MCPServer("Tour")

    @mcp.tool()
    def refuse() -> str:
        raise MCPError(INVALID_PARAMS, "not today")

    @mcp.tool()
    def fail() -> str:
        raise RuntimeError("oops")

    async with Client(mcp) as client:
        with pytest.raises(MCPError, match="not today"):
            await client.call_tool("refuse", {})
        assert (await client.call_tool("fail", {})).is_error


async def test_one_client_for_every_transport(tmp_path: Path) -> None:
    source = '''
        from mcp.server import MCPServer
        mcp = MCPServer("Tour")

        @mcp.tool()
        def hello() -> str:
            return "hi"

        mcp.run()
    '''

    def server() -> MCPServer:
        mcp = MCPServer("Tour")

        @mcp.tool()
        def hello() -> str:
            return "hi"

        return mcp

    async def hello_of(client: Client) -> Any:
        assert client.server_capabilities is not None and client.protocol_version
        return (await client.call_tool("hello", {})).structured_content

    with anyio.fail_after(60):
        async with Client(server()) as client:
            assert await hello_of(client) == {"result": "hi"}
        async with Client(stdio_script(tmp_path, source)) as client:
            assert await hello_of(client) == {"result": "hi"}
        with serve_http(lambda: server().streamable_http_app()) as base:
            async with Client(f"{base}/mcp") as client:
                assert await hello_of(client) == {"result": "hi"}
        with serve_http(lambda: server().sse_app()) as base:
            async with Client(sse_client(f"{base}/sse")) as client:
                assert await hello_of(client) == {"result": "hi"}


async def test_the_2026_wire_has_no_session_id_and_the_same_app_serves_a_legacy_handshake() -> None:
    def server() -> MCPServer:
        mcp = MCPServer("Tour")

        @mcp.tool()
        def hello() -> str:
            return "hi"

        return mcp

    with serve_http(lambda: server().streamable_http_app()) as base:
        seen: list[httpx.Response] = []

        async def note(response: httpx.Response) -> None:
            seen.append(response)

        async with httpx.AsyncClient(event_hooks={"response": [note]}) as http:
            async with Client(streamable_http_client(f"{base}/mcp", http_client=http)) as client:
                assert client.protocol_version == "2026-07-28"
                await client.call_tool("hello", {})
            assert seen and all("mcp-session-id" not in r.headers for r in seen)
        async with Client(f"{base}/mcp", mode="legacy") as legacy:
            assert legacy.protocol_version != "2026-07-28"
            assert (await legacy.call_tool("hello", {})).structured_content == {"result": "hi"}


async def test_ctx_elicit_cannot_reach_a_2026_client() -> None:
    mcp = MCPServer("Tour")

    class Answer(BaseModel):
        ok: bool

    @mcp.tool()
    async def ask(ctx: Context) -> str:
        await ctx.elicit("Sure?", Answer)
        return "asked"

    async def answer(context: Any, params: Any) -> Any:
        raise AssertionError("never asked")

    async with Client(mcp, elicitation_callback=answer) as client:
        outcome: Any
        try:
            outcome = await client.call_tool("ask", {})
        except MCPError as exc:
            outcome = exc
        text = outcome.error.message if isinstance(outcome, MCPError) else outcome.content[0].text
        assert "Cannot send 'elicitation/create'" in text or "back-channel" in text
