"""Lifecycle rules as pure functions: the era of a request, version negotiation and the -32022 error."""

from __future__ import annotations

from typing import Final, Literal

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


Era = Literal["handshake", "modern", "mixed"]
HANDSHAKE_ERA: Final = "handshake"
"""A handshake-era request: served by a session that `initialize` set up (or a stateless one)."""
MODERN_ERA: Final = "modern"
"""A 2026-07-28 request: self-contained, its version and client capabilities in its `_meta`."""
MIXED_ERA: Final = "mixed"
"""A handshake-era `MCP-Protocol-Version` header on a request whose `_meta` names a later revision:
the handshake-era entry takes it, and the request is refused there with the header mismatch."""


def request_era(header: object, meta_version: object) -> Era:
    """The era of one request, decided once for every transport: from its `MCP-Protocol-Version`
    header (HTTP only; None elsewhere or when absent) and the revision its `_meta` names (None
    when it names none). Any value but a handshake-era revision is the 2026-07-28 wire's (unknown
    versions included: its validation rejects them); a header decides alone when it names one."""
    if header is not None and header not in HANDSHAKE_VERSIONS:
        return MODERN_ERA
    if meta_version is None or meta_version in HANDSHAKE_VERSIONS:
        return HANDSHAKE_ERA
    return MODERN_ERA if header is None else MIXED_ERA
