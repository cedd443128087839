"""docs/advanced/middleware.md: `async (ctx, call_next)` wraps every inbound message (setup,
requests, notifications, unknown methods), outermost first; it may observe, refuse, rewrite or
answer; `call_next` hands over the finished wire form and an answer of its own goes out unpatched;
`initialize` can be wrapped, never replaced; tracing is the one middleware already on the list."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from mcp import Client, MCPError
from mcp.server import MCPServer, Server, ServerRequestContext
from mcp.server._otel import OpenTelemetryMiddleware
from mcp.server.context import CallNext, HandlerResult
from mcp.types import (
    CallToolRequestParams,
    CallToolResult,
    ListToolsResult,
    PaginatedRequestParams,
    RequestParams,
    TextContent,
    Tool,
)

pytestmark = pytest.mark.anyio

STAMP = "io.modelcontextprotocol/serverInfo"


async def list_tools(ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None) -> ListToolsResult:
    return ListToolsResult(tools=[Tool(name="echo", input_schema={"type": "object"})])


async def call_tool(ctx: ServerRequestContext[Any], params: CallToolRequestParams) -> CallToolResult:
    return CallToolResult(content=[TextContent(text=repr(params.arguments))])


def echo_server() -> Server[Any]:
    return Server("Echo", on_list_tools=list_tools, on_call_tool=call_tool)


@pytest.mark.parametrize(("mode", "setup"), [
    ("legacy", [("initialize", True), ("notifications/initialized", False)]),
    ("auto", [("server/discover", True)]),
])
async def test_middleware_wraps_every_inbound_message_setup_included(mode: str, setup: list[tuple[str, bool]]) -> None:
    seen: list[tuple[str, bool, str]] = []
    server = echo_server()

    async def record(ctx: ServerRequestContext[Any], call_next: CallNext) -> HandlerResult:
        try:
            result = await call_next(ctx)
        except MCPError as exc:
            seen.append((ctx.method, ctx.request_id is not None, f"raised {exc.error.code}"))
            raise
        seen.append((ctx.method, ctx.request_id is not None, type(result).__name__))
        return result

    server.middleware.append(record)
    async with Client(server, mode=mode) as client:
        await client.list_tools()
        await client.call_tool("echo", {"n": 1})
        with pytest.raises(MCPError):
            await client.session.send_request_raw("no/such-method", {})
    expected = [(method, is_request, "dict" if is_request else "NoneType") for method, is_request in setup]
    # requests in order; a notification is served in a task of its own, so it may finish after a
    # later request's middleware did (trio schedules it so at times)
    requests = [entry for entry in [*expected, ("tools/list", True, "dict"), ("tools/call", True, "dict"),
                                    ("no/such-method", True, "raised -32601")] if entry[1]]
    assert [entry for entry in seen if entry[1]] == requests
    assert sorted(entry for entry in seen if not entry[1]) == sorted(entry for entry in expected if not entry[1])


async def test_call_next_hands_over_the_finished_wire_form_identity_stamp_included() -> None:
    server = echo_server()
    handed: list[Any] = []

    async def keep(ctx: ServerRequestContext[Any], call_next: CallNext) -> HandlerResult:
        result = await call_next(ctx)
        if ctx.method == "tools/call":
            handed.append(result)
        return result

    server.middleware.append(keep)
    async with Client(server) as client:
        await client.call_tool("echo", {"n": 1})
    (wire,) = handed
    assert wire["content"] == [{"type": "text", "text": "{'n': 1}"}]
    assert wire["resultType"] == "complete"
    assert wire["_meta"] == {STAMP: {"name": "Echo", "version": ""}}


async def test_a_middleware_that_strips_the_identity_stamp_is_obeyed() -> None:
    server = echo_server()

    async def anonymous(ctx: ServerRequestContext[Any], call_next: CallNext) -> HandlerResult:
        result = await call_next(ctx)
        if isinstance(result, dict) and "_meta" in result:
            result = {key: value for key, value in result.items() if key != "_meta"}
        return result

    server.middleware.append(anonymous)
    async with Client(server) as client:
        result = await client.call_tool("echo", {})
    assert result.meta is None


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_refusing_one_message_keeps_the_connection_and_rewriting_changes_what_the_handler_sees(mode: str) -> None:
    server = echo_server()

    async def gate(ctx: ServerRequestContext[Any], call_next: CallNext) -> HandlerResult:
        arguments = (ctx.params or {}).get("arguments") or {}
        if ctx.method == "tools/call" and arguments.get("forbidden"):
            raise MCPError(-32001, "not for you")
        if ctx.method == "tools/call" and arguments.get("rewrite"):
            return await call_next(dataclasses.replace(ctx, params={**(ctx.params or {}), "arguments": {"clean": 1}}))
        return await call_next(ctx)

    server.middleware.append(gate)
    async with Client(server, mode=mode) as client:
        with pytest.raises(MCPError) as refused:
            await client.call_tool("echo", {"forbidden": True})
        assert (refused.value.error.code, refused.value.error.message) == (-32001, "not for you")
        assert (await client.call_tool("echo", {"n": 2})).content == [TextContent(text="{'n': 2}")]
        assert (await client.call_tool("echo", {"rewrite": 1})).content == [TextContent(text="{'clean': 1}")]


async def test_an_answer_of_its_own_goes_to_the_client_without_the_stamp() -> None:
    server = echo_server()

    async def cache(ctx: ServerRequestContext[Any], call_next: CallNext) -> HandlerResult:
        if ctx.method == "tools/call":
            return {"content": [{"type": "text", "text": "cached"}], "resultType": "complete"}
        return await call_next(ctx)

    server.middleware.append(cache)
    async with Client(server) as client:
        result = await client.call_tool("echo", {})
    assert result.content == [TextContent(text="cached")]
    assert result.meta is None


async def test_initialize_can_be_wrapped_but_not_replaced() -> None:
    server = echo_server()
    wrapped: list[str] = []

    async def around(ctx: ServerRequestContext[Any], call_next: CallNext) -> HandlerResult:
        if ctx.method == "initialize":
            wrapped.append((ctx.params or {})["clientInfo"]["name"])
        return await call_next(ctx)

    server.middleware.append(around)
    with pytest.raises(ValueError, match=r"'initialize' is handled by the server runner and cannot be overridden; "
                                         r"use Server\.middleware to observe or wrap initialization"):
        server.add_request_handler("initialize", RequestParams, call_tool)
    async with Client(server, mode="legacy") as client:
        assert (await client.call_tool("echo", {})).content == [TextContent(text="{}")]
    assert len(wrapped) == 1


async def test_mcpserver_takes_middleware_at_construction_and_tracing_is_already_on_the_list() -> None:
    calls: list[str] = []

    async def count(ctx: ServerRequestContext[Any], call_next: CallNext) -> HandlerResult:
        calls.append(ctx.method)
        return await call_next(ctx)

    mcp = MCPServer("Counted", middleware=[count])

    @mcp.tool()
    def ping_me() -> str:
        return "pong"

    assert mcp.middleware[-1] is count
    assert any(isinstance(entry, OpenTelemetryMiddleware) for entry in mcp.middleware)
    assert isinstance(Server("plain").middleware[0], OpenTelemetryMiddleware)
    async with Client(mcp) as client:
        assert (await client.call_tool("ping_me", {})).structured_content == {"result": "pong"}
    assert "tools/call" in calls
