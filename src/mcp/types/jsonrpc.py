"""JSON-RPC 2.0 constants: the error codes of the base protocol and of MCP."""

from __future__ import annotations

from typing import Final

JSONRPC_VERSION: Final = "2.0"

PARSE_ERROR: Final = -32700
INVALID_REQUEST: Final = -32600
METHOD_NOT_FOUND: Final = -32601
INVALID_PARAMS: Final = -32602
INTERNAL_ERROR: Final = -32603

RESOURCE_NOT_FOUND: Final = -32002
"""Handshake-era revisions answer an unknown resource with this code."""
HEADER_MISMATCH: Final = -32020
MISSING_REQUIRED_CLIENT_CAPABILITY: Final = -32021
UNSUPPORTED_PROTOCOL_VERSION: Final = -32022
URL_ELICITATION_REQUIRED: Final = -32042
CONNECTION_CLOSED: Final = -32000
REQUEST_TIMEOUT: Final = -32001
