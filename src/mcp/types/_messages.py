"""Message shapes: the generic `Request`/`Notification` bases and the JSON-RPC 2.0 envelopes.

A typed request (`CallToolRequest`) is `method` + `params` only; the envelope (`jsonrpc`, `id`) is
added by the session layer, or modelled here by `JSONRPCRequest` & co. when a whole message is
needed. This module depends on nothing but the base shapes, so every feature module can build on it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Generic, Literal, TypeVar

from pydantic import Discriminator, Tag, TypeAdapter

from mcp.types._base import DEFERRED, MCPModel
from mcp.types._common import ErrorData, NotificationParams, PaginatedRequestParams, RequestId, RequestParams

__all__ = [
    "JSONRPCError",
    "JSONRPCErrorResponse",
    "JSONRPCMessage",
    "JSONRPCNotification",
    "JSONRPCRequest",
    "JSONRPCResponse",
    "JSONRPCResultResponse",
    "Notification",
    "PaginatedRequest",
    "Request",
    "jsonrpc_message_adapter",
]

if TYPE_CHECKING:
    RequestParamsT = TypeVar("RequestParamsT", bound=RequestParams | dict[str, Any] | None)
    NotificationParamsT = TypeVar("NotificationParamsT", bound=NotificationParams | dict[str, Any] | None)
else:
    # Unbounded at run time: an unparametrized `Request(method=..., params={...})` keeps its params
    # as given instead of coercing a dict into `RequestParams` (which would drop its keys).
    RequestParamsT = TypeVar("RequestParamsT")
    NotificationParamsT = TypeVar("NotificationParamsT")
MethodT = TypeVar("MethodT", bound=str)


class Request(MCPModel, Generic[RequestParamsT, MethodT]):
    """A request's payload: `method` and `params`.

    Subclass it for a vendor method: `class JobStatus(Request[JobParams, Literal["x/y"]])`, with
    `method` defaulting to the literal. `name_param` names the params key (wire spelling) whose
    value a 2026-07-28 HTTP client mirrors into the `Mcp-Name` header.
    """

    name_param: ClassVar[str | None] = None

    method: MethodT
    params: RequestParamsT


class PaginatedRequest(Request[PaginatedRequestParams | None, MethodT], Generic[MethodT]):
    """A list request: params carry the optional `cursor`."""

    params: PaginatedRequestParams | None = None


class Notification(MCPModel, Generic[NotificationParamsT, MethodT]):
    """A notification's payload: `method` and `params`."""

    method: MethodT
    params: NotificationParamsT


class JSONRPCRequest(MCPModel):
    """A whole JSON-RPC request message; `params` stays the raw JSON object."""

    jsonrpc: Literal["2.0"] = "2.0"
    id: RequestId
    method: str
    params: dict[str, Any] | None = None


class JSONRPCNotification(MCPModel):
    """A whole JSON-RPC notification message (no `id`)."""

    jsonrpc: Literal["2.0"] = "2.0"
    method: str
    params: dict[str, Any] | None = None


class JSONRPCResponse(MCPModel):
    """A successful JSON-RPC response (the schema's `JSONRPCResultResponse`)."""

    jsonrpc: Literal["2.0"] = "2.0"
    id: RequestId
    result: dict[str, Any]


class JSONRPCError(MCPModel):
    """A JSON-RPC error response (the schema's `JSONRPCErrorResponse`).

    `id` is absent when the request's id could not be read (2025-11-25 and later allow that).
    """

    jsonrpc: Literal["2.0"] = "2.0"
    id: RequestId | None = None
    error: ErrorData


JSONRPCResultResponse = JSONRPCResponse
"""The 2025-11-25+ schema's name for a successful response."""

JSONRPCErrorResponse = JSONRPCError
"""The 2025-11-25+ schema's name for an error response."""


def _message_kind(value: Any) -> str | None:
    if isinstance(value, dict):
        if "method" in value:
            return "request" if "id" in value else "notification"
        if "error" in value:
            return "error"
        return "response" if "result" in value else None
    if isinstance(value, MCPModel):
        return _KIND_OF_CLASS.get(type(value))
    return None


JSONRPCMessage = JSONRPCRequest | JSONRPCNotification | JSONRPCResponse | JSONRPCError
"""Any JSON-RPC message: a plain union, so `isinstance(message, JSONRPCMessage)` works."""

_TaggedJSONRPCMessage = Annotated[
    Annotated[JSONRPCRequest, Tag("request")]
    | Annotated[JSONRPCNotification, Tag("notification")]
    | Annotated[JSONRPCResponse, Tag("response")]
    | Annotated[JSONRPCError, Tag("error")],
    Discriminator(_message_kind),
]
"""What `jsonrpc_message_adapter` validates: the members told apart by their keys (`method`+`id`,
`method`, `result`, `error`) rather than tried in turn."""

_KIND_OF_CLASS: dict[type[Any], str] = {
    JSONRPCRequest: "request",
    JSONRPCNotification: "notification",
    JSONRPCResponse: "response",
    JSONRPCError: "error",
}

jsonrpc_message_adapter: TypeAdapter[JSONRPCMessage] = TypeAdapter(_TaggedJSONRPCMessage, config=DEFERRED)
"""Validates any JSON-RPC message; built on first use."""
