"""The client's response cache: honours the 2026-07-28 `ttlMs` / `cacheScope` hints.

Only the five cacheable verbs of `Client` (cursor-less `list_*`, and `read_resource` without
input rounds) participate. Entries are keyed by server identity (hashed), partition (the
authorization context; `"public"` entries may be shared across partitions only with
`share_public`), negotiated protocol version, method and target. Notifications evict the exact
entries they name; TTLs are clamped to 24 hours.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

CacheMode = Literal["use", "refresh", "bypass"]
MAX_TTL_MS = 24 * 60 * 60 * 1000
CACHEABLE_VERBS = frozenset({"tools/list", "prompts/list", "resources/list", "resources/templates/list",
                             "resources/read"})


@dataclass(frozen=True, slots=True)
class CacheKey:
    target: str
    partition: str
    protocol_version: str
    method: str
    subject: str = ""
    """The resource URI for resources/read; empty for listings."""

    def encode(self) -> str:
        return json.dumps([self.target, self.partition, self.protocol_version, self.method, self.subject])


@dataclass(slots=True)
class CacheEntry:
    result: dict[str, Any]
    """The wire result."""
    expires_at: float
    scope: str


class ResponseCacheStore(Protocol):
    async def get(self, key: CacheKey) -> CacheEntry | None: ...
    async def set(self, key: CacheKey, entry: CacheEntry) -> None: ...
    async def delete(self, key: CacheKey) -> None: ...


class InMemoryResponseCacheStore:
    """A bounded in-process store (least recently stored entries go first)."""

    def __init__(self, max_entries: int = 4096) -> None:
        self._entries: OrderedDict[CacheKey, CacheEntry] = OrderedDict()
        self._max = max_entries

    async def get(self, key: CacheKey) -> CacheEntry | None:
        return self._entries.get(key)

    async def set(self, key: CacheKey, entry: CacheEntry) -> None:
        self._entries[key] = entry
        self._entries.move_to_end(key)
        while len(self._entries) > self._max:
            self._entries.popitem(last=False)

    async def delete(self, key: CacheKey) -> None:
        self._entries.pop(key, None)

    def __len__(self) -> int:
        return len(self._entries)


@dataclass
class CacheConfig:
    store: ResponseCacheStore | None = None
    partition: str = ""
    target_id: str | None = None
    default_ttl_ms: int = 0
    clock: Callable[[], float] = time.time
    share_public: bool = False
    _store: ResponseCacheStore = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if self.store is not None and not self.partition:
            raise ValueError("A custom cache store requires an explicit partition")
        if self.store is not None and self.target_id is None:
            raise ValueError("A custom cache store requires an explicit target_id")
        if self.default_ttl_ms < 0:
            raise ValueError("default_ttl_ms must be >= 0")
        self._store = self.store if self.store is not None else InMemoryResponseCacheStore()


def target_identity(url: str | None, config: CacheConfig) -> str:
    """sha256 of the server identity: the dialed URL minus userinfo, or a per-client random id."""
    if config.target_id is not None:
        raw = config.target_id
    elif url is not None:
        scheme, sep, rest = url.partition("://")
        if sep:
            authority, slash, path = rest.partition("/")
            raw = f"{scheme}://{authority.rpartition('@')[2]}{slash}{path}"
        else:
            raw = url
    else:
        raw = "instance:" + secrets.token_hex(16)
    return hashlib.sha256(raw.encode()).hexdigest()


class ResponseCache:
    """One client's view of the cache."""

    def __init__(self, config: CacheConfig, target: str) -> None:
        self.config = config
        self.target = target

    def _key(self, partition: str, version: str, method: str, subject: str) -> CacheKey:
        return CacheKey(self.target, partition, version, method, subject)

    async def lookup(self, version: str, method: str, subject: str = "") -> dict[str, Any] | None:
        now = self.config.clock() * 1000
        store = self.config._store
        entry = await store.get(self._key(self.config.partition, version, method, subject))
        if entry is None and self.config.share_public:
            entry = await store.get(self._key("public", version, method, subject))
            if entry is not None and entry.scope != "public":
                entry = None
        if entry is None or entry.expires_at <= now:
            return None
        return entry.result

    async def store(self, version: str, modern: bool, method: str, result: dict[str, Any], subject: str = "") -> None:
        ttl = result.get("ttlMs") if modern else None
        if not isinstance(ttl, int) or isinstance(ttl, bool) or ttl < 0:
            ttl = self.config.default_ttl_ms
        ttl = min(ttl, MAX_TTL_MS)
        if ttl <= 0:
            return
        scope = result.get("cacheScope") if modern else "private"
        scope = scope if scope in ("public", "private") else "private"
        entry = CacheEntry(result, self.config.clock() * 1000 + ttl, scope)
        await self.config._store.set(self._key(self.config.partition, version, method, subject), entry)
        if scope == "public" and self.config.share_public:
            await self.config._store.set(self._key("public", version, method, subject), entry)

    async def evict(self, version: str, method: str, subject: str = "") -> None:
        store = self.config._store
        await store.delete(self._key(self.config.partition, version, method, subject))
        await store.delete(self._key("public", version, method, subject))


EVICTS: dict[str, str] = {
    "notifications/tools/list_changed": "tools/list",
    "notifications/prompts/list_changed": "prompts/list",
    "notifications/resources/list_changed": "resources/list",
}
