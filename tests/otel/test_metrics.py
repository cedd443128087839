"""Request counts, durations, in-flight requests and tool errors on the OpenTelemetry metrics
API, per method and per tool or prompt name (never per argument value), on both sides."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from otelkit import Captured, bookshop

from mcp import Client, MCPError
from mcp._telemetry.runtime import MAX_NAMES
from mcp.server import Server, ServerRequestContext
from mcp.types import CallToolResult

sys.path.insert(0, str(Path(__file__).parents[1] / "server" / "http"))
from httpkit import uvicorn_server

pytestmark = pytest.mark.anyio


def _by_tool(otel: Captured, metric: str) -> dict[tuple[Any, Any], Any]:
    return {(attrs.get("gen_ai.tool.name"), attrs.get("error.type")): point
            for attrs, point in otel.points(metric) if attrs["mcp.method.name"] == "tools/call"}


async def test_server_calls_are_counted_and_timed_per_tool_with_errors_apart(otel: Captured) -> None:
    async with Client(bookshop()) as client:
        for query in ("dune", "emma", "ulysses"):
            await client.call_tool("search_books", {"query": query})
        await client.call_tool("broken", {"query": "x"})

    durations = _by_tool(otel, "mcp.server.operation.duration")
    assert durations[("search_books", None)].count == 3
    assert durations[("broken", "tool_error")].count == 1
    errors = _by_tool(otel, "mcp.server.tool.errors")
    assert {key: p.value for key, p in errors.items()} == {("broken", "tool_error"): 1}


async def test_no_metric_attribute_carries_an_argument_value(otel: Captured) -> None:
    async with Client(bookshop()) as client:
        await client.call_tool("search_books", {"query": "a secret title"})
        await client.get_prompt("recommend", {"genre": "secret genre"})

    for metric in ("mcp.server.operation.duration", "mcp.server.tool.errors", "mcp.client.operation.duration"):
        for attrs, _point in otel.points(metric):
            assert not [v for v in attrs.values() if "secret" in str(v)], (metric, attrs)
    prompts = [a for a, _ in otel.points("mcp.server.operation.duration")
               if a["mcp.method.name"] == "prompts/get"]
    assert prompts == [{"mcp.method.name": "prompts/get", "gen_ai.prompt.name": "recommend"}]


async def test_in_flight_requests_return_to_zero_when_calls_end(otel: Captured) -> None:
    async with Client(bookshop()) as client:
        await client.call_tool("search_books", {"query": "dune"})
        await client.call_tool("broken", {"query": "x"})

    in_flight = {a["mcp.method.name"]: p.value for a, p in otel.points("mcp.server.active_requests")}
    assert in_flight["tools/call"] == 0
    assert set(in_flight.values()) == {0}


async def test_a_protocol_error_is_a_tool_error_with_its_code_on_server_and_client(otel: Captured) -> None:
    async def call_tool(ctx: ServerRequestContext[Any], params: Any) -> CallToolResult:
        raise MCPError(-32602, "unknown tool")

    async with Client(Server("low", on_call_tool=call_tool)) as client:
        with pytest.raises(MCPError):
            await client.call_tool("missing", {})

    assert _by_tool(otel, "mcp.server.tool.errors")[("missing", "-32602")].value == 1
    assert _by_tool(otel, "mcp.client.operation.duration")[("missing", "-32602")].count == 1


async def test_tool_names_beyond_the_bound_are_counted_together(otel: Captured) -> None:
    async def call_tool(ctx: ServerRequestContext[Any], params: Any) -> CallToolResult:
        raise MCPError(-32602, "unknown tool")

    async with Client(Server("low", on_call_tool=call_tool)) as client:
        for i in range(MAX_NAMES + 20):
            with pytest.raises(MCPError):
                await client.session.call_tool(f"made-up-{i}", {})

    names = {name for name, _error in _by_tool(otel, "mcp.server.operation.duration")}
    assert "_OTHER" in names
    assert len(names) <= MAX_NAMES + 1


def _open_sessions(otel: Captured) -> int:
    return sum(point.value for _attrs, point in otel.points("mcp.server.active_sessions"))


@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_open_http_sessions_are_observed_and_spans_name_their_session(otel: Captured) -> None:
    app = bookshop().streamable_http_app()
    async with uvicorn_server(app) as base_url, Client(f"{base_url}/mcp", mode="legacy") as first, \
                Client(f"{base_url}/mcp", mode="legacy") as second:
        await first.call_tool("search_books", {"query": "dune"})
        await second.list_tools()
        assert _open_sessions(otel) == 2
    assert _open_sessions(otel) == 0

    span = otel.span("tools/call search_books")
    assert span.attributes is not None and isinstance(span.attributes["mcp.session.id"], str)
