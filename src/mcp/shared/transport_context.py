"""`TransportContext`: what a transport tells the layers above about one inbound message."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["TransportContext"]


@dataclass(kw_only=True, frozen=True)
class TransportContext:
    """Per-message transport facts; a transport may subclass it with its own fields."""

    kind: str
    """Which transport (`"stdio"`, `"streamable-http"`, ...)."""
    can_send_request: bool
    """Whether a server-initiated request sent while handling this message can be answered."""
    headers: Mapping[str, str] | None = None
    """The HTTP request headers, on HTTP transports."""
