"""docs/advanced/low-level-server.md: handlers are constructor parameters, nothing is derived,
wrapped or validated for tools, exceptions are -32603, `_meta` reaches the client application,
capabilities follow the handlers, and `add_request_handler` serves any method but `initialize`."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from pydantic import BaseModel

from mcp import Client, MCPError
from mcp.server import Server, ServerRequestContext
from mcp.types import (
    CallToolRequestParams,
    CallToolResult,
    ListPromptsResult,
    ListToolsResult,
    PaginatedRequestParams,
    RequestParams,
    TextContent,
    Tool,
)

pytestmark = pytest.mark.anyio

SCHEMA: dict[str, Any] = {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
                          "required": ["city", "days"]}
OUTPUT: dict[str, Any] = {"type": "object", "properties": {"high": {"type": "integer"}}, "required": ["high"]}


async def list_tools(ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None) -> ListToolsResult:
    return ListToolsResult(tools=[Tool(name="forecast", input_schema=SCHEMA, output_schema=OUTPUT),
                                  Tool(name="tagged", input_schema={"type": "object"})])


async def call_tool(ctx: ServerRequestContext[Any], params: CallToolRequestParams) -> CallToolResult:
    args = params.arguments or {}
    if params.name == "forecast":
        high = 20 + args["days"]  # KeyError when the client leaves `days` out: nothing checked it
        return CallToolResult(content=[TextContent(text=f"{args['city']}: {high}")],
                              structured_content={"high": high} if args.get("valid", True) else {"high": "hot"})
    if params.name == "tagged":
        return CallToolResult(content=[TextContent(text="3 records")], _meta={"weather/record_ids": ["r1", "r2"]})
    raise ValueError(f"Unknown tool: {params.name}")


def weather(version: str | None = None) -> Server[Any]:
    return Server("Weather", version=version, on_list_tools=list_tools, on_call_tool=call_tool)


async def test_the_advertised_schema_is_exactly_the_one_written() -> None:
    async with Client(weather()) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert tools["forecast"].input_schema == SCHEMA
    assert tools["forecast"].output_schema == OUTPUT


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_an_exception_in_a_handler_is_an_error_response(mode: str) -> None:
    async with Client(weather(), mode=mode) as client:
        with pytest.raises(MCPError) as missing_arg:
            await client.call_tool("forecast", {"city": "Oslo"})
        with pytest.raises(MCPError) as unknown:
            await client.call_tool("nowhere", {})
        assert (await client.call_tool("forecast", {"city": "Oslo", "days": 2})).content == [TextContent(text="Oslo: 22")]
    answers = [(failure.error.code, failure.error.message) for failure in (missing_arg.value, unknown.value)]
    if mode == "legacy":  # the official dispatcher's answer: code 0 with the exception's text
        assert answers == [(0, "'days'"), (0, "Unknown tool: nowhere")]
    else:  # 2026-07-28: a generic internal error
        assert answers == [(-32603, "Internal server error")] * 2


async def test_structured_content_is_yours_and_the_2026_result_carries_the_identity_stamp() -> None:
    async with Client(weather(version="2.0.0")) as client:
        raw = await client.session.send_request_raw("tools/call", {"name": "forecast", "arguments": {"city": "Oslo",
                                                                                                     "days": 1}})
    assert raw["structuredContent"] == {"high": 21}
    assert raw["isError"] is False and raw["resultType"] == "complete"
    assert raw["_meta"] == {"io.modelcontextprotocol/serverInfo": {"name": "Weather", "version": "2.0.0"}}


async def test_the_client_refuses_structured_content_that_breaks_the_declared_output_schema() -> None:
    async with Client(weather()) as client:
        await client.list_tools()
        with pytest.raises(RuntimeError, match=r"^Invalid structured content returned by tool forecast"):
            await client.call_tool("forecast", {"city": "Oslo", "days": 1, "valid": False})


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_meta_reaches_the_client_application_as_result_meta(mode: str) -> None:
    async with Client(weather(), mode=mode) as client:
        result = await client.call_tool("tagged", {})
    assert result.meta is not None
    assert result.meta["weather/record_ids"] == ["r1", "r2"]
    assert result.structured_content is None


async def test_capabilities_follow_the_handlers_given() -> None:
    async with Client(weather(), mode="legacy") as client:
        assert client.server_capabilities.model_dump(exclude_none=True, by_alias=True) == {
            "tools": {"listChanged": False}}

    async def list_prompts(ctx: ServerRequestContext[Any], params: Any) -> ListPromptsResult:
        return ListPromptsResult(prompts=[])

    async with Client(Server("P", on_list_prompts=list_prompts), mode="legacy") as client:
        caps = client.server_capabilities
        assert caps.prompts is not None and caps.tools is None and caps.resources is None


@pytest.mark.anyio
async def test_the_lifespan_object_is_the_context_of_every_handler_and_defaults_to_an_empty_dict() -> None:
    events: list[str] = []

    @asynccontextmanager
    async def lifespan(server: Server[dict[str, int]]) -> AsyncIterator[dict[str, int]]:
        events.append("start")
        yield {"stations": 4}
        events.append("stop")

    async def show(ctx: ServerRequestContext[Any], params: CallToolRequestParams) -> CallToolResult:
        return CallToolResult(content=[TextContent(text=repr(ctx.lifespan_context))])

    async with Client(Server("L", lifespan=lifespan, on_call_tool=show)) as client:
        assert (await client.call_tool("x", {})).content == [TextContent(text="{'stations': 4}")]
    assert events == ["start", "stop"]
    async with Client(Server("Bare", on_call_tool=show)) as client:
        assert (await client.call_tool("x", {})).content == [TextContent(text="{}")]


class ReindexParams(RequestParams):
    full: bool = False


class Reindexed(BaseModel):
    indexed: int
    full: bool


async def reindex(ctx: ServerRequestContext[Any], params: ReindexParams) -> Reindexed:
    return Reindexed(indexed=3, full=params.full)


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_a_custom_method_is_served_with_validated_params(mode: str) -> None:
    server = weather()
    server.add_request_handler("weather/reindex", ReindexParams, reindex)
    entry = server.get_request_handler("weather/reindex")
    assert entry is not None and entry.params_type is ReindexParams
    assert server.get_request_handler("weather/burn") is None
    called = server.get_request_handler("tools/call")
    assert called is not None and called.params_type is CallToolRequestParams
    async with Client(server, mode=mode) as client:
        result = await client.session.send_request_raw("weather/reindex", {"full": True})
        assert (result["indexed"], result["full"]) == (3, True)
        with pytest.raises(MCPError) as invalid:
            await client.session.send_request_raw("weather/reindex", {"full": "sometimes"})
    assert invalid.value.error.code == -32602


def test_initialize_is_reserved_but_other_builtins_may_be_replaced() -> None:
    server = weather()
    with pytest.raises(ValueError, match=r"^'initialize' is handled by the server runner and cannot be overridden; "
                                         r"use Server\.middleware to observe or wrap initialization$"):
        server.add_request_handler("initialize", RequestParams, reindex)
    assert server.get_request_handler("initialize") is None

    async def pong(ctx: ServerRequestContext[Any], params: Any) -> dict[str, Any]:
        return {}

    server.add_request_handler("ping", RequestParams, pong)
    entry = server.get_request_handler("ping")
    assert entry is not None and entry.handler is pong
