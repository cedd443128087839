"""Streamable HTTP rules as pure functions: content negotiation, the 2026-07-28 routing headers,
and which HTTP status carries which JSON-RPC error."""

from __future__ import annotations

import base64
import binascii
import functools
from typing import Any, Final, cast

from mcp.types.jsonrpc import (
    HEADER_MISMATCH,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    PARSE_ERROR,
    UNSUPPORTED_PROTOCOL_VERSION,
)

DEFAULT_MAX_REQUEST_BODY_SIZE: Final = 4 * 1024 * 1024
"""Largest request body a server reads (bytes); beyond it, 413."""
DEFAULT_SESSION_IDLE_TIMEOUT: Final = 30 * 60
"""Seconds a stateful session may sit idle before it is evicted."""
DEFAULT_MAX_SESSIONS: Final = 10_000
"""Sessions a stateful server holds at once (least recently used idle ones are evicted first)."""

JSON = "application/json"
SSE = "text/event-stream"
SESSION_HEADER = "mcp-session-id"
VERSION_HEADER = "mcp-protocol-version"
METHOD_HEADER = "mcp-method"
NAME_HEADER = "mcp-name"
PARAM_HEADER_PREFIX = "mcp-param-"
LAST_EVENT_ID_HEADER = "last-event-id"

_NAME_PARAM = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri",
               "tasks/get": "taskId", "tasks/update": "taskId", "tasks/cancel": "taskId"}

_MODERN_STATUS = {
    METHOD_NOT_FOUND: 404,
    INVALID_PARAMS: 400,
    INVALID_REQUEST: 400,
    PARSE_ERROR: 400,
    UNSUPPORTED_PROTOCOL_VERSION: 400,
    HEADER_MISMATCH: 400,
    MISSING_REQUIRED_CLIENT_CAPABILITY: 400,
}


def accepts(accept: str | None) -> tuple[bool, bool]:
    """(accepts JSON, accepts SSE) from an Accept header; a missing header or */* accepts both."""
    if not accept:
        return True, True
    return _accepts(accept)


@functools.lru_cache(maxsize=64)
def _accepts(accept: str) -> tuple[bool, bool]:
    """Cached: a client sends the same Accept header with every request."""
    kinds = {part.split(";", 1)[0].strip().lower() for part in accept.split(",")}
    wildcard = "*/*" in kinds or "application/*" in kinds
    return JSON in kinds or wildcard, SSE in kinds or "*/*" in kinds or "text/*" in kinds


def is_json_content_type(content_type: str | None) -> bool:
    return content_type is not None and (content_type == JSON or content_type.split(";", 1)[0].strip().lower() == JSON)


def status_for_modern_error(code: int) -> int:
    """HTTP status of a 2026-07-28 error response (see the conformance table)."""
    return _MODERN_STATUS.get(code, 500)


def header_mismatch(message: dict[str, Any], headers: dict[str, str]) -> str | None:
    """2026-07-28: `Mcp-Method` (and `Mcp-Name` where the method has a name) must repeat the body.
    Returns the reason for a -32020 error, or None."""
    method = message.get("method")
    if method is None:
        return None
    sent = headers.get(METHOD_HEADER)
    if sent is None:
        return "Missing Mcp-Method header"
    if sent.strip() != method:
        return f"Mcp-Method header {sent!r} does not match the request method {method!r}"
    name_param = _NAME_PARAM.get(method)
    if name_param is not None:
        params: Any = message.get("params")
        expected: Any = cast("dict[str, Any]", params).get(name_param) if type(params) is dict else None
        name = headers.get(NAME_HEADER)
        if name is None:
            return "Missing Mcp-Name header"
        if expected is None:
            return None
        try:
            decoded = decode_header_value(name.strip())
        except InvalidHeaderValue:
            return "Mcp-Name header is not valid base64"
        if decoded != str(expected):
            return f"Mcp-Name header does not match params.{name_param}"
    return None


class InvalidHeaderValue(ValueError):
    pass


def decode_header_value(value: str) -> str:
    """Header values may be `=?base64?...?=`-wrapped to carry non-ASCII text."""
    if value.startswith("=?base64?") and value.endswith("?=") and len(value) >= 11:
        payload = value[9:-2]
        try:
            return base64.b64decode(payload, validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError, ValueError):
            raise InvalidHeaderValue("invalid base64 header value") from None
    return value
