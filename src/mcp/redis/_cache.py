"""`RedisResponseCacheStore`: the client's response cache (`mcp.client.caching`) shared by many
client processes. Entries are JSON (the result's wire form and the name of its result type, one
of the cacheable verbs' results), expiring with their TTL; anything else under the prefix is
refused (logged) and counts as a miss."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from mcp.client.caching import CacheEntry, CacheKey
from mcp.redis._client import RedisConnection, dumps, loads_object, refuse

_FORMAT = "mcpkit.cache/1"
_RESULT_TYPES = frozenset({"ListToolsResult", "ListPromptsResult", "ListResourcesResult",
                           "ListResourceTemplatesResult", "ReadResourceResult"})


class RedisResponseCacheStore:
    """A `mcp.client.caching.ResponseCacheStore` on Redis: pass it as
    `CacheConfig(store=RedisResponseCacheStore.from_url(url), partition=...)`."""

    def __init__(self, connection: RedisConnection) -> None:
        self.connection = connection

    @classmethod
    def from_url(cls, url: str, *, prefix: str = "mcp") -> RedisResponseCacheStore:
        return cls(RedisConnection(url, prefix=prefix))

    def _key(self, key: CacheKey) -> str:
        digest = hashlib.sha256(json.dumps([key.method, key.params_key, key.partition]).encode()).hexdigest()
        return self.connection.key("cache", digest)

    async def get(self, key: CacheKey) -> CacheEntry | None:
        name = self._key(key)
        raw = await self.connection.run("read a cached response", lambda r: r.get(name))
        value = loads_object(raw, "cached response", name)
        if value is None:
            return None
        if value.get("format") != _FORMAT or value.get("key") != [key.method, key.params_key, key.partition]:
            refuse("cached response", name, "not an entry of this SDK for this key")
            return None
        result_type, wire, scope, expires_at = value.get("type"), value.get("value"), value.get("scope"), value.get("expiresAt")
        if result_type not in _RESULT_TYPES or not isinstance(wire, dict) or scope not in ("public", "private") or not (
                expires_at is None or isinstance(expires_at, int | float)):
            refuse("cached response", name, "malformed entry")
            return None
        import mcp.types

        try:
            model = getattr(mcp.types, result_type).model_validate(wire)
        except ValueError as exc:  # pydantic's ValidationError
            refuse("cached response", name, f"not a valid {result_type}: {exc}")
            return None
        return CacheEntry(value=model, scope=scope, expires_at=expires_at)

    async def set(self, key: CacheKey, entry: CacheEntry) -> None:
        result_type = type(entry.value).__name__
        if result_type not in _RESULT_TYPES or entry.expires_at is None:
            return
        import time

        ttl_ms = int((entry.expires_at - time.time()) * 1000)
        if ttl_ms <= 0:
            return
        value = dumps({"format": _FORMAT, "key": [key.method, key.params_key, key.partition], "type": result_type,
                       "value": entry.value.model_dump(mode="json", by_alias=True, exclude_none=True),
                       "scope": entry.scope, "expiresAt": entry.expires_at})
        name = self._key(key)
        await self.connection.run("cache a response", lambda r: r.set(name, value, px=ttl_ms))

    async def delete(self, key: CacheKey) -> None:
        name = self._key(key)
        await self.connection.run("evict a cached response", lambda r: r.delete(name))

    async def clear(self) -> None:
        pattern = self.connection.key("cache", "*")

        async def op(r: Any) -> None:
            batch: list[Any] = []
            async for name in r.scan_iter(match=pattern, count=500):
                batch.append(name)
                if len(batch) >= 500:
                    await r.unlink(*batch)
                    batch.clear()
            if batch:
                await r.unlink(*batch)

        await self.connection.run("clear cached responses", op)
