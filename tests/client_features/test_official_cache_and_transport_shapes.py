"""Cache stores, session-group parameters, subscriptions and transports built the official way."""

from __future__ import annotations

import sys
from typing import Any

import anyio
import pytest
from pydantic import ValidationError

from mcp import Client
from mcp.client import CacheConfig, CacheEntry, CacheKey, InMemoryResponseCacheStore
from mcp.client.session_group import (
    ClientSessionParameters,
    ServerParameters,
    SseServerParameters,
    StreamableHttpParameters,
)
from mcp.client.subscriptions import ListenRoute, Subscription, SubscriptionLost, ToolsListChanged
from mcp.server import CacheHint, MCPServer

pytestmark = pytest.mark.anyio


def entry(value: Any) -> CacheEntry:
    return CacheEntry(value=value, scope="private", expires_at=None)


async def test_the_in_memory_store_drops_the_least_recently_used_entry_and_clears() -> None:
    store = InMemoryResponseCacheStore(max_entries=2)
    a, b, c = CacheKey("tools/list"), CacheKey("prompts/list"), CacheKey("resources/read", "file:///x")
    assert (a.params_key, a.partition) == ("", "")
    await store.set(a, entry(1))
    await store.set(b, entry(2))
    assert await store.get(a) == entry(1)  # a is now the most recently used
    await store.set(c, entry(3))
    assert await store.get(b) is None and await store.get(a) == entry(1) and len(store) == 2
    await store.clear()
    assert await store.get(a) is None and len(store) == 0
    with pytest.raises(ValueError):
        InMemoryResponseCacheStore(max_entries=-1)


async def test_a_shared_store_serves_another_client_of_the_same_target_and_partition() -> None:
    seen: list[str] = []
    mcp = MCPServer("cache", cache_hints={"tools/list": CacheHint(ttl_ms=60_000, scope="private")})

    @mcp.tool()
    def ping() -> str:
        return "pong"

    async def count(ctx: Any, call_next: Any) -> Any:
        seen.append(ctx.method)
        return await call_next(ctx)

    mcp.middleware.append(count)
    store = InMemoryResponseCacheStore()
    config = CacheConfig(store=store, partition="alice", target_id="cache-server")
    async with Client(mcp, cache=config) as client:
        await client.list_tools()
    async with Client(mcp, cache=config) as client:
        listed = await client.list_tools()
    assert [tool.name for tool in listed.tools] == ["ping"]
    assert seen.count("tools/list") == 1
    assert len(store) == 1


def test_session_group_parameters_are_validated_models() -> None:
    http = StreamableHttpParameters(url="http://127.0.0.1:1/mcp")
    assert (http.timeout, http.sse_read_timeout, http.terminate_on_close, http.max_sse_event_size) == (
        30.0, 300.0, True, 1024 * 1024)
    assert SseServerParameters(url="http://127.0.0.1:1/sse").timeout == 5.0
    with pytest.raises(ValidationError):
        StreamableHttpParameters(url="http://127.0.0.1:1/mcp", max_sse_event_size=0)
    assert StreamableHttpParameters in ServerParameters.__args__  # type: ignore[attr-defined]
    assert ClientSessionParameters().read_timeout_seconds is None


async def test_a_subscription_ends_on_a_graceful_close_and_raises_when_lost() -> None:
    from mcp.types import SubscriptionFilter

    route = ListenRoute()
    route.set_acked(SubscriptionFilter(tools_list_changed=True))
    subscription = Subscription(route, "listen-1", route.honored)
    route.deliver(ToolsListChanged())
    route.deliver(ToolsListChanged())  # collapses into the waiting one
    route.settle("closed")
    assert [event async for event in subscription] == [ToolsListChanged()]

    lost = ListenRoute()
    lost.settle("lost")
    with pytest.raises(SubscriptionLost):
        await Subscription(lost, "listen-2", None).__anext__()


def test_the_transports_expose_the_official_knobs() -> None:
    from mcp.client import stdio, streamable_http
    from mcp.client.sse import remove_request_params

    assert (stdio.PROCESS_TERMINATION_TIMEOUT, stdio.FORCE_KILL_TIMEOUT) == (2.0, 2.0)
    assert (streamable_http.MAX_RECONNECTION_ATTEMPTS, streamable_http.DEFAULT_MAX_SSE_EVENT_SIZE) == (2, 1 << 20)
    assert streamable_http.MCP_SESSION_ID == "mcp-session-id"
    assert issubclass(streamable_http.ResumptionError, streamable_http.StreamableHTTPError)
    with pytest.raises(ValueError):
        streamable_http.StreamableHTTPTransport("http://127.0.0.1:1/mcp", max_sse_event_size=0)
    assert remove_request_params("http://127.0.0.1/messages/?session_id=1#x") == "http://127.0.0.1/messages/"
    import inspect

    assert inspect.signature(stdio.stdio_client).parameters["errlog"].default is sys.stderr


async def test_an_sse_event_over_the_size_limit_fails_its_request() -> None:
    import httpx

    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    big = "x" * 4096

    def answer(request: httpx.Request) -> httpx.Response:
        body = f'event: message\ndata: {{"jsonrpc":"2.0","id":1,"result":{{"pad":"{big}"}}}}\n\n'
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body.encode())

    from mcp.shared.exceptions import MCPError

    http = httpx.AsyncClient(transport=httpx.MockTransport(answer))
    async with (
        http,
        streamable_http_client("http://127.0.0.1:1/mcp", http_client=http, max_sse_event_size=1024) as (read, write),
        ClientSession(read, write) as session,
    ):
        # the official text (httpx2's SSEError), which FastMCP's tests match
        with anyio.fail_after(5), pytest.raises(MCPError, match=r"^SSE stream failed: Server-sent event exceeded "
                                                                r"the 1024 byte limit\.$"):
            await session.send_request_raw("ping", None)
