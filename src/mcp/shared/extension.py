"""The official home of the extension-identifier check (the rule is `mcp._protocol.extension_ids`)."""

from __future__ import annotations

from typing import Any

from mcp._protocol.extension_ids import check_identifier

__all__ = ["validate_extension_identifier"]


def validate_extension_identifier(identifier: Any, *, owner: str) -> None:
    """Raise `TypeError` (naming `owner`) unless `identifier` is a `vendor-prefix/name` string."""
    check_identifier(owner, identifier)
