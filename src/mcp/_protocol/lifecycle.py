"""Lifecycle rules as pure functions: version negotiation and the -32022 error."""

from __future__ import annotations

from mcp.shared.exceptions import MCPError
from mcp.types.jsonrpc import UNSUPPORTED_PROTOCOL_VERSION
from mcp.types.version import HANDSHAKE_VERSIONS, LATEST_HANDSHAKE_VERSION, MODERN_VERSIONS


def negotiate_version(requested: str) -> str:
    """`initialize`: answer the client's revision when we speak it, else our latest handshake one."""
    return requested if requested in HANDSHAKE_VERSIONS else LATEST_HANDSHAKE_VERSION


def unsupported_version_error(requested: str) -> MCPError:
    """2026-07-28: a request for a revision we do not serve on the stateless wire."""
    return MCPError(
        UNSUPPORTED_PROTOCOL_VERSION,
        f"Unsupported protocol version: {requested}",
        {"requested": requested, "supported": list(MODERN_VERSIONS)},
    )
