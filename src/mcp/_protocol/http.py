"""Streamable HTTP rules as pure functions: content negotiation, the 2026-07-28 routing headers,
and which HTTP status carries which JSON-RPC error."""

from __future__ import annotations

import base64
import binascii
import functools
import re
from collections.abc import Iterable, Mapping
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

NAME_PARAM = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri",
               "tasks/get": "taskId", "tasks/update": "taskId", "tasks/cancel": "taskId"}

MODERN_STATUS = {
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
    """HTTP status of a 2026-07-28 error response (see the conformance table); 200 for any other
    code (an internal error included, as officially: the JSON-RPC error says what failed)."""
    return MODERN_STATUS.get(code, 200)


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
    name_param = NAME_PARAM.get(method)
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
    """A header-safe form of `value`: as is when it is plain visible ASCII (spaces inside allowed,
    the empty string included),
    else the `=?base64?...?=` sentinel form (also for values that look like the sentinel), which
    `decode_header_value` undoes."""
    plain = (
        all(" " <= ch <= "~" for ch in value)
        and value == value.strip()
        and not (value.startswith("=?base64?") and value.endswith("?="))
    )
    if plain:
        return value
    return f"=?base64?{base64.b64encode(value.encode()).decode('ascii')}?="


def decode_header_value(value: str) -> str:
    """Header values may be `=?base64?...?=`-wrapped to carry non-ASCII text. A wrapping that is not
    canonical base64 of UTF-8 (what `encode_header_value` writes) raises `InvalidHeaderValue`, so a
    corrupt header never matches a body value by accident."""
    if value.startswith("=?base64?") and value.endswith("?=") and len(value) >= 11:
        payload = value[9:-2]
        try:
            raw = base64.b64decode(payload, validate=True)
            if base64.b64encode(raw).decode("ascii") != payload:
                raise InvalidHeaderValue("non-canonical base64 header value")
            return raw.decode("utf-8")
        except (binascii.Error, UnicodeDecodeError, ValueError):
            raise InvalidHeaderValue("invalid base64 header value") from None
    return value


def invalid_header_declaration(schema: Any) -> str | None:
    """Why a tool input schema's `x-mcp-header` annotations are invalid, or None (SEP-2243, as the
    official SDK checks it when a tool is registered). Each must sit on a property reached from the
    root through `properties` alone, name a non-empty RFC 9110 token, annotate a property whose
    `type` is "string", "integer" or "boolean", and be unique case-insensitively."""
    seen: dict[str, str] = {}
    for path, node in schema_positions(schema):
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


def schema_positions(root: Any) -> list[tuple[tuple[str, ...] | None, dict[str, Any]]]:
    """Every subschema of `root` with its chain of `properties` keys from the root (None once any
    other applicator is crossed), depth first from the last key (the official order, which decides
    which of two clashing declarations an error names). Iterative, so any finite JSON value is
    walked to its end."""
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
    return found


ParamHeader = tuple[tuple[str, ...], str, Any]
"""An `x-mcp-header` declaration: (argument path, header token, the property's declared `type`)."""


def param_header_declarations(schema: Any) -> tuple[ParamHeader, ...]:
    """The `x-mcp-header` declarations of a tool's input schema; none when they are invalid (a
    conforming client drops such a tool and sends no `Mcp-Param-*` header for it)."""
    if invalid_header_declaration(schema) is not None:
        return ()
    return tuple((path, node[X_MCP_HEADER], node.get("type")) for path, node in schema_positions(schema)
                 if path and isinstance(node.get(X_MCP_HEADER), str))


def value_at_path(arguments: Any, path: tuple[str, ...]) -> Any:
    """The argument at a chain of `properties` keys; None when a step is missing or not an object."""
    node: Any = arguments
    for key in path:
        if not isinstance(node, dict | Mapping):
            return None
        node = cast("Mapping[str, Any]", node).get(key)
    return node


def render_header_scalar(value: Any) -> str | None:
    """An argument as the client mirrors it into a header (booleans as `true`/`false`, other
    scalars by `str`); None for values with no header form (objects, arrays, huge integers)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if not isinstance(value, str | int | float):
        return None
    try:
        return str(value)
    except ValueError:  # an int beyond the interpreter's int-to-str digit limit
        return None


_CANONICAL_DECIMAL = re.compile(r"^-?[0-9]+(\.[0-9]+)?$")


def _param_value_matches(declared_type: Any, value: Any, rendered: str, decoded: str) -> bool:
    """Whether a decoded `Mcp-Param-*` value agrees with its argument: integer parameters with an
    integral value compare numerically (`42` matches `42.0`) for plain decimal headers, exactly
    and without floats; everything else compares with the client's rendering."""
    if (declared_type == "integer" and not isinstance(value, bool)
            and (isinstance(value, int) or (isinstance(value, float) and value.is_integer()))
            and _CANONICAL_DECIMAL.fullmatch(decoded) is not None):
        whole, _, fraction = decoded.partition(".")
        if fraction.strip("0"):
            return False
        try:
            return int(whole) == int(value)
        except ValueError:
            return False
    return decoded == rendered


def param_header_mismatch(declarations: tuple[ParamHeader, ...], arguments: Any,
                          headers: Iterable[tuple[str, str]]) -> str | None:
    """Why a `tools/call`'s `Mcp-Param-*` headers disagree with its arguments, or None. Each
    declared argument and its header are present together and equal after decoding, or absent
    together (null counts as absent); a header sent twice is refused (readers of the first and
    the last copy would disagree). `headers` are the raw (name, value) pairs."""
    if not declarations:
        return None
    folded: dict[str, str] = {}
    repeated: set[str] = set()
    for name, value in headers:
        key = name.lower()
        if key in folded:
            repeated.add(key)
        folded[key] = value
    for path, token, declared_type in declarations:
        header = f"Mcp-Param-{token}"
        key = header.lower()
        raw = folded.get(key)
        value = value_at_path(arguments, path)
        argument = ".".join(path)
        if raw is not None and key in repeated:
            return f"{header} header appears more than once"
        if value is None:
            if raw is not None:
                return f"{header} header is present but the request body's {argument!r} argument is absent"
            continue
        rendered = render_header_scalar(value)
        if rendered is None:
            if raw is not None:  # a conforming client sends no header for it: one that does cannot match
                return f"{header} header does not match the request body's {argument!r} argument"
            continue
        if raw is None:
            return f"{header} header is missing but the request body's {argument!r} argument is present"
        try:
            decoded = decode_header_value(raw)
        except InvalidHeaderValue:
            return f"{header} header carries a malformed base64 sentinel value"
        if not _param_value_matches(declared_type, value, rendered, decoded):
            return f"{header} header does not match the request body's {argument!r} argument"
    return None
