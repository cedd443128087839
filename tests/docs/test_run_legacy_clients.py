"""docs/run/legacy-clients.md: one `streamable_http_app()` serves both eras, routed per request;
a legacy client gets an `Mcp-Session-Id` (unknown ids are 404), a modern one never does;
`stateless_http=True` drops the legacy session and with it the legacy back channel (a top-level
MCPError at the client), and only that: the modern leg is unchanged; change notifications go to
each era by its own verb."""

from __future__ import annotations

from typing import Annotated, Any

import httpx
import pytest
from pydantic import BaseModel
from tests.server.http.httpkit import uvicorn_server

from mcp import Client, MCPError
from mcp.client import ClientRequestContext
from mcp.client.streamable_http import streamable_http_client
from mcp.server.mcpserver import Context, Elicit, MCPServer, Resolve
from mcp.types import ElicitRequestParams, ElicitResult, ResourceUpdatedNotification, TextContent

pytestmark = pytest.mark.anyio

ASYNCIO_ONLY = pytest.mark.parametrize("anyio_backend", ["asyncio"])
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "old", "version": "1"}}}


class Copies(BaseModel):
    copies: int


def how_many(title: str) -> Elicit[Copies]:
    return Elicit(f"How many copies of {title!r}?", Copies)


def library() -> MCPServer:
    mcp = MCPServer("Library")

    @mcp.tool()
    def lend(title: str, wanted: Annotated[Copies, Resolve(how_many)]) -> str:
        return f"Lent {wanted.copies} of {title!r}."

    @mcp.tool()
    def shelf() -> str:
        return "12 books"

    return mcp


async def two(context: ClientRequestContext, params: ElicitRequestParams) -> ElicitResult:
    return ElicitResult(action="accept", content={"copies": 2})


async def test_one_resolve_tool_serves_both_eras_at_once_in_memory() -> None:
    server = library()
    async with Client(server, mode="legacy", elicitation_callback=two) as legacy, \
            Client(server, elicitation_callback=two) as modern:
        assert (legacy.protocol_version, modern.protocol_version) == ("2025-11-25", "2026-07-28")
        for client in (legacy, modern):
            result = await client.call_tool("lend", {"title": "Dune"})
            assert result.structured_content == {"result": "Lent 2 of 'Dune'."}
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            assert set(tools["lend"].input_schema["properties"]) == {"title"}


@ASYNCIO_ONLY
async def test_one_app_serves_both_eras_over_http_and_only_legacy_gets_a_session() -> None:
    async with uvicorn_server(library().streamable_http_app()) as base, httpx.AsyncClient() as http:
        url = f"{base}/mcp"
        for mode, version in (("legacy", "2025-11-25"), ("auto", "2026-07-28")):
            async with Client(streamable_http_client(url, http_client=http), mode=mode, elicitation_callback=two) as client:
                assert client.protocol_version == version
                result = await client.call_tool("lend", {"title": "Dune"})
                assert result.content == [TextContent(text="Lent 2 of 'Dune'.")]
        opened = await http.post(url, json=INITIALIZE, headers=HEADERS)
        session_id = opened.headers["mcp-session-id"]
        unknown = await http.post(url, json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
                                  headers={**HEADERS, "Mcp-Session-Id": "never-issued",
                                           "Mcp-Protocol-Version": "2025-11-25"})
        await http.delete(url, headers={"Mcp-Session-Id": session_id, "Mcp-Protocol-Version": "2025-11-25"})
    assert unknown.status_code == 404


@ASYNCIO_ONLY
async def test_stateless_http_kills_the_legacy_back_channel_and_only_it() -> None:
    app = library().streamable_http_app(stateless_http=True)
    async with uvicorn_server(app) as base, httpx.AsyncClient() as http:
        url = f"{base}/mcp"
        opened = await http.post(url, json=INITIALIZE, headers=HEADERS)
        assert opened.status_code == 200 and "mcp-session-id" not in opened.headers
        async with Client(streamable_http_client(url, http_client=http), elicitation_callback=two) as modern:
            assert modern.protocol_version == "2026-07-28"
            assert (await modern.call_tool("lend", {"title": "Dune"})).content == [TextContent(text="Lent 2 of 'Dune'.")]
        async with Client(streamable_http_client(url, http_client=http), mode="legacy",
                          elicitation_callback=two) as legacy:
            assert legacy.protocol_version == "2025-11-25"
            assert (await legacy.call_tool("shelf", {})).content == [TextContent(text="12 books")]
            with pytest.raises(MCPError) as refused:
                await legacy.call_tool("lend", {"title": "Dune"})
    assert refused.value.error.code == -32600
    assert refused.value.error.message == (
        "Cannot send 'elicitation/create': this transport context has no back-channel for server-initiated requests.")


async def test_each_era_hears_change_notifications_through_its_own_verb() -> None:
    mcp = MCPServer("Stock")
    stock = {"Dune": 1}

    @mcp.resource("stock://{title}")
    def level(title: str) -> str:
        return f"{stock[title]} in stock"

    @mcp.tool()
    async def restock(title: str, ctx: Context) -> str:
        stock[title] += 1
        await ctx.notify_resource_updated(f"stock://{title}")
        await ctx.session.send_resource_updated(f"stock://{title}")
        return f"{stock[title]} in stock"

    received: list[Any] = []

    async def on_message(message: Any) -> None:
        received.append(message)

    async with Client(mcp, mode="legacy", message_handler=on_message) as client:
        assert (await client.call_tool("restock", {"title": "Dune"})).content == [TextContent(text="2 in stock")]
    (notice,) = received
    assert isinstance(notice, ResourceUpdatedNotification) and notice.params.uri == "stock://Dune"

    async with Client(mcp) as client, client.listen(resource_subscriptions=["stock://Dune"]) as events:
        await client.call_tool("restock", {"title": "Dune"})
        async for event in events:
            assert getattr(event, "uri", None) == "stock://Dune"
            break
