"""The official home of the HTTP routing-header vocabulary of the 2026-07-28 wire (the rules live
in `mcp._protocol.http`): header names, the header-value codec, the `x-mcp-header` schema
annotation and the `Mcp-Param-*` headers it asks for, the error-code to HTTP-status table, and the
inbound validation ladder a 2026-07-28 request passes (`classify_inbound_request`), as pure
functions that proxies and gateways call to route or refuse a request the way the server would."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Final, cast

from mcp._protocol import http as _http
from mcp.types.jsonrpc import HEADER_MISMATCH, INVALID_PARAMS, UNSUPPORTED_PROTOCOL_VERSION
from mcp.types.version import (
    CLIENT_CAPABILITIES_META_KEY,
    CLIENT_INFO_META_KEY,
    MODERN_PROTOCOL_VERSIONS,
    PROTOCOL_VERSION_META_KEY,
)

__all__ = [
    "ERROR_CODE_HTTP_STATUS",
    "MCP_METHOD_HEADER",
    "MCP_NAME_HEADER",
    "MCP_PARAM_HEADER_PREFIX",
    "MCP_PROTOCOL_VERSION_HEADER",
    "NAME_BEARING_METHODS",
    "X_MCP_HEADER_KEY",
    "InboundLadderRejection",
    "InboundModernRoute",
    "classify_inbound_request",
    "decode_header_value",
    "encode_header_value",
    "find_duplicated_routing_header",
    "find_invalid_x_mcp_header",
    "mcp_param_headers",
    "unsupported_protocol_version_rejection",
    "validate_mcp_param_headers",
    "x_mcp_header_map",
]

MCP_METHOD_HEADER: Final = _http.METHOD_HEADER
MCP_NAME_HEADER: Final = _http.NAME_HEADER
MCP_PARAM_HEADER_PREFIX: Final = "Mcp-Param-"
"""Prefix of the headers mirroring `x-mcp-header` arguments (header names are case-insensitive)."""
MCP_PROTOCOL_VERSION_HEADER: Final = _http.VERSION_HEADER
X_MCP_HEADER_KEY: Final = _http.X_MCP_HEADER
NAME_BEARING_METHODS: Final[Mapping[str, str]] = MappingProxyType(
    {method: param for method, param in _http.NAME_PARAM.items() if not method.startswith("tasks/")})
"""Methods whose `Mcp-Name` header mirrors a params field, and that field."""
ERROR_CODE_HTTP_STATUS: Final[Mapping[int, int]] = MappingProxyType(dict(_http.MODERN_STATUS))
"""HTTP status of a 2026-07-28 error response, by JSON-RPC error code."""


encode_header_value = _http.encode_header_value


def decode_header_value(value: str | None) -> str | None:
    """A header value with its `=?base64?...?=` wrapping undone; None for no value or a wrapping
    that does not decode."""
    if value is None:
        return None
    try:
        return _http.decode_header_value(value)
    except _http.InvalidHeaderValue:
        return None


def find_invalid_x_mcp_header(input_schema: Any) -> str | None:
    """Why the `x-mcp-header` annotations of a tool's input schema are invalid, or None."""
    return _http.invalid_header_declaration(input_schema)


def x_mcp_header_map(input_schema: Any) -> dict[tuple[str, ...], str]:
    """Each property annotated with `x-mcp-header` (by its chain of `properties` keys from the
    root) mapped to its header token. Meant for a schema `find_invalid_x_mcp_header` accepts."""
    return {
        path: schema[_http.X_MCP_HEADER]
        for path, schema in _http.schema_positions(input_schema)
        if path and isinstance(schema.get(_http.X_MCP_HEADER), str)
    }


def mcp_param_headers(header_map: Mapping[tuple[str, ...], str], arguments: Mapping[str, Any]) -> dict[str, str]:
    """The `Mcp-Param-*` headers a `tools/call` mirrors from its arguments, for a map from
    `x_mcp_header_map`: each present, non-null scalar argument as `Mcp-Param-<token>` (booleans as
    `true`/`false`, others by `str`, wrapped by `encode_header_value` when not header-safe). A
    missing argument, or one with no header form (object, array), sends no header."""
    headers: dict[str, str] = {}
    for path, token in header_map.items():
        value = _http.value_at_path(arguments, path)
        rendered = _http.render_header_scalar(value) if value is not None else None
        if rendered is not None:
            headers[f"{MCP_PARAM_HEADER_PREFIX}{token}"] = _http.encode_header_value(rendered)
    return headers


def validate_mcp_param_headers(
    input_schema: Any,
    arguments: Mapping[str, Any],
    headers: Mapping[str, str],
) -> InboundLadderRejection | None:
    """Check a `tools/call`'s `Mcp-Param-*` headers against its arguments: every argument the
    schema annotates with `x-mcp-header` and its header are present together and equal after
    decoding, or absent together (null counts as absent). The first disagreement is a
    `HEADER_MISMATCH` rejection; None when they agree. A header repeated in `headers` (a multi-dict
    such as Starlette's) is refused; a schema `find_invalid_x_mcp_header` rejects checks nothing."""
    reason = _http.param_header_mismatch(_http.param_header_declarations(input_schema), arguments, headers.items())
    return None if reason is None else InboundLadderRejection(code=HEADER_MISMATCH, message=reason)


