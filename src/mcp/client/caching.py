"""The client's response cache: honours the 2026-07-28 `ttlMs` / `cacheScope` hints.

Only the five cacheable verbs of `Client` (cursor-less `list_*`, and `read_resource` without
input rounds) participate. A stored entry is keyed by method, params key (the URI for
`resources/read`) and an opaque partition the coordinator computes from the server identity
(hashed), the negotiated protocol version, the scope, and the authorization partition
(`"public"` entries may be shared across partitions only with `share_public`). Notifications
evict the entries they name; TTLs are clamped to 24 hours. A store that fails degrades to a miss.
"""

from __future__ import annotations

import hashlib
import json
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, Protocol

import anyio
import anyio.lowlevel

from mcp.types.version import MODERN_VERSIONS

__all__ = [
    "MAX_TTL_MS",
    "CacheConfig",
    "CacheEntry",
    "CacheKey",
    "CacheMode",
    "ClientResponseCache",
    "InMemoryResponseCacheStore",
    "ResponseCacheStore",
]

logger = logging.getLogger("mcp.client.caching")

CacheMode = Literal["use", "refresh", "bypass"]
"""Per call: `"use"` serves and stores, `"refresh"` stores without serving, `"bypass"` skips the cache."""

MAX_TTL_MS = 24 * 60 * 60 * 1000
"""No entry lives longer than 24 hours, whatever `ttlMs` says."""

CACHEABLE_VERBS = frozenset({"tools/list", "prompts/list", "resources/list", "resources/templates/list",
                             "resources/read"})

_EVICTS: dict[str, tuple[str, ...]] = {
    "notifications/tools/list_changed": ("tools/list",),
    "notifications/prompts/list_changed": ("prompts/list",),
    # templates enumerate the same resource space
    "notifications/resources/list_changed": ("resources/list", "resources/templates/list"),
}

_GENERATIONS_CAP = 4096
"""How many keys the eviction-race guard remembers (the oldest is forgotten first)."""

_CLEANUP_TIMEOUT = 5
"""Bound on the shielded deletes that must finish even when the caller is cancelled."""


@dataclass(frozen=True, slots=True)
class CacheKey:
    """Which cached response: compared as this field tuple."""

    method: str
    params_key: str = ""
    """The URI for `resources/read`; empty for the listings."""
    partition: str = ""
    """Computed by the coordinator (server, protocol era, scope, authorization partition); opaque to stores."""


@dataclass(frozen=True, slots=True)
class CacheEntry:
    """One cached response and when it goes stale."""

    value: Any
    """The result model (copied on write and on serve, so a store may keep it as is)."""
    scope: Literal["public", "private"]
    """The server's `cacheScope`: only `"public"` entries may be shared across authorization contexts."""
    expires_at: float | None
    """Epoch seconds after which the entry is stale (None: never fresh)."""


class ResponseCacheStore(Protocol):
    """Where entries live. Called from one event loop; any operation may raise (a miss, then)."""

    async def get(self, key: CacheKey) -> CacheEntry | None: ...

    async def set(self, key: CacheKey, entry: CacheEntry) -> None: ...

    async def delete(self, key: CacheKey) -> None: ...

    async def clear(self) -> None: ...


class InMemoryResponseCacheStore:
    """The default store: in process, least recently used entries dropped past `max_entries`
    (0: no cap). Reads and writes both count as use."""

    def __init__(self, *, max_entries: int = 1024) -> None:
        if max_entries < 0:
            raise ValueError(f"max_entries must be >= 0, got {max_entries}")
        self._max = max_entries
        self._entries: dict[CacheKey, CacheEntry] = {}

    async def get(self, key: CacheKey) -> CacheEntry | None:
        entry = self._entries.pop(key, None)
        if entry is not None:
            self._entries[key] = entry  # re-inserted: now the most recently used
        return entry

    async def set(self, key: CacheKey, entry: CacheEntry) -> None:
        self._entries.pop(key, None)
        self._entries[key] = entry
        if self._max and len(self._entries) > self._max:
            del self._entries[next(iter(self._entries))]

    async def delete(self, key: CacheKey) -> None:
        self._entries.pop(key, None)

    async def clear(self) -> None:
        self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)


