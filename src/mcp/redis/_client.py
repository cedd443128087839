"""One Redis address for every store: the client (one per event loop, made on first use), key
names under a prefix, the pub/sub hub, and Redis failures turned into `StoreUnavailable`."""

from __future__ import annotations

import asyncio
import json
import logging
import weakref
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from mcp.client.caching import strip_userinfo
from mcp.server.session_store import StoreUnavailable

logger = logging.getLogger("mcp.redis")

T = TypeVar("T")

MAX_VALUE_BYTES = 1 << 20
"""A stored value larger than this is refused as foreign (ours are far smaller; SSE events have
their own bound, `RedisEventStore.max_event_bytes`)."""


class RedisUnavailable(RuntimeError):
    """Redis cannot be reached when the server starts; the message names the URL (without its
    password)."""


def redis_asyncio() -> Any:
    """`redis.asyncio`, or an ImportError that says which extra brings it."""
    try:
        import redis.asyncio as aioredis
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError('The Redis stores need the redis client: pip install "mcpkit[redis]"') from exc
    return aioredis


def _failures() -> tuple[type[BaseException], ...]:
    import redis.exceptions as errors

    return (errors.ConnectionError, errors.TimeoutError, OSError, asyncio.TimeoutError)


class RedisConnection:
    """A Redis URL and the key prefix of one service. `connect_timeout` and `timeout` (seconds)
    bound every call, so an unreachable Redis fails a request quickly instead of hanging it."""

    def __init__(self, url: str, *, prefix: str = "mcp", connect_timeout: float = 2.0, timeout: float = 5.0,
                 max_connections: int = 64, client: Any = None) -> None:
        if not prefix or any(c in prefix for c in " \r\n"):
            raise ValueError(f"invalid Redis key prefix {prefix!r}")
        self.url = url
        self.safe_url = strip_userinfo(url)
        """The URL without credentials: what logs and errors name."""
        self.prefix = prefix
        self._options: dict[str, Any] = {"socket_connect_timeout": connect_timeout, "socket_timeout": timeout,
                                         "max_connections": max_connections}
        self._given = client
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Any] = weakref.WeakKeyDictionary()
        self._hubs: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Any] = weakref.WeakKeyDictionary()

    def __repr__(self) -> str:
        return f"RedisConnection({self.safe_url!r}, prefix={self.prefix!r})"

    def key(self, *parts: str) -> str:
        return ":".join((self.prefix, *parts))

    def client(self) -> Any:
        """The client of the running event loop (redis-py's asyncio clients are bound to one)."""
        if self._given is not None:
            return self._given
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            raise RuntimeError("the Redis stores run on asyncio (the redis client's asyncio API), "
                               "not on this event loop") from None
        client = self._clients.get(loop)
        if client is None:
            aioredis = redis_asyncio()
            from redis.asyncio.retry import Retry
            from redis.backoff import ExponentialBackoff

            client = aioredis.Redis.from_url(self.url, retry=Retry(ExponentialBackoff(cap=0.2, base=0.02), 2),
                                             **self._options)
            self._clients[loop] = client
        return client

    async def run(self, what: str, op: Callable[[Any], Awaitable[T]]) -> T:
        """`op(client)`; a connection failure is logged (naming the URL) and raised as
        `StoreUnavailable`, the JSON-RPC error the request that needed Redis then fails with."""
        try:
            return await op(self.client())
        except _failures() as exc:
            logger.warning("Redis at %s is unreachable (%s): %s", self.safe_url, what, exc or type(exc).__name__)
            raise StoreUnavailable() from None

    def hub(self) -> Any:
        """The pub/sub hub of the running event loop."""
        from mcp.redis._hub import Hub

        loop = asyncio.get_running_loop()
        hub = self._hubs.get(loop)
        if hub is None:
            hub = self._hubs[loop] = Hub(self)
        return hub

    async def aclose(self) -> None:
        """Stop this loop's hub and close its client (shielded: a shutdown being cancelled still
        closes the connections; bounded: a wedged Redis does not hold it)."""
        import anyio

        loop = asyncio.get_running_loop()
        hub = self._hubs.pop(loop, None)
        client = self._clients.pop(loop, None)
        with anyio.move_on_after(5, shield=True):
            if hub is not None:
                await hub.stop()
            if client is not None:
                try:
                    await client.aclose()
                except Exception:  # closing a client of a dead server
                    logger.debug("closing the Redis client failed", exc_info=True)


def loads_object(raw: Any, what: str, where: str, *, limit: int = MAX_VALUE_BYTES) -> dict[str, Any] | None:
    """A stored JSON object, or None (logged) when the value is not one of ours: wrong type, over
    `limit` bytes, not JSON, not an object. Nothing stored is ever executed (JSON only, no pickle)."""
    if raw is None:
        return None
    if not isinstance(raw, bytes | str):
        logger.warning("refusing %s at %s: not a string value", what, where)
        return None
    if len(raw) > limit:
        logger.warning("refusing %s at %s: %d bytes is more than any value we store", what, where, len(raw))
        return None
    try:
        value = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        logger.warning("refusing %s at %s: not JSON", what, where)
        return None
    if not isinstance(value, dict):
        logger.warning("refusing %s at %s: not a JSON object", what, where)
        return None
    return value  # pyright: ignore[reportUnknownVariableType]


def refuse(what: str, where: str, reason: str) -> None:
    logger.warning("refusing %s at %s: %s", what, where, reason)


def dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))
