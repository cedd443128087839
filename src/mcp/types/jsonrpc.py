"""JSON-RPC 2.0: the error codes of the base protocol and of MCP, and the envelope models.

The codes are plain constants (stdlib only, so every layer may import them). The envelope models
(`JSONRPCRequest` & co., `ErrorData`, `RequestId`, `jsonrpc_message_adapter`) live with the other
wire models in `mcp.types`; this namespace re-exports them on first access (PEP 562), so importing
it loads no pydantic.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any, Final

__all__ = [
    "CONNECTION_CLOSED",
    "HEADER_MISMATCH",
    "INTERNAL_ERROR",
    "INVALID_PARAMS",
    "INVALID_REQUEST",
    "JSONRPC_VERSION",
    "METHOD_NOT_FOUND",
    "MISSING_REQUIRED_CLIENT_CAPABILITY",
    "PARSE_ERROR",
    "REQUEST_TIMEOUT",
    "RESOURCE_NOT_FOUND",
    "UNSUPPORTED_PROTOCOL_VERSION",
    "URL_ELICITATION_REQUIRED",
    "ErrorData",
    "JSONRPCError",
    "JSONRPCMessage",
    "JSONRPCNotification",
    "JSONRPCRequest",
    "JSONRPCResponse",
    "RequestId",
    "jsonrpc_message_adapter",
]

JSONRPC_VERSION: Final = "2.0"

# Standard JSON-RPC codes.
PARSE_ERROR: Final = -32700
INVALID_REQUEST: Final = -32600
METHOD_NOT_FOUND: Final = -32601
INVALID_PARAMS: Final = -32602
INTERNAL_ERROR: Final = -32603

# MCP's codes, in the server-error band -32000..-32099.
RESOURCE_NOT_FOUND: Final = -32002
"""Handshake-era revisions answer an unknown resource with this code."""
HEADER_MISMATCH: Final = -32020
"""2026-07-28: HTTP headers disagree with the body, or a required header is missing."""
MISSING_REQUIRED_CLIENT_CAPABILITY: Final = -32021
"""2026-07-28: the request needs a client capability it did not declare."""
UNSUPPORTED_PROTOCOL_VERSION: Final = -32022
"""2026-07-28: the request's protocol version is not served."""
URL_ELICITATION_REQUIRED: Final = -32042
"""2025-11-25: a URL-mode elicitation must complete before the request can proceed."""

# The SDK's own codes (never defined by the schema).
CONNECTION_CLOSED: Final = -32000
"""The connection closed before an answer arrived."""
REQUEST_TIMEOUT: Final = -32001
"""No answer arrived in time."""

_MODELS: Final = {
    "ErrorData": "_common",
    "RequestId": "_common",
    "JSONRPCError": "_messages",
    "JSONRPCMessage": "_messages",
    "JSONRPCNotification": "_messages",
    "JSONRPCRequest": "_messages",
    "JSONRPCResponse": "_messages",
    "jsonrpc_message_adapter": "_messages",
}


def __getattr__(name: str) -> Any:
    module = _MODELS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"mcp.types.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


if TYPE_CHECKING:
    from mcp.types._common import ErrorData as ErrorData
    from mcp.types._common import RequestId as RequestId
    from mcp.types._messages import JSONRPCError as JSONRPCError
    from mcp.types._messages import JSONRPCMessage as JSONRPCMessage
    from mcp.types._messages import JSONRPCNotification as JSONRPCNotification
    from mcp.types._messages import JSONRPCRequest as JSONRPCRequest
    from mcp.types._messages import JSONRPCResponse as JSONRPCResponse
    from mcp.types._messages import jsonrpc_message_adapter as jsonrpc_message_adapter
