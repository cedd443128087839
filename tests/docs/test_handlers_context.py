"""docs/handlers/context.md: a parameter annotated `Context` (any name) is injected per request
in tools, resources and prompts and hidden from the schema; `request_id`, `headers`,
`request_context.lifespan_context`, `read_resource` of the server's own resources, and
`session.send_tool_list_changed()` after `add_tool` (an unknown tool is a readable error first)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from tests.server.http.httpkit import uvicorn_server

from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.server.mcpserver import Context, MCPServer
from mcp.types import TextContent, TextResourceContents, ToolListChangedNotification

pytestmark = pytest.mark.anyio


def garden() -> MCPServer:
    mcp = MCPServer("Garden")

    @mcp.tool()
    def whoami(plant: str, c: Context) -> str:
        return f"request {c.request_id!r} about {plant}; headers={'x-locale' in (c.headers or {})}"

    @mcp.resource("garden://beds")
    def beds() -> str:
        return "roses, herbs, beans"

    @mcp.resource("garden://bed/{name}")
    def bed(name: str, ctx: Context) -> str:
        return f"{name} (lifespan {ctx.request_context.lifespan_context!r})"

    @mcp.prompt()
    def plan(season: str, ctx: Context) -> str:
        return f"Plan {season} (request {ctx.request_id is not None})"  # pyright: ignore[reportUnnecessaryComparison]

    @mcp.tool()
    async def describe(ctx: Context) -> str:
        [contents] = await ctx.read_resource("garden://beds")
        return f"Beds: {contents.content}"

    def water(bed: str) -> str:
        """Water one bed."""
        return f"Watered {bed}."

    @mcp.tool()
    async def unlock_watering(ctx: Context) -> str:
        mcp.add_tool(water)
        await ctx.session.send_tool_list_changed()
        return "Watering is available."

    return mcp


async def test_the_context_is_injected_whatever_its_name_and_hidden_from_the_schema() -> None:
    async with Client(garden()) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        result = await client.call_tool("whoami", {"plant": "fern"})
    assert set(tools["whoami"].input_schema["properties"]) == {"plant"}
    assert tools["describe"].input_schema.get("properties", {}) == {}
    assert isinstance(result.content[0], TextContent)
    assert "about fern; headers=False" in result.content[0].text
    assert "request None" not in result.content[0].text


async def test_resources_and_prompts_take_a_context_too() -> None:
    async with Client(garden()) as client:
        (contents,) = (await client.read_resource("garden://bed/roses")).contents
        prompt = await client.get_prompt("plan", {"season": "spring"})
    assert isinstance(contents, TextResourceContents) and contents.text == "roses (lifespan {})"
    assert prompt.messages[0].content == TextContent(text="Plan spring (request True)")


async def test_a_tool_reads_the_servers_own_resource_through_the_same_registry() -> None:
    async with Client(garden()) as client:
        result = await client.call_tool("describe", {})
    assert result.content == [TextContent(text="Beds: roses, herbs, beans")]


@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_headers_are_the_http_request_headers() -> None:
    async with uvicorn_server(garden().streamable_http_app()) as base, \
            httpx.AsyncClient(headers={"X-Locale": "pt-PT"}) as http, \
            Client(streamable_http_client(f"{base}/mcp", http_client=http)) as client:
        result = await client.call_tool("whoami", {"plant": "fern"})
    assert isinstance(result.content[0], TextContent) and "headers=True" in result.content[0].text


async def test_adding_a_tool_and_saying_so_makes_the_list_dynamic() -> None:
    received: list[Any] = []

    async def on_message(message: Any) -> None:
        received.append(message)

    async with Client(garden(), mode="legacy", message_handler=on_message) as client:
        missing = await client.call_tool("water", {"bed": "herbs"})
        assert missing.is_error
        assert missing.content == [TextContent(text="Unknown tool: water")]
        await client.call_tool("unlock_watering", {})
        assert any(isinstance(message, ToolListChangedNotification) for message in received)
        assert "water" in {tool.name for tool in (await client.list_tools()).tools}
        assert (await client.call_tool("water", {"bed": "herbs"})).content == [TextContent(text="Watered herbs.")]
