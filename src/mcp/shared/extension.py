"""The official home of the extension-identifier check; the rule itself is `mcp._protocol.extension_ids`."""

from __future__ import annotations

from mcp._protocol.extension_ids import validate_extension_identifier as validate_extension_identifier

__all__ = ["validate_extension_identifier"]
