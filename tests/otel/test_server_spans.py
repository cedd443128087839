"""Every server emits one SERVER span per inbound message, named and attributed as the official
SDK's are, with errors marking the span (tool errors and protocol errors told apart)."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from opentelemetry.trace import SpanKind, StatusCode
from otelkit import Captured, bookshop

from mcp import Client, MCPError
from mcp.server import MCPServer, Server, ServerRequestContext
from mcp.server._otel import OpenTelemetryMiddleware
from mcp.types import CallToolResult, ListToolsResult, TextContent, Tool

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_a_tool_call_is_a_server_span_named_after_the_method_and_the_tool(otel: Captured, mode: str) -> None:
    async with Client(bookshop(), mode=mode) as client:
        await client.call_tool("search_books", {"query": "dune"})
        version = client.protocol_version

    span = otel.span("tools/call search_books")
    assert span.kind is SpanKind.SERVER
    assert span.attributes is not None
    assert span.attributes["mcp.method.name"] == "tools/call"
    assert span.attributes["mcp.protocol.version"] == version
    assert span.attributes["gen_ai.operation.name"] == "execute_tool"
    assert span.attributes["gen_ai.tool.name"] == "search_books"
    assert isinstance(span.attributes["jsonrpc.request.id"], str)
    assert span.status.status_code is StatusCode.UNSET


async def test_list_methods_are_bare_spans_and_prompts_name_their_prompt(otel: Captured) -> None:
    async with Client(bookshop()) as client:
        await client.list_tools()
        await client.get_prompt("recommend", {"genre": "sf"})

    listed = otel.span("tools/list")
    assert listed.attributes is not None
    assert not [key for key in listed.attributes if key.startswith("gen_ai.")]
    prompt = otel.span("prompts/get recommend")
    assert prompt.attributes is not None and prompt.attributes["gen_ai.prompt.name"] == "recommend"


async def test_a_notification_span_has_no_request_id(otel: Captured) -> None:
    async with Client(bookshop(), mode="legacy"):
        pass

    span = otel.span("notifications/initialized")
    assert span.attributes is not None and "jsonrpc.request.id" not in span.attributes


async def test_a_tool_error_result_marks_the_span_as_a_tool_error(otel: Captured) -> None:
    async with Client(bookshop()) as client:
        result = await client.call_tool("broken", {"query": "x"})
    assert result.is_error is True

    span = otel.span("tools/call broken")
    assert span.status.status_code is StatusCode.ERROR
    assert span.attributes is not None and span.attributes["error.type"] == "tool_error"


async def test_a_protocol_error_marks_the_span_with_its_code_on_both_sides(otel: Captured) -> None:
    async def call_tool(ctx: ServerRequestContext[Any], params: Any) -> CallToolResult:
        raise MCPError(-32602, f"no tool {params.name!r}")

    async with Client(Server("low", on_call_tool=call_tool)) as client:
        with pytest.raises(MCPError):
            await client.call_tool("missing", {})

    for name in ("tools/call missing", "MCP send tools/call missing"):
        span = otel.span(name)
        assert span.status.status_code is StatusCode.ERROR
        assert span.attributes is not None
        assert span.attributes["error.type"] == "-32602"
        assert span.attributes["rpc.response.status_code"] == "-32602"


async def test_a_handler_that_raises_records_the_exception_type(otel: Captured) -> None:
    async def call_tool(ctx: ServerRequestContext[Any], params: Any) -> CallToolResult:
        raise RuntimeError("database down")

    async with Client(Server("low", on_call_tool=call_tool)) as client:
        with pytest.raises(MCPError):
            await client.call_tool("crash", {})

    span = otel.span("tools/call crash")
    assert span.status.status_code is StatusCode.ERROR
    assert span.attributes is not None and span.attributes["error.type"] == "RuntimeError"
    assert [event.name for event in span.events] == ["exception"]


async def test_a_low_level_server_is_traced_too(otel: Captured) -> None:
    async def call_tool(ctx: ServerRequestContext[Any], params: Any) -> CallToolResult:
        return CallToolResult(content=[TextContent(text="ok")])

    async def list_tools(ctx: ServerRequestContext[Any], params: Any) -> ListToolsResult:
        return ListToolsResult(tools=[Tool(name="echo", input_schema={"type": "object"})])

    async with Client(Server("low", on_call_tool=call_tool, on_list_tools=list_tools)) as client:
        await client.call_tool("echo", {})

    assert otel.span("tools/call echo").attributes["gen_ai.tool.name"] == "echo"  # type: ignore[index]


async def test_a_cancelled_call_ends_its_span_marked_cancelled_but_not_failed(otel: Captured) -> None:
    started = anyio.Event()
    mcp = MCPServer("slow")

    @mcp.tool()
    async def wait_forever() -> str:
        started.set()
        await anyio.sleep_forever()
        return "never"

    async with Client(mcp) as client:
        async with anyio.create_task_group() as tg:
            tg.start_soon(client.call_tool, "wait_forever", {})
            await started.wait()
            tg.cancel_scope.cancel()
        with anyio.fail_after(5):
            while not [s for s in otel.spans() if s.name == "tools/call wait_forever"]:
                await anyio.sleep(0.01)

    span = otel.span("tools/call wait_forever")
    assert span.attributes is not None and span.attributes["error.type"] == "cancelled"
    assert span.status.status_code is StatusCode.UNSET


async def test_removing_the_middleware_as_the_docs_show_stops_server_spans(otel: Captured) -> None:
    mcp = bookshop()
    mcp._lowlevel_server.middleware[:] = [
        m for m in mcp._lowlevel_server.middleware if not isinstance(m, OpenTelemetryMiddleware)
    ]
    async with Client(mcp) as client:
        await client.call_tool("search_books", {"query": "dune"})

    names = [s.name for s in otel.spans()]
    assert "MCP send tools/call search_books" in names
    assert not [s for s in otel.spans() if s.kind is SpanKind.SERVER]


def test_every_server_starts_with_the_tracing_middleware_which_counts_as_empty_without_an_sdk() -> None:
    for server in (Server("low"), bookshop()._lowlevel_server):
        assert [type(m) for m in server.middleware] == [OpenTelemetryMiddleware]
        assert not server.middleware  # no SDK installed: the no-middleware fast paths stay on


def test_the_middleware_list_is_truthy_once_an_sdk_is_installed_or_other_middleware_is_added(otel: Captured) -> None:
    assert Server("low").middleware
    server = Server("low")
    server.middleware.append(OpenTelemetryMiddleware())
    assert server.middleware
