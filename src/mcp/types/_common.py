"""Shapes shared by every feature: request params, results, errors, icons, annotations."""

from __future__ import annotations

from typing import Any, Final, Literal, get_args

from pydantic import Field
from typing_extensions import NotRequired, TypedDict

from mcp.types._base import MCPModel, Meta, meta_field

Role = Literal["user", "assistant"]
Cursor = str
ProgressToken = str | int
RequestId = str | int
IconTheme = Literal["light", "dark"]
ResultType = Literal["complete", "input_required"] | str
"""A result's `resultType` tag (2026-07-28); an absent tag means "complete". The set is open."""

_CoreResultType = Literal["complete", "input_required"]
CORE_RESULT_TYPES: Final[frozenset[str]] = frozenset(get_args(_CoreResultType))
"""The `resultType` tags the core protocol owns; an extension may not claim them."""


class RequestParamsMeta(TypedDict, extra_items=Any):
    """The keys a request's `_meta` may carry (the schema's `RequestMetaObject`).

    `progress_token` is spelled `progressToken` on the wire (the model's alias rule applies); any
    other key, such as the reserved `io.modelcontextprotocol/*` ones (`*_META_KEY` constants),
    passes through as given.
    """

    progress_token: NotRequired[ProgressToken]


class RequestParams(MCPModel):
    """Params common to every request: the `_meta` envelope."""

    meta: RequestParamsMeta | None = meta_field()


class PaginatedRequestParams(RequestParams):
    cursor: Cursor | None = None


class NotificationParams(MCPModel):
    meta: Meta | None = meta_field()


class Result(MCPModel):
    """Base of every result.

    The 2026-07-28 `resultType` tag is declared by each result that has one ("complete" by
    default); the session layer drops it, with every other field a revision lacks, on older wires.
    """

    meta: Meta | None = meta_field()


class PaginatedResult(Result):
    next_cursor: Cursor | None = None


class CacheableResult(Result):
    """2026-07-28 list/read/discover results carry caching hints (both required there).

    The defaults (immediately stale, private) keep a handler that sets neither valid without
    enabling shared caching; a server-wide hint fills whichever one the handler left unset.
    """

    ttl_ms: int = Field(default=0, ge=0)
    cache_scope: Literal["public", "private"] = "private"


class EmptyResult(Result):
    """A result with no fields (ping, subscribe, setLevel...).

    `result_type` stays None so it dumps as `{}`; a 2026-07-28 session adds `resultType` itself.
    """

    result_type: ResultType | None = None


class ErrorData(MCPModel):
    """The `error` member of a JSON-RPC error response."""

    code: int
    message: str
    data: Any = None


class Icon(MCPModel):
    src: str
    mime_type: str | None = None
    sizes: list[str] | None = None
    theme: IconTheme | None = None


class Annotations(MCPModel):
    audience: list[Role] | None = None
    priority: float | None = Field(default=None, ge=0.0, le=1.0)
    last_modified: str | None = None


class BaseMetadata(MCPModel):
    name: str
    title: str | None = None
