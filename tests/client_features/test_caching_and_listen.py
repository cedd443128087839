"""Caching hints end to end, the client's response cache, and subscriptions/listen streams."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from mcp import Client
from mcp.client import CacheConfig
from mcp.client.subscriptions import ResourceUpdated, ToolsListChanged
from mcp.server import CacheHint, MCPServer, Server
from mcp.server.mcpserver import Context
from mcp.shared.exceptions import ListenNotSupportedError

pytestmark = pytest.mark.anyio


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def counting_server(hints: dict[str, CacheHint] | None = None) -> tuple[MCPServer, list[str]]:
    seen: list[str] = []
    mcp = MCPServer("cache", cache_hints=hints)

    @mcp.tool()
    def ping() -> str:
        return "pong"

    async def count(ctx: Any, call_next: Any) -> Any:
        seen.append(ctx.method)
        return await call_next(ctx)

    mcp.middleware.append(count)
    return mcp, seen


async def test_results_carry_default_hints_on_the_2026_wire_and_none_on_older_ones() -> None:
    mcp, _ = counting_server()
    async with Client(mcp) as client:
        raw = await client.session.send_request_raw("tools/list", None)
        assert (raw["ttlMs"], raw["cacheScope"]) == (0, "private")
    async with Client(mcp, mode="legacy") as client:
        raw = await client.session.send_request_raw("tools/list", None)
        assert "ttlMs" not in raw and "cacheScope" not in raw


async def test_configured_hints_appear_and_handler_fields_win_per_field() -> None:
    mcp, _ = counting_server({"tools/list": CacheHint(ttl_ms=60_000, scope="public")})
    async with Client(mcp) as client:
        raw = await client.session.send_request_raw("tools/list", None)
        assert (raw["ttlMs"], raw["cacheScope"]) == (60_000, "public")

    from mcp.types import ListToolsResult

    async def list_tools(ctx: Any, params: Any) -> ListToolsResult:
        return ListToolsResult(tools=[], ttl_ms=1_000)

    low = Server("low", cache_hints={"tools/list": CacheHint(ttl_ms=60_000, scope="public")}, on_list_tools=list_tools)
    async with Client(low) as client:
        raw = await client.session.send_request_raw("tools/list", None)
        assert (raw["ttlMs"], raw["cacheScope"]) == (1_000, "public")


def test_cache_hints_accept_only_cacheable_methods() -> None:
    with pytest.raises(ValueError, match=r"cache_hints keys must be cacheable methods \(see CacheableMethod\); got: .tools/call."):
        MCPServer("x", cache_hints={"tools/call": CacheHint(ttl_ms=5)})
    with pytest.raises(ValueError):
        CacheHint(ttl_ms=-1)


async def test_the_client_serves_fresh_entries_and_honours_cache_modes() -> None:
    mcp, seen = counting_server({"tools/list": CacheHint(ttl_ms=5_000)})
    clock = Clock()
    async with Client(mcp, cache=CacheConfig(clock=clock)) as client:
        seen.clear()
        await client.list_tools()
        await client.list_tools()
        assert seen.count("tools/list") == 1
        clock.now += 6
        await client.list_tools()
        assert seen.count("tools/list") == 2
        await client.list_tools(cache_mode="refresh")
        await client.list_tools(cache_mode="bypass")
        assert seen.count("tools/list") == 4
        await client.list_tools(meta={"trace": "x"})
        assert seen.count("tools/list") == 5


async def test_no_hint_means_no_caching_and_cache_none_turns_it_off() -> None:
    mcp, seen = counting_server()
    async with Client(mcp) as client:
        seen.clear()
        await client.list_tools()
        await client.list_tools()
        assert seen.count("tools/list") == 2
    mcp2, seen2 = counting_server({"tools/list": CacheHint(ttl_ms=5_000)})
    async with Client(mcp2, cache=None) as client:
        seen2.clear()
        await client.list_tools()
        await client.list_tools()
        assert seen2.count("tools/list") == 2


async def test_a_listen_stream_acknowledges_then_delivers_only_the_filtered_events() -> None:
    mcp = MCPServer("board")

    @mcp.tool()
    async def change(ctx: Context) -> str:
        await ctx.notify_prompts_changed()
        await ctx.notify_resource_updated("board://other")
        await ctx.notify_resource_updated("board://sprint")
        await ctx.notify_tools_changed()
        return "done"

    async with Client(mcp) as client:
        async with client.listen(tools_list_changed=True, resource_subscriptions=["board://sprint"]) as sub:
            assert sub.honored.tools_list_changed is True
            assert sub.subscription_id.startswith("listen-")
            await client.call_tool("change", {})
            events: list[Any] = []
            with anyio.fail_after(5):
                async for event in sub:
                    events.append(event)
                    if len(events) == 2:
                        break
        assert events == [ResourceUpdated(uri="board://sprint"), ToolsListChanged()]


async def test_listen_on_a_session_awaits_on_event_before_each_event_reaches_the_consumer() -> None:
    from mcp.client.subscriptions import ServerEvent, listen

    mcp = MCPServer("board")

    @mcp.tool()
    async def change(ctx: Context) -> str:
        await ctx.notify_tools_changed()
        return "done"

    trail: list[str] = []

    async def on_event(event: ServerEvent) -> None:
        trail.append(f"on_event {type(event).__name__}")

    async with Client(mcp) as client, listen(client.session, tools_list_changed=True, on_event=on_event) as sub:
        await client.call_tool("change", {})
        with anyio.fail_after(5):
            async for event in sub:
                trail.append(f"consumer {type(event).__name__}")
                break
    assert trail == ["on_event ToolsListChanged", "consumer ToolsListChanged"]


async def test_a_listen_notification_evicts_the_cached_listing() -> None:
    mcp = MCPServer("board", cache_hints={"tools/list": CacheHint(ttl_ms=60_000)})

    @mcp.tool()
    async def grow(ctx: Context) -> str:
        def extra() -> str:
            return "new"

        mcp.add_tool(extra)
        await ctx.notify_tools_changed()
        return "grown"

    async with Client(mcp) as client:
        assert [t.name for t in (await client.list_tools()).tools] == ["grow"]
        async with client.listen(tools_list_changed=True) as sub:
            await client.call_tool("grow", {})
            with anyio.fail_after(5):
                assert await sub.__anext__() == ToolsListChanged()
            assert [t.name for t in (await client.list_tools()).tools] == ["grow", "extra"]


async def test_listen_on_a_legacy_connection_is_not_supported() -> None:
    async with Client(MCPServer("x"), mode="legacy") as client:
        with pytest.raises(ListenNotSupportedError):
            async with client.listen(tools_list_changed=True):
                pass


async def test_leaving_the_listen_block_closes_the_server_stream() -> None:
    mcp = MCPServer("x")
    async with Client(mcp) as client:
        async with client.listen(tools_list_changed=True):
            assert mcp._listen.open_streams == 1
        with anyio.fail_after(5):
            while mcp._listen.open_streams:
                await anyio.sleep(0.01)
        assert (await client.list_tools()).tools == []
