"""The official home of the HTTP routing-header vocabulary of the 2026-07-28 wire (the rules live
in `mcp._protocol.http`): header names, the `x-mcp-header` schema annotation, and the error-code
to HTTP-status table."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Final

from mcp._protocol import http as _http

__all__ = ["ERROR_CODE_HTTP_STATUS", "MCP_METHOD_HEADER", "MCP_NAME_HEADER", "MCP_PARAM_HEADER_PREFIX",
           "MCP_PROTOCOL_VERSION_HEADER", "NAME_BEARING_METHODS", "X_MCP_HEADER_KEY", "decode_header_value", "encode_header_value", "find_invalid_x_mcp_header",
           "x_mcp_header_map"]

MCP_METHOD_HEADER: Final = _http.METHOD_HEADER
MCP_NAME_HEADER: Final = _http.NAME_HEADER
MCP_PARAM_HEADER_PREFIX: Final = "Mcp-Param-"
"""Prefix of the headers mirroring `x-mcp-header` arguments (header names are case-insensitive)."""
MCP_PROTOCOL_VERSION_HEADER: Final = _http.VERSION_HEADER
X_MCP_HEADER_KEY: Final = _http.X_MCP_HEADER
NAME_BEARING_METHODS: Final[Mapping[str, str]] = MappingProxyType(
    {method: param for method, param in _http._NAME_PARAM.items() if not method.startswith("tasks/")})  # pyright: ignore[reportPrivateUsage]
"""Methods whose `Mcp-Name` header mirrors a params field, and that field."""
ERROR_CODE_HTTP_STATUS: Final[Mapping[int, int]] = MappingProxyType(dict(_http._MODERN_STATUS))  # pyright: ignore[reportPrivateUsage]
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
        for path, schema in _http._schema_positions(input_schema)  # pyright: ignore[reportPrivateUsage]
        if path and isinstance(schema.get(_http.X_MCP_HEADER), str)
    }
