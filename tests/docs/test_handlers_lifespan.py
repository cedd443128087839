"""docs/handlers/lifespan.md: `lifespan=` runs once around the server's life (startup before the
first request, shutdown after the last), what it yields is `ctx.request_context.lifespan_context`
in tools, resources and prompts, the default yields `{}`, and the lifespan parameter never
appears in a tool's schema.

Where we differ from the page on purpose: the page warns that `Context[AppContext]` (the
parameterized form) fails in resources and prompts. The official SDK 2.3.0 accepts it there, and
so do we: the tests below pin that it works."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

import pytest

from mcp import Client
from mcp.server.mcpserver import Context, MCPServer
from mcp.types import TextContent, TextResourceContents

pytestmark = pytest.mark.anyio


class Pool:
    def __init__(self) -> None:
        self.open = False
        self.events: list[str] = []

    async def connect(self) -> None:
        self.open = True
        self.events.append("connect")

    async def close(self) -> None:
        self.open = False
        self.events.append("close")


@dataclass
class Shop:
    pool: Pool


def shop_server(pool: Pool) -> MCPServer:
    @asynccontextmanager
    async def lifespan(server: MCPServer) -> AsyncIterator[Shop]:
        await pool.connect()
        try:
            yield Shop(pool=pool)
        finally:
            await pool.close()

    mcp = MCPServer("Shop", lifespan=lifespan)

    @mcp.tool()
    def status(genre: str, ctx: Context[Shop]) -> str:
        pool.events.append("call")
        return f"{genre}: {'open' if ctx.request_context.lifespan_context.pool.open else 'closed'}"

    @mcp.resource("shelf://{genre}")
    def shelf(genre: str, ctx: Context[Shop]) -> str:
        return f"{genre} shelf, pool open={ctx.request_context.lifespan_context.pool.open}"

    @mcp.prompt()
    def report(ctx: Context[Shop]) -> str:
        return f"Report with pool open={ctx.request_context.lifespan_context.pool.open}"

    return mcp


async def test_startup_runs_before_the_first_request_and_shutdown_after_the_last() -> None:
    pool = Pool()
    server = shop_server(pool)
    assert pool.events == []  # constructing (importing) connected nothing
    async with Client(server) as client:
        assert (await client.call_tool("status", {"genre": "poetry"})).content == [TextContent(text="poetry: open")]
        await client.call_tool("status", {"genre": "prose"})
    assert pool.events == ["connect", "call", "call", "close"]
    assert not pool.open


async def test_the_lifespan_parameter_is_not_in_the_tool_schema() -> None:
    async with Client(shop_server(Pool())) as client:
        (tool,) = (await client.list_tools()).tools
    assert tool.input_schema["properties"] == {"genre": {"title": "Genre", "type": "string"}}
    assert tool.input_schema["required"] == ["genre"]


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_the_parameterized_context_also_works_in_resources_and_prompts(mode: str) -> None:
    async with Client(shop_server(Pool()), mode=mode) as client:
        (contents,) = (await client.read_resource("shelf://poetry")).contents
        prompt = await client.get_prompt("report")
    assert isinstance(contents, TextResourceContents) and contents.text == "poetry shelf, pool open=True"
    assert prompt.messages[0].content == TextContent(text="Report with pool open=True")


async def test_without_a_lifespan_the_context_is_an_empty_dict() -> None:
    bare = MCPServer("Bare")

    @bare.tool()
    def show(ctx: Context) -> str:
        return repr(ctx.request_context.lifespan_context)

    async with Client(bare) as client:
        assert (await client.call_tool("show", {})).content == [TextContent(text="{}")]
