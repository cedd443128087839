"""docs/client/subscriptions.md: `client.listen(...)` is one `subscriptions/listen` stream that is
live when the block starts, yields typed cue events, runs beside other requests, ends cleanly or
with `SubscriptionLost`, and is refused on a pre-2026 connection. In memory and over uvicorn."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import pytest

from mcp import Client
from mcp.client.subscriptions import (
    ListenNotSupportedError,
    PromptsListChanged,
    ResourceUpdated,
    SubscriptionLost,
    ToolsListChanged,
)
from mcp.server import MCPServer
from mcp.server.mcpserver import Context

sys.path.insert(0, str(Path(__file__).parent))
from client_pages_kit import serving

pytestmark = pytest.mark.anyio


def shelves() -> MCPServer:
    mcp = MCPServer("Shelves")
    stock = {"fiction": 3, "verse": 1}

    @mcp.resource("shelf://{name}")
    def shelf(name: str) -> str:
        return f"{stock[name]} on {name}"

    @mcp.tool()
    async def restock(name: str, ctx: Context) -> str:
        stock[name] += 1
        await ctx.notify_resource_updated(f"shelf://{name}")
        return "restocked"

    @mcp.tool()
    async def open_counter(ctx: Context) -> str:
        def counter() -> str:
            return "open"

        mcp.add_tool(counter)
        await ctx.notify_tools_changed()
        return "counter open"

    return mcp


async def _read(client: Client, uri: str) -> str:
    (contents,) = (await client.read_resource(uri)).contents
    return contents.text  # type: ignore[union-attr]


async def test_entering_waits_for_the_acknowledgement_and_events_are_cues_to_refetch() -> None:
    async with Client(shelves()) as client, \
            client.listen(tools_list_changed=True, resource_subscriptions=["shelf://verse"]) as sub:
            assert sub.honored.tools_list_changed is True
            assert sub.subscription_id is not None
            await client.call_tool("restock", {"name": "verse"})  # requests run beside the stream
            await client.call_tool("open_counter", {})
            events = []
            with anyio.fail_after(10):
                async for event in sub:
                    events.append(event)
                    if len(events) == 2:
                        break
            assert events == [ResourceUpdated(uri="shelf://verse"), ToolsListChanged()]
            assert await _read(client, "shelf://verse") == "2 on verse"
            assert "counter" in [tool.name for tool in (await client.list_tools()).tools]


async def test_a_filter_decides_which_kinds_arrive() -> None:
    async with Client(shelves()) as client, client.listen(resource_subscriptions=["shelf://fiction"]) as sub:
            await client.call_tool("open_counter", {})  # tools changed: not asked for
            await client.call_tool("restock", {"name": "verse"})  # another URI: not asked for
            await client.call_tool("restock", {"name": "fiction"})
            with anyio.fail_after(10):
                async for event in sub:
                    assert event == ResourceUpdated(uri="shelf://fiction")
                    break


async def test_duplicate_unconsumed_events_collapse_into_one() -> None:
    async with Client(shelves()) as client, \
            client.listen(resource_subscriptions=["shelf://verse", "shelf://fiction"]) as sub:
            for _ in range(3):
                await client.call_tool("restock", {"name": "verse"})
            await client.call_tool("restock", {"name": "fiction"})
            await client.call_tool("open_counter", {})  # a marker: everything before it has been sent
            seen = []
            with anyio.fail_after(10):
                async for event in sub:
                    seen.append(event)
                    if event == ResourceUpdated(uri="shelf://fiction"):
                        break
            assert seen.count(ResourceUpdated(uri="shelf://verse")) == 1


async def test_the_watcher_runs_beside_the_main_flow_over_http() -> None:
    mcp = shelves()
    with serving(lambda: mcp.streamable_http_app()) as base, anyio.fail_after(30):
        async with Client(f"{base}/mcp") as client:
            seen: list[object] = []
            got = anyio.Event()
            async with client.listen(resource_subscriptions=["shelf://verse"]) as sub:

                async def watch() -> None:
                    async for event in sub:
                        seen.append(event)
                        got.set()

                async with anyio.create_task_group() as tg:
                    tg.start_soon(watch)
                    assert (await client.call_tool("restock", {"name": "verse"})).is_error is False
                    await got.wait()
                    tg.cancel_scope.cancel()  # leaving the block is the unsubscribe
            assert seen == [ResourceUpdated(uri="shelf://verse")]
            assert await _read(client, "shelf://verse") == "2 on verse"  # the client carries on


async def test_listen_is_refused_on_a_pre_2026_connection() -> None:
    async with Client(shelves(), mode="legacy") as client:
        with pytest.raises(ListenNotSupportedError):
            async with client.listen(tools_list_changed=True):
                pass


def test_the_event_kinds_and_the_errors_are_public() -> None:
    assert PromptsListChanged() == PromptsListChanged()
    assert ResourceUpdated(uri="a://b") != ResourceUpdated(uri="a://c")
    assert issubclass(SubscriptionLost, Exception)
