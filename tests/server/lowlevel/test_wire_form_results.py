"""Handlers, middleware and extension interceptors may answer with a result in wire form (a dict)
or None, as in the official SDK (`HandlerResult = BaseModel | dict[str, Any] | None`).

A dict answering a method MCP defines is checked against that method's result type and goes on
the wire as that type dumps it; a custom method's dict goes as returned."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from mcp import Client, MCPDeprecationWarning, MCPError
from mcp.server import MCPServer, Server, ServerRequestContext
from mcp.server.context import CallNext, HandlerResult
from mcp.server.mcpserver import Extension
from mcp.types import CallToolRequestParams, PaginatedRequestParams, RequestParams, TextContent

pytestmark = pytest.mark.anyio

MODES = ["auto", "legacy"]


async def list_tools(ctx: ServerRequestContext[Any, Any], params: PaginatedRequestParams | None) -> HandlerResult:
    return {"tools": [{"name": "lookup", "inputSchema": {"type": "object"}, "_meta": {"app/x": 1}}]}


async def call_tool(ctx: ServerRequestContext[Any, Any], params: CallToolRequestParams) -> HandlerResult:
    if params.name == "malformed":
        return {"content": "not a list"}
    if params.name == "bare":
        return [TextContent(text="a list is not a result")]  # type: ignore[return-value]
    return {"content": [{"type": "text", "text": f"found {params.arguments}"}], "isError": False,
            "structuredContent": {"hits": 1}, "_meta": {"app/trace": "t1"}}


def make_server() -> Server:
    return Server("wire", on_list_tools=list_tools, on_call_tool=call_tool)


@pytest.mark.parametrize("mode", MODES)
async def test_a_handler_may_return_its_result_as_a_dict(mode: str) -> None:
    async with Client(make_server(), mode=mode) as client:
        tools = await client.list_tools()
        assert [t.name for t in tools.tools] == ["lookup"] and tools.tools[0].meta == {"app/x": 1}
        result = await client.call_tool("lookup", {"q": "x"})
    assert result.content == [TextContent(text="found {'q': 'x'}")]
    assert result.structured_content == {"hits": 1} and result.is_error is False
    assert result.meta is not None and result.meta["app/trace"] == "t1"


async def test_a_dict_result_on_the_modern_wire_gets_the_result_type_and_server_info_stamp() -> None:
    async with Client(make_server()) as client:
        raw = await client.session.send_request_raw("tools/call", {"name": "lookup"})
    assert raw["resultType"] == "complete"
    assert raw["_meta"]["io.modelcontextprotocol/serverInfo"] == {"name": "wire", "version": ""}
    assert raw["_meta"]["app/trace"] == "t1"


@pytest.mark.parametrize("mode", MODES)
async def test_a_dict_that_is_not_a_valid_result_is_an_internal_error_with_the_details_logged(
    mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.ERROR, logger="mcp.server"):
        async with Client(make_server(), mode=mode) as client:
            with pytest.raises(MCPError) as info:
                await client.call_tool("malformed", {})
    assert (info.value.code, info.value.message) == (-32603, "Handler returned an invalid result")
    assert "handler for 'tools/call' returned an invalid result" in caplog.text
    assert "content" in caplog.text


async def test_something_neither_a_model_nor_a_dict_is_still_a_clear_type_error() -> None:
    async with Client(make_server(), raise_exceptions=True) as client:  # 2026-07-28: -32603 with the text
        with pytest.raises(MCPError, match=r"^Handler for 'tools/call' returned list; expected a result model or a dict"):
            await client.call_tool("bare", {})
    async with Client(make_server(), raise_exceptions=True, mode="legacy") as client:  # the exception itself
        with pytest.raises(TypeError, match=r"^Handler for 'tools/call' returned list; expected a result model or a dict"):
            await client.call_tool("bare", {})


@pytest.mark.parametrize("mode", MODES)
async def test_a_custom_method_dict_goes_on_the_wire_as_returned_and_none_is_an_empty_result(mode: str) -> None:
    server = Server("custom")

    async def stats(ctx: ServerRequestContext[Any, Any], params: RequestParams) -> HandlerResult:
        return {"counts": {"a": 1}, "unusual-key": [None, 2]}

    async def forget(ctx: ServerRequestContext[Any, Any], params: RequestParams) -> HandlerResult:
        return None

    server.add_request_handler("vendor/stats", RequestParams, stats)
    server.add_request_handler("vendor/forget", RequestParams, forget)
    async with Client(server, mode=mode) as client:
        raw = await client.session.send_request_raw("vendor/stats", {})
        empty = await client.session.send_request_raw("vendor/forget", {})
    assert raw["counts"] == {"a": 1} and raw["unusual-key"] == [None, 2]
    assert {k: v for k, v in empty.items() if k not in ("resultType", "_meta")} == {}


async def test_a_ping_handler_returning_none_answers_with_an_empty_result() -> None:
    async def on_ping(ctx: ServerRequestContext[Any, Any], params: Any) -> HandlerResult:
        return None

    async with Client(Server("p", on_ping=on_ping), mode="legacy") as client:
        with pytest.warns(MCPDeprecationWarning):
            await client.send_ping()


@pytest.mark.parametrize("mode", MODES)
async def test_a_middleware_may_answer_with_a_dict_which_goes_out_unpatched(mode: str) -> None:
    server = make_server()

    async def cached(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        if ctx.method == "tools/call" and (ctx.params or {}).get("name") == "cached":
            # The whole envelope is the middleware's: it adds `resultType` itself, and no identity stamp.
            return {"content": [{"type": "text", "text": "from the cache"}], "resultType": "complete"}
        return await call_next(ctx)

    server.middleware.append(cached)
    async with Client(server, mode=mode) as client:
        answered = await client.call_tool("cached", {})
        assert answered.content == [TextContent(text="from the cache")]
        assert answered.meta is None
        assert (await client.call_tool("lookup", {})).structured_content == {"hits": 1}


class Canned(Extension):
    identifier = "com.example/canned"

    async def intercept_tool_call(self, params: Any, ctx: Any, call_next: Any) -> Any:
        if params.name == "canned":
            return {"content": [{"type": "text", "text": "canned answer"}], "isError": True}
        return await call_next(ctx)


@pytest.mark.parametrize("mode", MODES)
async def test_an_extension_interceptor_may_answer_with_a_dict(mode: str) -> None:
    mcp = MCPServer("ext", extensions=[Canned()])

    @mcp.tool()
    def canned() -> str:
        return "the tool itself"

    async with Client(mcp, mode=mode) as client:
        result = await client.call_tool("canned", {})
    assert result.content == [TextContent(text="canned answer")] and result.is_error is True


def test_handler_result_is_the_official_union() -> None:
    from pydantic import BaseModel

    assert HandlerResult == BaseModel | dict[str, Any] | None
