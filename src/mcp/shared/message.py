"""`SessionMessage`: what travels on a transport's streams: one JSON-RPC message (a dict) plus
transport metadata (the HTTP request it came in on, a resumption token, ...)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(slots=True)
class SessionMessage:
    message: dict[str, Any]
    metadata: Any = None
