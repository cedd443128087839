"""Scale-out on Redis: several server processes serving one MCP service, no sticky sessions.

`MCPServer(..., state=RedisState.from_url("redis://host:6379/0"))` shares, through one Redis:
handshake-era Streamable HTTP sessions (`RedisSessionStore`), change notifications for
`subscriptions/listen` and GET streams (`RedisSubscriptionBus`, pub/sub), resumable SSE events
(`RedisEventStore`, Redis Streams; `resumable=True`) and the tasks extension's state
(`RedisTaskStore`). `RedisResponseCacheStore` is the client's response cache shared by many
client processes. Needs `pip install "mcpkit[redis]"` (the `redis` client's asyncio API, which
runs on asyncio only); nothing of it is imported until a store is used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcp.redis._bus import RedisSubscriptionBus as RedisSubscriptionBus
    from mcp.redis._cache import RedisResponseCacheStore as RedisResponseCacheStore
    from mcp.redis._client import RedisConnection as RedisConnection
    from mcp.redis._client import RedisUnavailable as RedisUnavailable
    from mcp.redis._events import RedisEventStore as RedisEventStore
    from mcp.redis._sessions import RedisSessionStore as RedisSessionStore
    from mcp.redis._state import RedisState as RedisState
    from mcp.redis._tasks import RedisTaskStore as RedisTaskStore

__all__ = ["RedisConnection", "RedisEventStore", "RedisResponseCacheStore", "RedisSessionStore", "RedisState",
           "RedisSubscriptionBus", "RedisTaskStore", "RedisUnavailable"]

_HOMES = {
    "RedisConnection": "_client", "RedisUnavailable": "_client", "RedisSubscriptionBus": "_bus",
    "RedisResponseCacheStore": "_cache", "RedisEventStore": "_events", "RedisSessionStore": "_sessions",
    "RedisState": "_state", "RedisTaskStore": "_tasks",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f"{__name__}.{home}"), name)


def __dir__() -> list[str]:
    return sorted(__all__)