@dataclass(frozen=True)
class InboundModernRoute:
    """A 2026-07-28 request whose `_meta` envelope passed every rung of the ladder: its protocol
    version and the raw client info (None when absent: it is optional) and capabilities."""

    protocol_version: str
    client_info: Any
    client_capabilities: Any


@dataclass(frozen=True)
class InboundLadderRejection:
    """The first rung of the ladder a request failed, as JSON-RPC error fields (map `code` through
    `ERROR_CODE_HTTP_STATUS` for the HTTP status)."""

    code: int
    message: str
    data: Any = None


_ROUTING_HEADERS: Final = frozenset({MCP_PROTOCOL_VERSION_HEADER, MCP_METHOD_HEADER, MCP_NAME_HEADER})


def find_duplicated_routing_header(headers: Iterable[tuple[str, str]]) -> str | None:
    """The (lowercase) name of a routing header (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`)
    that the raw (name, value) header lines carry more than once, or None: readers of the first
    and of the last copy would disagree. (`Mcp-Param-*` repeats are `validate_mcp_param_headers`'s.)"""
    seen: set[str] = set()
    for name, _ in headers:
        key = name.lower()
        if key in _ROUTING_HEADERS:
            if key in seen:
                return key
            seen.add(key)
    return None


def unsupported_protocol_version_rejection(
    requested: str, supported_modern_versions: Sequence[str] = MODERN_PROTOCOL_VERSIONS
) -> InboundLadderRejection | None:
    """The `UNSUPPORTED_PROTOCOL_VERSION` rejection of `requested`, naming the supported versions,
    or None when it is one of them."""
    if requested in supported_modern_versions:
        return None
    from mcp.types import UnsupportedProtocolVersionErrorData

    data = UnsupportedProtocolVersionErrorData(supported=list(supported_modern_versions), requested=requested)
    return InboundLadderRejection(code=UNSUPPORTED_PROTOCOL_VERSION, message="Unsupported protocol version",
                                  data=data.model_dump(mode="json"))


def classify_inbound_request(
    body: Mapping[str, Any],
    *,
    headers: Mapping[str, str] | None = None,
    supported_modern_versions: Sequence[str] = MODERN_PROTOCOL_VERSIONS,
) -> InboundModernRoute | InboundLadderRejection:
    """Run the 2026-07-28 validation ladder over a decoded JSON-RPC request; the first failed rung
    wins. (1) `params._meta` is an object carrying the protocol version and client capabilities
    (else `INVALID_PARAMS`). (2) With `headers` (lowercase names; None skips the rung for non-HTTP
    callers): `MCP-Protocol-Version` equals the envelope's version, `Mcp-Method` the method, and
    `Mcp-Name` (decoded) the tool or prompt name or resource URI (else `HEADER_MISMATCH`). (3) The
    version is a string (else `INVALID_PARAMS`) in `supported_modern_versions` (else
    `UNSUPPORTED_PROTOCOL_VERSION`). Whether the method exists is dispatch's question, not a rung."""
    params: Any = body.get("params") if isinstance(body, Mapping) else None  # pyright: ignore[reportUnnecessaryIsInstance]
    meta: Any = cast("Mapping[str, Any]", params).get("_meta") if isinstance(params, Mapping) else None
    if not isinstance(meta, Mapping):
        return InboundLadderRejection(
            code=INVALID_PARAMS,
            message="params._meta must be an object carrying the required "
            f"{PROTOCOL_VERSION_META_KEY!r} and {CLIENT_CAPABILITIES_META_KEY!r} envelope keys",
        )
    envelope = cast("Mapping[str, Any]", meta)
    missing = [key for key in (PROTOCOL_VERSION_META_KEY, CLIENT_CAPABILITIES_META_KEY) if key not in envelope]
    if missing:
        return InboundLadderRejection(
            code=INVALID_PARAMS, message=f"params._meta is missing the required envelope key(s): {', '.join(missing)}")
    protocol_version: Any = envelope[PROTOCOL_VERSION_META_KEY]
    if headers is not None:
        sent_version = headers.get(MCP_PROTOCOL_VERSION_HEADER)
        if sent_version is None or sent_version != protocol_version:
            return InboundLadderRejection(
                code=HEADER_MISMATCH,
                message=f"{MCP_PROTOCOL_VERSION_HEADER} header does not match the request envelope's protocol version")
        method: Any = body.get("method")
        if headers.get(MCP_METHOD_HEADER) != method:
            return InboundLadderRejection(
                code=HEADER_MISMATCH, message=f"{MCP_METHOD_HEADER} header does not match the request body's method")
        name_key = NAME_BEARING_METHODS.get(method) if isinstance(method, str) else None
        if name_key is not None:
            named: Any = cast("Mapping[str, Any]", params).get(name_key)
            if named is not None and decode_header_value(headers.get(MCP_NAME_HEADER)) != named:
                return InboundLadderRejection(
                    code=HEADER_MISMATCH,
                    message=f"{MCP_NAME_HEADER} header does not match the request body's {name_key!r} parameter")
    if not isinstance(protocol_version, str):
        return InboundLadderRejection(code=INVALID_PARAMS, message="the protocol-version envelope value must be a string")
    unsupported = unsupported_protocol_version_rejection(protocol_version, supported_modern_versions)
    if unsupported is not None:
        return unsupported
    return InboundModernRoute(protocol_version=protocol_version, client_info=envelope.get(CLIENT_INFO_META_KEY),
                              client_capabilities=envelope[CLIENT_CAPABILITIES_META_KEY])
