"""`JSONRPCDispatcher`: the `Dispatcher` protocol over a JSON-RPC stream pair (official path).

The dispatcher is a face on the connection engine, so its home is `mcp._engine.jsonrpc_dispatcher`,
loaded on first use. This module keeps the pure helpers the dispatchers share: the progress token
and cancelled request id read from params, and the official name of the exception-to-wire mapping
(whose home is `mcp.shared.exceptions.error_fields_for`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, cast

from typing_extensions import TypeVar

from mcp.shared.dispatcher import RequestId, as_request_id
from mcp.shared.exceptions import answers_itself, error_data_for
from mcp.shared.transport_context import TransportContext

if TYPE_CHECKING:
    from mcp._engine.jsonrpc_dispatcher import JSONRPCDispatcher as JSONRPCDispatcher
    from mcp.types import ErrorData

__all__ = ["JSONRPCDispatcher", "cancelled_request_id_from_params", "handler_exception_to_error_data",
           "progress_token_from_params"]

TransportT = TypeVar("TransportT", default=TransportContext)
PeerCancelMode = Literal["interrupt", "signal"]
"""What `notifications/cancelled` does to the handler: `"interrupt"` cancels it, `"signal"` only
sets its context's `cancel_requested`. Either way the cancelled request is not answered."""

TRANSPORT_KIND = "jsonrpc"


def handler_exception_to_error_data(exc: BaseException) -> ErrorData | None:
    """The wire error for a handler's exception that carries its own (`answers_itself`: an
    `MCPError`'s, -32602 for a pydantic `ValidationError`), None for anything else (the caller
    decides)."""
    return error_data_for(exc) if answers_itself(exc) else None


def progress_token_from_params(params: Mapping[str, Any] | None) -> str | int | None:
    """`params._meta.progressToken` when it is a string or an integer (never a bool)."""
    meta: Any = (params or {}).get("_meta")
    if not isinstance(meta, Mapping):
        return None
    return as_request_id(cast("Mapping[str, Any]", meta).get("progressToken"))


def cancelled_request_id_from_params(params: Mapping[str, Any] | None) -> RequestId | None:
    """The `requestId` a `notifications/cancelled` names, when it can be a request id."""
    return as_request_id((params or {}).get("requestId"))


def __getattr__(name: str) -> Any:
    # The dispatcher drives the engine's `Peer`: loaded on first use, so that `mcp.shared` imports
    # nothing above it.
    if name == "JSONRPCDispatcher":
        from mcp._engine.jsonrpc_dispatcher import JSONRPCDispatcher

        globals()[name] = JSONRPCDispatcher
        return JSONRPCDispatcher
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
