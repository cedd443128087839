"""W3C trace context crosses the wire in `_meta` (SEP-414): the client's span and the server's
span share one trace in memory, over stdio and over HTTP; a malformed `traceparent` starts a
fresh trace and never fails the request."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from opentelemetry import trace
from opentelemetry.trace import SpanKind
from otelkit import Captured, bookshop

from mcp import Client, StdioServerParameters
from mcp.server import MCPServer
from mcp.shared._otel import extract_trace_context, inject_trace_context, otel_span

sys.path.insert(0, str(Path(__file__).parents[1] / "server" / "http"))
from httpkit import asgi_client, modern, modern_headers, modern_meta, uvicorn_server

pytestmark = pytest.mark.anyio

TRACED_SERVER = str(Path(__file__).parent / "servers" / "traced_bookshop.py")
VALID_PARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_client_and_server_share_one_trace_in_memory(otel: Captured, mode: str, wire_check: Any) -> None:
    async with Client(bookshop(), mode=mode) as client:
        await client.call_tool("search_books", {"query": "dune"})

    client_span = otel.span("MCP send tools/call search_books")
    server_span = otel.span("tools/call search_books")
    assert client_span.kind is SpanKind.CLIENT
    assert client_span.context is not None and server_span.context is not None
    assert server_span.context.trace_id == client_span.context.trace_id
    assert server_span.parent is not None and server_span.parent.span_id == client_span.context.span_id
    # On the wire: the request's `_meta` names the client span as the parent.
    sent = [msg for sender, msg, _v, _m in wire_check.messages
            if sender == "client" and msg.get("method") == "tools/call"]
    traceparent = sent[0]["params"]["_meta"]["traceparent"]
    assert traceparent.startswith(f"00-{client_span.context.trace_id:032x}-{client_span.context.span_id:016x}-")


async def test_client_spans_nest_under_the_applications_current_span(otel: Captured) -> None:
    tracer = trace.get_tracer("app")
    with tracer.start_as_current_span("agent step") as outer:
        async with Client(bookshop()) as client:
            await client.call_tool("search_books", {"query": "dune"})

    server_span = otel.span("tools/call search_books")
    assert server_span.context is not None
    assert server_span.context.trace_id == outer.get_span_context().trace_id


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_client_and_server_share_one_trace_over_stdio(otel: Captured, mode: str, tmp_path: Path) -> None:
    spans_file = tmp_path / "server-spans.jsonl"
    params = StdioServerParameters(command=sys.executable, args=[TRACED_SERVER],
                                   env={**os.environ, "SPANS_FILE": str(spans_file)})
    with anyio.fail_after(30):
        async with Client(params, mode=mode) as client:
            await client.call_tool("search_books", {"query": "dune"})

    client_span = otel.span("MCP send tools/call search_books")
    assert client_span.context is not None
    server_spans = [json.loads(line) for line in spans_file.read_text().splitlines()]
    call = [s for s in server_spans if s["name"] == "tools/call search_books"]
    assert len(call) == 1
    assert call[0]["kind"] == "SERVER"
    assert call[0]["trace_id"] == client_span.context.trace_id
    assert call[0]["parent"] == client_span.context.span_id
    assert call[0]["attributes"]["gen_ai.tool.name"] == "search_books"


@pytest.mark.parametrize("anyio_backend", ["asyncio"])
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_client_and_server_share_one_trace_over_http(otel: Captured, mode: str) -> None:
    app = bookshop().streamable_http_app()
    async with uvicorn_server(app) as base_url:
        with anyio.fail_after(30):
            async with Client(f"{base_url}/mcp", mode=mode) as client:
                await client.call_tool("search_books", {"query": "dune"})

    client_span = otel.span("MCP send tools/call search_books")
    server_span = otel.span("tools/call search_books")
    assert client_span.context is not None and server_span.context is not None
    assert server_span.context.trace_id == client_span.context.trace_id
    assert server_span.parent is not None and server_span.parent.span_id == client_span.context.span_id


async def _post_call(meta_extra: dict[str, Any]) -> dict[str, Any]:
    message = modern(1, "tools/call", {"name": "search_books", "arguments": {"query": "dune"}},
                     meta=modern_meta(**meta_extra))
    # A JSON-only Accept is what a JSON-answering server takes (an SSE-answering one says 406, as officially).
    async with asgi_client(bookshop().streamable_http_app(json_response=True), lifespan=True) as http:
        response = await http.post("/mcp", json=message, headers=modern_headers(message, accept="application/json"))
    assert response.status_code == 200
    return response.json()


@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_a_foreign_clients_traceparent_and_tracestate_parent_the_server_span(otel: Captured) -> None:
    answer = await _post_call({"traceparent": VALID_PARENT, "tracestate": "vendor=abc"})
    assert "result" in answer

    span = otel.span("tools/call search_books")
    assert span.parent is not None and span.parent.is_remote
    assert span.parent.trace_id == 0x4BF92F3577B34DA6A3CE929D0E0E4736
    assert span.parent.span_id == 0x00F067AA0BA902B7
    assert span.context is not None and span.context.trace_state.get("vendor") == "abc"


@pytest.mark.parametrize("anyio_backend", ["asyncio"])
@pytest.mark.parametrize("traceparent", ["garbage", "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
                                         "00-4bf92f3577b34da6a3ce929d0e0e4736-zz-01", 7, ["x"], {"a": 1}])
async def test_a_malformed_traceparent_starts_a_fresh_trace_and_the_call_succeeds(otel: Captured,
                                                                                  traceparent: Any) -> None:
    answer = await _post_call({"traceparent": traceparent})
    assert answer["result"]["content"][0]["text"] == "Found 3 books matching 'dune'."

    span = otel.span("tools/call search_books")
    assert span.parent is None
    assert span.context is not None and span.context.trace_id != 0


def test_extracting_trace_context_from_bad_meta_gives_none_so_the_span_parents_to_the_current_one(
        otel: Captured) -> None:
    for meta in (None, {}, {"traceparent": "nope"}, {"traceparent": 5}, {"other": "x"}):
        assert extract_trace_context(meta) is None
    assert extract_trace_context({"traceparent": VALID_PARENT}) is not None


def test_the_official_helper_names_open_spans_and_round_trip_trace_context(otel: Captured) -> None:
    meta: dict[str, Any] = {}
    with otel_span("outer", kind=SpanKind.CLIENT, attributes={"k": "v"}) as span:
        inject_trace_context(meta)
    context = extract_trace_context(meta)
    assert context is not None
    assert trace.get_current_span(context).get_span_context().span_id == span.get_span_context().span_id
    assert otel.span("outer").attributes == {"k": "v"}


async def test_a_request_the_server_sends_back_is_a_client_span_inside_the_tool_call(otel: Captured) -> None:
    from mcp.server.mcpserver import Context
    from mcp.types import ElicitResult

    mcp = MCPServer("asks")

    @mcp.tool()
    async def ask(ctx: Context) -> str:
        answer = await ctx.session.elicit_form("Your name?", {"type": "object", "properties": {
            "name": {"type": "string"}}, "required": ["name"]})
        return str(answer.content)

    async def on_elicit(ctx: Any, params: Any) -> ElicitResult:
        return ElicitResult(action="accept", content={"name": "Ada"})

    async with Client(mcp, mode="legacy", elicitation_callback=on_elicit) as client:
        await client.call_tool("ask", {})

    call = otel.span("tools/call ask")
    back = otel.span("MCP send elicitation/create")
    assert back.kind is SpanKind.CLIENT
    assert call.context is not None and back.context is not None and back.parent is not None
    assert back.context.trace_id == call.context.trace_id
    assert back.parent.span_id == call.context.span_id
