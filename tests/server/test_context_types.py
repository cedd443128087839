"""`mcp.server.context` has the official SDK's names and shapes: `ServerRequestContext` with two
type parameters (both defaulted), `ServerMiddleware`, `CallNext` and `HandlerResult`."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from mcp import Client
from mcp.server import Server, ServerRequestContext
from mcp.server.context import CallNext, HandlerResult, ServerMiddleware
from mcp.server.context import ServerRequestContext as DirectServerRequestContext
from mcp.types import CallToolRequestParams, CallToolResult, PaginatedRequestParams, TextContent, Tool

pytestmark = pytest.mark.anyio


def test_server_request_context_takes_a_lifespan_and_a_request_type() -> None:
    assert DirectServerRequestContext is ServerRequestContext
    assert ServerRequestContext[Any, Any].__args__ == (Any, Any)  # type: ignore[attr-defined]
    assert ServerRequestContext[dict[str, int], str].__args__ == (dict[str, int], str)  # type: ignore[attr-defined]


def test_the_request_type_defaults_so_one_parameter_still_works() -> None:
    assert ServerRequestContext[dict[str, int]].__args__ == (dict[str, int], Any)  # type: ignore[attr-defined]


def test_three_type_parameters_are_too_many() -> None:
    with pytest.raises(TypeError, match="Too many arguments"):
        ServerRequestContext[Any, Any, Any]  # type: ignore[misc]


async def list_tools(ctx: ServerRequestContext[Any, Any], params: PaginatedRequestParams | None) -> HandlerResult:
    return {"tools": [Tool(name="hello", input_schema={"type": "object"}).model_dump(by_alias=True, exclude_none=True)]}


async def call_tool(ctx: ServerRequestContext[dict[str, str], Any], params: CallToolRequestParams) -> CallToolResult:
    return CallToolResult(content=[TextContent(text=f"{ctx.lifespan_context.get('greeting', 'hi')} via {ctx.method}")])


class Tagging:
    """A class-based middleware, typed with the official protocol."""

    def __init__(self, trail: list[str]) -> None:
        self.trail = trail

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        self.trail.append(ctx.method)
        return await call_next(dataclasses.replace(ctx, lifespan_context={"greeting": "hello"}))


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_a_server_middleware_typed_with_the_official_names_runs_and_can_rewrite_the_context(mode: str) -> None:
    trail: list[str] = []
    middleware: ServerMiddleware[Any] = Tagging(trail)
    server = Server("typed", on_list_tools=list_tools, on_call_tool=call_tool)
    server.middleware.append(middleware)
    async with Client(server, mode=mode) as client:
        assert [t.name for t in (await client.list_tools()).tools] == ["hello"]
        result = await client.call_tool("hello", {})
    assert result.content == [TextContent(text="hello via tools/call")]
    assert "tools/list" in trail and "tools/call" in trail
