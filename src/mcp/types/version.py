"""The protocol-revision registry: which revisions exist, which era each belongs to.

Stdlib only, so every layer may import it. Two eras share one endpoint: the handshake era
(`initialize`, a stateful connection) and the stateless era that starts at 2026-07-28, where every
request carries its own protocol version and client capabilities in `_meta`.
"""

from __future__ import annotations

from typing import Final

HANDSHAKE_VERSIONS: Final = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
"""Revisions negotiated with `initialize`, oldest first."""

MODERN_VERSIONS: Final = ("2026-07-28",)
"""Revisions of the stateless era (no handshake; version carried per request), oldest first."""

SUPPORTED_PROTOCOL_VERSIONS: Final = HANDSHAKE_VERSIONS + MODERN_VERSIONS
LATEST_HANDSHAKE_VERSION: Final = HANDSHAKE_VERSIONS[-1]
LATEST_PROTOCOL_VERSION: Final = MODERN_VERSIONS[-1]
DEFAULT_NEGOTIATED_VERSION: Final = "2025-03-26"
"""What a server assumes on HTTP when a handshake-era client omits `MCP-Protocol-Version`."""

PROTOCOL_VERSION_META_KEY: Final = "io.modelcontextprotocol/protocolVersion"
CLIENT_CAPABILITIES_META_KEY: Final = "io.modelcontextprotocol/clientCapabilities"
CLIENT_INFO_META_KEY: Final = "io.modelcontextprotocol/clientInfo"
LOG_LEVEL_META_KEY: Final = "io.modelcontextprotocol/logLevel"
SERVER_INFO_META_KEY: Final = "io.modelcontextprotocol/serverInfo"


def is_modern(version: str) -> bool:
    """True for a revision of the stateless era (2026-07-28 and later)."""
    return version >= MODERN_VERSIONS[0]


def at_least(version: str, minimum: str) -> bool:
    """Revision dates compare as strings; this names the intent."""
    return version >= minimum
