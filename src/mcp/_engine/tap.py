"""Wire taps: observers of every message a peer sends, for test-time schema checking.

Empty in production, so the cost on the send path is one truthiness check.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

Role = Literal["server", "client"]
WireTap = Callable[[Role, dict[str, Any], "str | None", "str | None"], None]
"""`tap(sender, message, protocol_version, request_method)`: `request_method` is the method a
response answers (None for requests and notifications)."""

TAPS: list[WireTap] = []
