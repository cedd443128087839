"""Where an `OAuthProxy` keeps its state: one small key/value protocol, two homes.

Everything the proxy remembers (registered clients, pending transactions, authorization codes,
refresh tokens, issued access tokens and the upstream tokens behind them) is a JSON object under a
string key with a time to live. `InMemoryProxyStore` serves one process; `RedisProxyStore`
(`mcp.redis`) lets every replica of a service see the same state, so a flow may start on one
replica and finish on another. `take` is the single-use primitive: codes and transactions are
taken, never read-then-deleted, so a replayed code loses the race even across replicas.
"""

from __future__ import annotations

import json
import time
from typing import Any, Protocol, runtime_checkable


@runtime_checkable
class ProxyStore(Protocol):
    """The proxy's state: JSON objects under keys, each with an optional time to live (seconds)."""

    async def put(self, key: str, value: dict[str, Any], ttl: float | None = None) -> None:
        """Store `value` under `key` (replacing any), forgotten after `ttl` seconds."""
        ...

    async def get(self, key: str) -> dict[str, Any] | None:
        """The value under `key`, or `None` (absent or expired)."""
        ...

    async def take(self, key: str) -> dict[str, Any] | None:
        """The value under `key`, removed atomically: of two concurrent takes, one gets `None`."""
        ...

    async def delete(self, key: str) -> None:
        """Forget `key` (no error when absent)."""
        ...


class InMemoryProxyStore:
    """A `ProxyStore` in this process's memory: for a single-process server (or tests). Values
    are kept as JSON text so a caller cannot mutate what is stored through a returned object."""

    def __init__(self, *, max_entries: int = 100_000) -> None:
        self._data: dict[str, tuple[float | None, str]] = {}
        self.max_entries = max_entries

    def _expire(self) -> None:
        now = time.monotonic()
        for key in [k for k, (until, _) in self._data.items() if until is not None and until <= now]:
            del self._data[key]

    async def put(self, key: str, value: dict[str, Any], ttl: float | None = None) -> None:
        if len(self._data) >= self.max_entries:
            self._expire()
            if len(self._data) >= self.max_entries and key not in self._data:
                raise RuntimeError("the proxy's in-memory store is full")
        until = time.monotonic() + ttl if ttl is not None else None
        self._data[key] = (until, json.dumps(value, separators=(",", ":")))

    async def get(self, key: str) -> dict[str, Any] | None:
        entry = self._data.get(key)
        if entry is None:
            return None
        until, text = entry
        if until is not None and until <= time.monotonic():
            del self._data[key]
            return None
        return json.loads(text)

    async def take(self, key: str) -> dict[str, Any] | None:
        value = await self.get(key)
        self._data.pop(key, None)
        return value

    async def delete(self, key: str) -> None:
        self._data.pop(key, None)


class RedisProxyStore:
    """A `ProxyStore` in Redis, shared by every replica (`take` is `GETDEL`, Redis 6.2+). Give it
    the URL (and key prefix) of the service's Redis, or an existing `mcp.redis.RedisConnection`.
    Values that are not JSON objects of ours are refused (logged), never executed."""

    def __init__(self, url: str | None = None, *, prefix: str = "mcp", connection: Any = None) -> None:
        from mcp.redis._client import RedisConnection

        if (url is None) == (connection is None):
            raise ValueError("RedisProxyStore needs exactly one of url= or connection=")
        self.connection: Any = (
            connection if connection is not None else RedisConnection(url or "", prefix=prefix)
        )

    def _key(self, key: str) -> str:
        return str(self.connection.key("oauth-proxy", key))

    async def put(self, key: str, value: dict[str, Any], ttl: float | None = None) -> None:
        from mcp.redis._client import dumps

        text = dumps(value)
        millis = max(1, int(ttl * 1000)) if ttl is not None else None

        async def op(r: Any) -> Any:
            return await r.set(self._key(key), text, px=millis)

        await self.connection.run("oauth proxy put", op)

    async def get(self, key: str) -> dict[str, Any] | None:
        from mcp.redis._client import loads_object

        async def op(r: Any) -> Any:
            return await r.get(self._key(key))

        return loads_object(
            await self.connection.run("oauth proxy get", op), "oauth proxy state", self._key(key)
        )

    async def take(self, key: str) -> dict[str, Any] | None:
        from mcp.redis._client import loads_object

        async def op(r: Any) -> Any:
            return await r.getdel(self._key(key))

        return loads_object(
            await self.connection.run("oauth proxy take", op), "oauth proxy state", self._key(key)
        )

    async def delete(self, key: str) -> None:
        async def op(r: Any) -> Any:
            return await r.delete(self._key(key))

        await self.connection.run("oauth proxy delete", op)


__all__ = ["InMemoryProxyStore", "ProxyStore", "RedisProxyStore"]
