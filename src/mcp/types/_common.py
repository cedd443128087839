"""Shapes shared by every feature: request params, results, errors, icons, annotations."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field
from typing_extensions import NotRequired, TypedDict

from mcp.types._base import MCPModel, Meta, OpenMCPModel, meta_field

Role = Literal["user", "assistant"]
Cursor = str
ProgressToken = str | int
RequestId = str | int
IconTheme = Literal["light", "dark"]
ResultType = Literal["complete", "input_required"] | str
"""A result's `resultType` tag (2026-07-28); an absent tag means "complete". The set is open."""

RequestParamsMeta = TypedDict(
    "RequestParamsMeta",
    {
        "progressToken": NotRequired[ProgressToken],
        "io.modelcontextprotocol/protocolVersion": NotRequired[str],
        "io.modelcontextprotocol/clientCapabilities": NotRequired[dict[str, Any]],
        "io.modelcontextprotocol/clientInfo": NotRequired[dict[str, Any]],
        "io.modelcontextprotocol/logLevel": NotRequired[str],
    },
    extra_items=Any,
)
"""The keys a request's `_meta` may carry, spelled as on the wire (the schema's `RequestMetaObject`).

A typing aid only: `RequestParams.meta` stays a plain dict so unknown keys pass through untouched.
"""


class RequestParams(MCPModel):
    """Params common to every request: the `_meta` envelope."""

    meta: Meta | None = meta_field()


class PaginatedRequestParams(RequestParams):
    cursor: Cursor | None = None


class NotificationParams(MCPModel):
    meta: Meta | None = meta_field()


class Result(OpenMCPModel):
    """Base of every result. `result_type` is the 2026-07-28 `resultType` ("complete" when absent)."""

    meta: Meta | None = meta_field()
    result_type: str | None = None


class PaginatedResult(Result):
    next_cursor: Cursor | None = None


class CacheableResult(Result):
    """2026-07-28 list/read/discover results carry caching hints."""

    ttl_ms: int | None = None
    cache_scope: Literal["private", "public"] | None = None


class EmptyResult(Result):
    """A result with no fields (ping, subscribe, setLevel...)."""


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
