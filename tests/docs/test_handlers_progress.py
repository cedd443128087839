"""docs/handlers/progress.md (the server side): `ctx.report_progress(progress, total, message)`
reaches the call's `progress_callback` in order while the tool runs; `ctx` is not in the input
schema; with no callback it is a no-op; an unknown total arrives as None; over a real transport
every report still arrives. (How client callbacks are scheduled is the client pages' subject.)"""

from __future__ import annotations

import inspect

import anyio
import httpx
import pytest
from tests.server.http.httpkit import uvicorn_server

from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.server.mcpserver import Context, MCPServer

pytestmark = pytest.mark.anyio

Report = tuple[float, "float | None", "str | None"]


def importer() -> MCPServer:
    mcp = MCPServer("Importer")

    @mcp.tool()
    async def import_feeds(feeds: list[str], ctx: Context) -> str:
        """Import a list of feeds."""
        for done, feed in enumerate(feeds, start=1):
            await ctx.report_progress(done, total=len(feeds), message=f"Imported {feed}")
        return f"Imported {len(feeds)} feeds."

    @mcp.tool()
    async def drain(ctx: Context) -> str:
        """Drain a stream of unknown length."""
        for done in range(1, 4):
            await ctx.report_progress(done * 10)
        return "drained"

    return mcp


def collector(all_in: tuple[int, anyio.Event] | None = None) -> tuple[list[Report], object]:
    """A progress callback and the reports it has seen; `all_in` = (count, event): set once `count` came."""
    seen: list[Report] = []

    async def show(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))
        if all_in is not None and len(seen) == all_in[0]:
            all_in[1].set()

    return seen, show


async def test_each_report_reaches_the_callback_in_order_before_the_in_memory_call_returns() -> None:
    seen, show = collector()
    async with Client(importer()) as client:
        result = await client.call_tool("import_feeds", {"feeds": ["a", "b"]}, progress_callback=show)  # type: ignore[arg-type]
        assert seen == [(1, 2, "Imported a"), (2, 2, "Imported b")]
    assert result.structured_content == {"result": "Imported 2 feeds."}


async def test_the_context_parameter_is_not_in_the_input_schema() -> None:
    async with Client(importer()) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert set(tools["import_feeds"].input_schema["properties"]) == {"feeds"}


async def test_without_a_callback_reporting_is_a_silent_no_op() -> None:
    async with Client(importer()) as client:
        result = await client.call_tool("import_feeds", {"feeds": ["a", "b"]})
    assert result.structured_content == {"result": "Imported 2 feeds."}
    assert not result.is_error


async def test_an_unknown_total_arrives_as_none() -> None:
    seen, show = collector()
    async with Client(importer()) as client:
        await client.call_tool("drain", {}, progress_callback=show)  # type: ignore[arg-type]
    assert seen == [(10, None, None), (20, None, None), (30, None, None)]


def test_the_callback_belongs_to_the_call_not_the_client() -> None:
    assert "progress_callback" in inspect.signature(Client.call_tool).parameters
    assert "progress_callback" not in inspect.signature(Client.__init__).parameters


@pytest.mark.parametrize("anyio_backend", ["asyncio"])
@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_over_streamable_http_every_report_arrives_in_order(mode: str) -> None:
    arrived = anyio.Event()
    seen, show = collector(all_in=(3, arrived))
    async with uvicorn_server(importer().streamable_http_app()) as base, httpx.AsyncClient() as http, \
            Client(streamable_http_client(f"{base}/mcp", http_client=http), mode=mode) as client:
        result = await client.call_tool("import_feeds", {"feeds": ["a", "b", "c"]},
                                        progress_callback=show)  # type: ignore[arg-type]
        with anyio.fail_after(10):  # over a wire the reports may still be landing after the result
            await arrived.wait()
    assert result.structured_content == {"result": "Imported 3 feeds."}
    assert seen == [(1, 3, "Imported a"), (2, 3, "Imported b"), (3, 3, "Imported c")]
