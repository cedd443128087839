"""Server-side caching hints (2026-07-28): `ttlMs` and `cacheScope` per cacheable method."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, TypeVar, cast

CacheableMethod = Literal["tools/list", "prompts/list", "resources/list", "resources/templates/list",
                          "resources/read", "server/discover"]
CACHEABLE_METHODS: frozenset[str] = frozenset(
    {"tools/list", "prompts/list", "resources/list", "resources/templates/list", "resources/read", "server/discover"})


@dataclass(frozen=True)
class CacheHint:
    """How long a result may be treated as fresh (`ttl_ms`), and whether it may be shared across
    users (`"public"`) or belongs to one authorization context (`"private"`)."""

    ttl_ms: int = 0
    scope: Literal["private", "public"] = "private"

    def __post_init__(self) -> None:
        if not isinstance(self.ttl_ms, int) or isinstance(self.ttl_ms, bool) or self.ttl_ms < 0:
            raise ValueError(f"CacheHint.ttl_ms must be an integer >= 0; got {self.ttl_ms!r}")
        if self.scope not in ("private", "public"):
            raise ValueError(f"CacheHint.scope must be 'private' or 'public'; got {self.scope!r}")


def validate_cache_hints(cache_hints: Mapping[Any, Any] | None) -> dict[str, CacheHint]:
    """Check a `cache_hints=` map at construction: only the six cacheable methods, `CacheHint` values."""
    if not cache_hints:
        return {}
    unknown = sorted(repr(method) for method in cache_hints if method not in CACHEABLE_METHODS)
    if unknown:
        raise ValueError(f"cache_hints keys must be cacheable methods (see CacheableMethod); got: {', '.join(unknown)}")
    out: dict[str, CacheHint] = {}
    for method, hint in cache_hints.items():
        if not isinstance(hint, CacheHint):
            raise TypeError(f"cache_hints[{method!r}] must be a CacheHint, got {type(hint).__name__}")
        out[method] = hint
    return out


ResultT = TypeVar("ResultT")


def apply_cache_hint(result: ResultT, hint: CacheHint) -> ResultT:
    """`result` (a cacheable result model) with `ttl_ms`/`cache_scope` taken from `hint` where the
    handler did not set them itself (a field set explicitly, even to its default, is kept)."""
    fields_set: set[str] = getattr(result, "model_fields_set", set())
    update: dict[str, Any] = {}
    if "ttl_ms" not in fields_set:
        update["ttl_ms"] = hint.ttl_ms
    if "cache_scope" not in fields_set:
        update["cache_scope"] = hint.scope
    return cast("Any", result).model_copy(update=update) if update else result
