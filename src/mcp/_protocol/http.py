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
DEFAULT_MAX_SESSIONS_PER_CLIENT: Final = 100
"""Sessions one client (a token's subject, else a trusted address) may hold open at once: a
hundredth of the default table, so one client cannot fill it, while a NAT or a host full of tools
behind one address fits."""

X_MCP_HEADER: Final = "x-mcp-header"
"""The input-schema annotation asking clients to mirror an argument into `Mcp-Param-<Name>`."""
_TOKEN_CHARS = frozenset("!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
_HEADER_TYPES = frozenset({"string", "integer", "boolean"})
_ONE_SUBSCHEMA = frozenset({"additionalProperties", "items", "contains", "propertyNames", "not", "if", "then",
                            "else", "unevaluatedItems", "unevaluatedProperties", "additionalItems"})
_SUBSCHEMA_LISTS = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})
_SUBSCHEMA_MAPS = frozenset({"$defs", "definitions", "patternProperties", "dependentSchemas"})

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


def encode_header_value(value: str) -> str:
    """A header-safe form of `value`: as is when it is plain visible ASCII (spaces inside allowed),
    else the `=?base64?...?=` sentinel form (also for values that look like the sentinel), which
    `decode_header_value` undoes."""
    plain = (
        value != ""
        and all(" " <= ch <= "~" for ch in value)
        and value == value.strip()
        and not (value.startswith("=?base64?") and value.endswith("?="))
    )
    if plain:
        return value
    return f"=?base64?{base64.b64encode(value.encode()).decode('ascii')}?="


def decode_header_value(value: str) -> str:
    """Header values may be `=?base64?...?=`-wrapped to carry non-ASCII text."""
    if value.startswith("=?base64?") and value.endswith("?=") and len(value) >= 11:
        payload = value[9:-2]
        try:
            return base64.b64decode(payload, validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError, ValueError):
            raise InvalidHeaderValue("invalid base64 header value") from None
    return value


def invalid_header_declaration(schema: Any) -> str | None:
    """Why a tool input schema's `x-mcp-header` annotations are invalid, or None (SEP-2243, as the
    official SDK checks it when a tool is registered). Each must sit on a property reached from the
    root through `properties` alone, name a non-empty RFC 9110 token, annotate a property whose
    `type` is "string", "integer" or "boolean", and be unique case-insensitively."""
    seen: dict[str, str] = {}
    for path, node in _schema_positions(schema):
        if X_MCP_HEADER not in node:
            continue
        if not path:
            return f"{X_MCP_HEADER} found at a schema position not reachable via a pure `properties` chain"
        where = ".".join(path)
        header = node[X_MCP_HEADER]
        if not isinstance(header, str):
            return f"property {where!r}: {X_MCP_HEADER} must be a string, not {type(header).__name__}"
        if not header or not _TOKEN_CHARS.issuperset(header):
            return f"property {where!r}: {X_MCP_HEADER} {header!r} is not an RFC 9110 token"
        kind = node.get("type")
        if not isinstance(kind, str):
            return (f"property {where!r}: {X_MCP_HEADER} is only permitted on integer/string/boolean properties "
                    f"(the type keyword is {type(kind).__name__}, not a string)")
        if kind not in _HEADER_TYPES:
            return f"property {where!r}: {X_MCP_HEADER} is only permitted on integer/string/boolean properties (got {kind!r})"
        first = seen.setdefault(header.lower(), where)
        if first != where:
            return f"{X_MCP_HEADER} {header!r} on property {where!r} duplicates property {first!r}"
    return None


def _schema_positions(root: Any) -> list[tuple[tuple[str, ...] | None, dict[str, Any]]]:
    """Every subschema of `root` with its chain of `properties` keys from the root (None once any
    other applicator is crossed). Iterative, so any finite JSON value is walked to its end."""
    found: list[tuple[tuple[str, ...] | None, dict[str, Any]]] = []
    stack: list[tuple[tuple[str, ...] | None, Any]] = [((), root)]
    while stack:
        path, node = stack.pop()
        if not isinstance(node, dict):
            continue
        schema = cast("dict[str, Any]", node)
        found.append((path, schema))
        for keyword, value in schema.items():
            if keyword == "properties" and isinstance(value, dict):
                for name, sub in cast("dict[str, Any]", value).items():
                    stack.append(((*path, name) if path is not None else None, sub))
            elif keyword in _ONE_SUBSCHEMA:
                stack.append((None, value))
            elif keyword in _SUBSCHEMA_LISTS and isinstance(value, list):
                stack.extend((None, sub) for sub in cast("list[Any]", value))
            elif keyword in _SUBSCHEMA_MAPS and isinstance(value, dict):
                stack.extend((None, sub) for sub in cast("dict[str, Any]", value).values())
    found.reverse()
    return found