@dataclass(frozen=True, slots=True)
class CacheConfig:
    """How a `Client` caches. A custom `store` needs an explicit `partition` (derive it from a
    verified credential, never from request data); `target_id` names the server when the client
    cannot derive it from a URL."""

    store: ResponseCacheStore | None = None
    """None: a per-client `InMemoryResponseCacheStore`."""
    partition: str = ""
    target_id: str | None = None
    default_ttl_ms: int = 0
    """The TTL of results with no `ttlMs` hint (0: not cached)."""
    clock: Callable[[], float] = time.time
    """Epoch seconds; injectable for expiry tests."""
    share_public: bool = False
    """Serve `"public"` entries across every partition of the store (trusts the server's label)."""

    def __post_init__(self) -> None:
        if self.store is not None and not self.partition:
            raise ValueError("a custom store requires an explicit partition")
        if self.target_id == "":
            raise ValueError("target_id must be a non-empty string or omitted")
        if self.default_ttl_ms < 0:
            raise ValueError(f"default_ttl_ms must be >= 0, got {self.default_ttl_ms}")


def strip_userinfo(url: str) -> str:
    """`url` without credentials in its authority, otherwise unchanged (cache keys never carry them)."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        return url
    cut = min((i for i in (rest.find(c) for c in "/?#") if i != -1), default=len(rest))
    authority = rest[:cut]
    if "@" not in authority:
        return url
    return f"{scheme}://{authority.rpartition('@')[2]}{rest[cut:]}"


def arm_identity(url: str | None, config: CacheConfig) -> str:
    """sha256 of the server identity: `target_id`, else the dialed URL minus userinfo, else a
    per-client random id (only a per-client store may then be used)."""
    raw = config.target_id
    if raw is None and url is not None:
        raw = strip_userinfo(url)
    if raw is None:
        if config.store is not None:
            raise ValueError(
                "a custom cache store requires CacheConfig.target_id when the server is not a URL: "
                "in-process servers and Transport instances get a random per-client identity, so "
                "their entries in a shared store could never be served to another client"
            )
        raw = secrets.token_hex(16)
    return hashlib.sha256(raw.encode()).hexdigest()


class ClientResponseCache:
    """One client's use of a store: keys, the era gate, TTL and scope, eviction."""

    def __init__(self, *, store: ResponseCacheStore, partition: str, arm_id: str, default_ttl_ms: int,
                 clock: Callable[[], float], share_public: bool, negotiated_version: Callable[[], str | None],
                 generation_map_cap: int = _GENERATIONS_CAP, store_cleanup_timeout: float = _CLEANUP_TIMEOUT) -> None:
        self._store = store
        self._partition = partition
        self._arm_id = arm_id
        self._default_ttl_ms = default_ttl_ms
        self._clock = clock
        self._share_public = share_public
        self._version = negotiated_version
        self._generations: dict[tuple[str, str], int] = {}
        """Bumped by each eviction of a key, so a fetch that raced it does not write it back."""
        self._generations_cap = generation_map_cap
        self._cleanup_timeout = store_cleanup_timeout

    @classmethod
    def for_client(cls, config: CacheConfig, url: str | None,
                   negotiated_version: Callable[[], str | None]) -> ClientResponseCache:
        return cls(store=config.store if config.store is not None else InMemoryResponseCacheStore(),
                   partition=config.partition, arm_id=arm_identity(url, config),
                   default_ttl_ms=config.default_ttl_ms, clock=config.clock, share_public=config.share_public,
                   negotiated_version=negotiated_version)

    def _key(self, method: str, params_key: str, scope: str) -> CacheKey:
        # A JSON array, so no crafted value can collide across field boundaries; the protocol
        # version keeps eras apart.
        fields: list[str | None] = [scope, self._version(), self._arm_id]
        if scope == "private" or not self._share_public:
            fields.append(self._partition)
        return CacheKey(method, params_key, json.dumps(fields))

    async def read(self, method: str, params_key: str) -> Any:
        """A copy of the fresh entry for the key, or None."""
        await anyio.lowlevel.checkpoint()  # a hit must not starve other tasks of a polling loop
        try:
            entry = await self._fresh(self._key(method, params_key, "private"))
            if entry is None:
                entry = await self._fresh(self._key(method, params_key, "public"))
                if entry is not None and entry.scope != "public":
                    entry = None
            return None if entry is None else entry.value.model_copy(deep=True)
        except Exception:
            logger.warning("response cache read failed; continuing without the cache", exc_info=True)
            return None

    async def _fresh(self, key: CacheKey) -> CacheEntry | None:
        entry = await self._store.get(key)
        if entry is None or entry.expires_at is None or entry.expires_at <= self._clock():
            return None
        return entry

    def capture(self, method: str, params_key: str) -> int:
        """Call before fetching: the generation to hand to `write`."""
        gen_key = (method, params_key)
        if gen_key not in self._generations:
            if len(self._generations) >= self._generations_cap:
                del self._generations[next(iter(self._generations))]
            self._generations[gen_key] = 0
        return self._generations[gen_key]

    async def write(self, method: str, params_key: str, result: Any, gen_at_capture: int,
                    mode: Literal["use", "refresh"]) -> None:
        """Store a fetched result under the arm its scope selects (not when evicted meanwhile)."""
        gen_key = (method, params_key)
        if self._moved(gen_key, gen_at_capture):
            return
        ttl_ms, scope = self._resolve(result)
        private, public = self._key(method, params_key, "private"), self._key(method, params_key, "public")
        if ttl_ms <= 0:
            if mode == "refresh":
                await self._cleanup(private, public)  # the refetch superseded the warm entry
            return
        own, other = (public, private) if scope == "public" else (private, public)
        if not await self._delete(other):  # never two arms answering for one key
            await self._cleanup(own)
            return
        entry = CacheEntry(value=result.model_copy(deep=True), scope=scope, expires_at=self._clock() + ttl_ms / 1000)
        try:
            try:
                await self._store.set(own, entry)
            except Exception:
                logger.warning("response cache write failed; continuing without the cache", exc_info=True)
                await self._cleanup(own)
        finally:
            if self._moved(gen_key, gen_at_capture):  # evicted while the write was committing
                await self._cleanup(own)

    async def evict_method(self, method: str) -> None:
        """Evict a method's cursor-less entry."""
        await self.evict_key(method, "")

    async def evict_key(self, method: str, params_key: str) -> None:
        """Evict one key from both arms (of the current protocol era)."""
        gen_key = (method, params_key)
        if gen_key in self._generations:
            self._generations[gen_key] += 1
        await self._cleanup(self._key(method, params_key, "private"), self._key(method, params_key, "public"))

    async def evict_for_notification(self, notification: Any) -> None:
        """Evict what a server notification (a typed model) makes stale."""
        params = notification.params
        await self.evict_for(notification.method, {"uri": str(params.uri)} if hasattr(params, "uri") else {})

    async def evict_for(self, method: str, params: dict[str, Any]) -> None:
        """Evict what a server notification, by wire method and params, makes stale."""
        for stale in _EVICTS.get(method, ()):
            await self.evict_method(stale)
        if method == "notifications/resources/updated" and "uri" in params:
            await self.evict_key("resources/read", str(params["uri"]))

    def _resolve(self, result: Any) -> tuple[int, Literal["public", "private"]]:
        # Hints count only on the stateless wire: a legacy peer may send the keys too.
        modern = self._version() in MODERN_VERSIONS
        ttl: int = result.ttl_ms if modern and "ttl_ms" in result.model_fields_set else self._default_ttl_ms
        scope: Literal["public", "private"] = "public" if modern and result.cache_scope == "public" else "private"
        return min(max(ttl, 0), MAX_TTL_MS), scope

    def _moved(self, gen_key: tuple[str, str], gen_at_capture: int) -> bool:
        return self._generations.get(gen_key, gen_at_capture) != gen_at_capture

    async def _cleanup(self, *keys: CacheKey) -> None:
        """Deletes that must finish: shielded from cancellation, bounded against a wedged store."""
        with anyio.move_on_after(self._cleanup_timeout, shield=True) as scope:
            for key in keys:
                await self._delete(key)
        if scope.cancelled_caught:
            logger.warning("response cache delete timed out; the entry will age out by its TTL")

    async def _delete(self, key: CacheKey) -> bool:
        try:
            await self._store.delete(key)
        except Exception:
            logger.warning("response cache delete failed; continuing without the cache", exc_info=True)
            return False
        return True
