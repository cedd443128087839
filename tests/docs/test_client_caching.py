"""docs/client/caching.md: servers declare `ttlMs`/`cacheScope` per cacheable method; the client's
response cache honours them on the 2026 wire (and never on a legacy session), with `cache_mode`,
`cache=None`, meta, eviction by notification, and the constructor errors the page shows."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from mcp import Client
from mcp.client import CacheConfig, CacheEntry, CacheKey, InMemoryResponseCacheStore, ResponseCacheStore
from mcp.client.caching import MAX_TTL_MS
from mcp.server import CacheHint, MCPServer, Server, ServerRequestContext
from mcp.server.mcpserver import Context
from mcp.types import ListToolsResult, PaginatedRequestParams, Tool

sys.path.insert(0, str(Path(__file__).parent))
from client_pages_kit import serving

pytestmark = pytest.mark.anyio


class Counter:
    def __init__(self) -> None:
        self.fetches = 0
        self.now = 2_000_000.0


def counted_server(counter: Counter, *, handler_ttl: int | None = None) -> Server[Any]:
    async def list_tools(ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None) -> ListToolsResult:
        counter.fetches += 1
        if handler_ttl is not None:
            return ListToolsResult(tools=[Tool(name="tide", input_schema={"type": "object"})], ttl_ms=handler_ttl)
        return ListToolsResult(tools=[Tool(name="tide", input_schema={"type": "object"})])

    return Server("Harbour", on_list_tools=list_tools,
                  cache_hints={"tools/list": CacheHint(ttl_ms=30_000, scope="public")})


def harbour() -> MCPServer:
    mcp = MCPServer("Harbour", cache_hints={"tools/list": CacheHint(ttl_ms=60_000, scope="public"),
                                            "resources/read": CacheHint(ttl_ms=5_000)})

    @mcp.tool()
    def tide(port: str) -> str:
        return f"High tide at {port} at noon."

    @mcp.resource("harbour://berths")
    def berths() -> str:
        return "12 free"

    @mcp.prompt()
    def greet() -> str:
        return "Welcome aboard."

    return mcp


async def test_results_carry_the_configured_hints_and_unmentioned_methods_keep_the_defaults() -> None:
    async with Client(harbour(), cache=None) as client:
        tools = await client.list_tools()
        assert (tools.ttl_ms, tools.cache_scope) == (60_000, "public")
        read = await client.read_resource("harbour://berths")
        assert (read.ttl_ms, read.cache_scope) == (5_000, "private")  # scope left unset stays private
        prompts = await client.list_prompts()
        assert (prompts.ttl_ms, prompts.cache_scope) == (0, "private")


def test_a_non_cacheable_method_in_cache_hints_is_refused_at_construction() -> None:
    for make in (MCPServer, Server):
        with pytest.raises(ValueError) as refused:
            make("Harbour", cache_hints={"tools/call": CacheHint(ttl_ms=1)})  # type: ignore[dict-item]
        assert str(refused.value) == "cache_hints keys must be cacheable methods (see CacheableMethod); got: 'tools/call'"


def test_server_discover_is_a_legal_key() -> None:
    MCPServer("Harbour", cache_hints={"server/discover": CacheHint(ttl_ms=1_000)})


async def test_a_handler_field_beats_the_map_field_by_field() -> None:
    async with Client(counted_server(Counter(), handler_ttl=1_000), cache=None) as client:
        result = await client.list_tools()
    assert (result.ttl_ms, result.cache_scope) == (1_000, "public")


async def test_the_client_serves_a_fresh_entry_refetches_after_the_ttl_and_on_refresh() -> None:
    counter = Counter()
    async with Client(counted_server(counter), cache=CacheConfig(clock=lambda: counter.now)) as client:
        await client.list_tools()
        await client.list_tools()
        assert counter.fetches == 1
        counter.now += 30.0
        await client.list_tools()
        assert counter.fetches == 2
        await client.list_tools(cache_mode="refresh")
        assert counter.fetches == 3
        await client.list_tools(cache_mode="bypass")
        assert counter.fetches == 4
        await client.list_tools()  # the refresh stored its fetch; bypass touched nothing
        assert counter.fetches == 4
        await client.list_tools(meta={"trace": "1"})  # meta always reaches the server
        assert counter.fetches == 5


async def test_cache_none_makes_every_call_a_round_trip() -> None:
    counter = Counter()
    async with Client(counted_server(counter), cache=None) as client:
        await client.list_tools()
        await client.list_tools(cache_mode="use")
    assert counter.fetches == 2


async def test_a_legacy_session_never_consults_the_hints() -> None:
    counter = Counter()
    async with Client(counted_server(counter), mode="legacy") as client:
        first = await client.list_tools()
        await client.list_tools()
    assert counter.fetches == 2
    assert (first.ttl_ms, first.cache_scope) == (0, "private")
    assert "ttl_ms" not in first.model_fields_set


async def test_session_tier_calls_bypass_the_cache() -> None:
    counter = Counter()
    async with Client(counted_server(counter)) as client:
        await client.list_tools()
        await client.session.list_tools()
    assert counter.fetches == 2


def test_a_custom_store_requires_a_partition_and_an_in_process_target_requires_a_target_id() -> None:
    class MyStore(InMemoryResponseCacheStore):
        """A store of the application's own (Redis-backed, say)."""

    with pytest.raises(ValueError, match=r"^a custom store requires an explicit partition$"):
        CacheConfig(store=MyStore())
    config = CacheConfig(store=MyStore(), partition="tenant-a")
    with pytest.raises(ValueError) as refused:
        Client(harbour(), cache=config)
    assert str(refused.value).startswith("a custom cache store requires CacheConfig.target_id when the server "
                                         "is not a URL")
    Client("http://127.0.0.1:9/mcp", cache=config)  # a URL is an identity
    Client(harbour(), cache=CacheConfig(store=MyStore(), partition="tenant-a", target_id="harbour"))


def test_the_contract_types_are_importable_from_mcp_client_and_the_ttl_cap_is_a_day() -> None:
    store: ResponseCacheStore = InMemoryResponseCacheStore()
    assert all(callable(getattr(store, name, None)) for name in ("get", "set", "delete"))
    assert CacheKey.__name__ == "CacheKey" and CacheEntry.__name__ == "CacheEntry"
    assert MAX_TTL_MS == 24 * 60 * 60 * 1000


async def test_over_http_a_list_changed_notification_evicts_the_cached_listing() -> None:
    mcp = harbour()
    fetched: list[int] = []

    @mcp.tool()
    async def add_port(name: str, ctx: Context) -> str:
        """Adds a tool and publishes tools/list_changed."""

        def new_tool() -> str:
            return name

        mcp.add_tool(new_tool, name=f"port_{name}")
        await ctx.notify_tools_changed()
        return "added"

    with serving(lambda: mcp.streamable_http_app()) as base, anyio.fail_after(30):
        async with Client(f"{base}/mcp") as client:
            first = await client.list_tools()
            fetched.append(len(first.tools))
            async with client.listen(tools_list_changed=True) as sub:
                await client.call_tool("add_port", {"name": "dover"})
                async for event in sub:
                    assert type(event).__name__ == "ToolsListChanged"
                    break
            second = await client.list_tools()  # evicted before the watcher saw the event
            fetched.append(len(second.tools))
    assert fetched[1] == fetched[0] + 1
