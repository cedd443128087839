"""The protocol-revision registry: which revisions exist, which era each belongs to.

Stdlib only, so every layer may import it. Two eras share one endpoint: the handshake era
(`initialize`, a stateful connection) and the stateless era that starts at 2026-07-28, where every
request carries its own protocol version and client capabilities in `_meta`.

Revisions are an enumerated set, not dates to compare as strings: an unknown peer string must never
sort "after" a known one by accident, so ordering questions go through `KNOWN_PROTOCOL_VERSIONS`.
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "CLIENT_CAPABILITIES_META_KEY",
    "CLIENT_INFO_META_KEY",
    "DEFAULT_NEGOTIATED_VERSION",
    "HANDSHAKE_PROTOCOL_VERSIONS",
    "KNOWN_PROTOCOL_VERSIONS",
    "LATEST_HANDSHAKE_VERSION",
    "LATEST_MODERN_VERSION",
    "LATEST_PROTOCOL_VERSION",
    "LOG_LEVEL_META_KEY",
    "MODERN_PROTOCOL_VERSIONS",
    "OLDEST_SUPPORTED_VERSION",
    "PROTOCOL_VERSION_META_KEY",
    "SERVER_INFO_META_KEY",
    "SUPPORTED_PROTOCOL_VERSIONS",
    "is_modern",
    "is_version_at_least",
]

HANDSHAKE_PROTOCOL_VERSIONS: Final[tuple[str, ...]] = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
"""Revisions negotiated with `initialize`, oldest first."""

MODERN_PROTOCOL_VERSIONS: Final[tuple[str, ...]] = ("2026-07-28",)
"""Revisions of the stateless era (no handshake; version carried per request), oldest first."""

KNOWN_PROTOCOL_VERSIONS: Final[tuple[str, ...]] = (*HANDSHAKE_PROTOCOL_VERSIONS, *MODERN_PROTOCOL_VERSIONS)
"""Every released revision, oldest to newest: the one order all comparisons use."""

SUPPORTED_PROTOCOL_VERSIONS: tuple[str, ...] = (*HANDSHAKE_PROTOCOL_VERSIONS, *MODERN_PROTOCOL_VERSIONS)
"""Every revision this SDK speaks (both eras): the v1 name, its own tuple as in the official SDK."""

HANDSHAKE_VERSIONS: Final = HANDSHAKE_PROTOCOL_VERSIONS
"""Short internal name of `HANDSHAKE_PROTOCOL_VERSIONS` (the same tuple)."""

MODERN_VERSIONS: Final = MODERN_PROTOCOL_VERSIONS
"""Short internal name of `MODERN_PROTOCOL_VERSIONS` (the same tuple)."""

LATEST_HANDSHAKE_VERSION: Final[str] = HANDSHAKE_PROTOCOL_VERSIONS[-1]
"""The newest `initialize` revision: what a client offers and a server counter-offers by default."""

LATEST_MODERN_VERSION: Final[str] = MODERN_PROTOCOL_VERSIONS[-1]
"""The newest stateless revision: what a `server/discover` probe asks for by default."""

LATEST_PROTOCOL_VERSION: Final[str] = KNOWN_PROTOCOL_VERSIONS[-1]
"""The newest revision of any era."""

OLDEST_SUPPORTED_VERSION: Final[str] = HANDSHAKE_PROTOCOL_VERSIONS[0]
"""The oldest revision still negotiated through `initialize`."""

DEFAULT_NEGOTIATED_VERSION: Final = "2025-03-26"
"""What a server assumes on HTTP when a handshake-era client omits `MCP-Protocol-Version`."""

PROTOCOL_VERSION_META_KEY: Final = "io.modelcontextprotocol/protocolVersion"
CLIENT_CAPABILITIES_META_KEY: Final = "io.modelcontextprotocol/clientCapabilities"
CLIENT_INFO_META_KEY: Final = "io.modelcontextprotocol/clientInfo"
LOG_LEVEL_META_KEY: Final = "io.modelcontextprotocol/logLevel"
SERVER_INFO_META_KEY: Final = "io.modelcontextprotocol/serverInfo"

_ORDER: Final = {version: index for index, version in enumerate(KNOWN_PROTOCOL_VERSIONS)}


def is_modern(version: str) -> bool:
    """True for a revision of the stateless era (2026-07-28 and later)."""
    return version in MODERN_PROTOCOL_VERSIONS


def is_version_at_least(version: str, minimum: str) -> bool:
    """Whether `version` is a known revision no older than `minimum`.

    An unknown `version` (an unrecognised peer) is never "at least" anything. `minimum` must be a
    known revision: anything else is a programming error and raises `ValueError`.
    """
    floor = _ORDER.get(minimum)
    if floor is None:
        raise ValueError(f"minimum must be a known protocol version, got {minimum!r}")
    rank = _ORDER.get(version)
    return rank is not None and rank >= floor
