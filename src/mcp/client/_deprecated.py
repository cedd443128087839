"""Marking client verbs that the 2026-07-28 revision retires: calling one warns with
`MCPDeprecationWarning` (the texts the official SDK uses, which users match on)."""

from __future__ import annotations

import functools
import warnings
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from mcp.shared.exceptions import MCPDeprecationWarning

PING = "ping is removed as of 2026-07-28; the method only works under mode='legacy'."
PROGRESS = "Client-to-server progress is deprecated as of 2026-07-28; progress is server-to-client only."
LOGGING = "The logging capability is deprecated as of 2026-07-28 (SEP-2577)."
ROOTS = "The roots capability is deprecated as of 2026-07-28 (SEP-2577)."
SUBSCRIBE = "resources/subscribe is removed as of 2026-07-28; use Client.listen() instead."
UNSUBSCRIBE = "resources/unsubscribe is removed as of 2026-07-28; use Client.listen() instead."

F = TypeVar("F", bound=Callable[..., Awaitable[Any]])


def deprecated_verb(message: str) -> Callable[[F], F]:
    """Wrap an async method so each call warns `message` (attributed to the caller) first."""

    def mark(method: F) -> F:
        @functools.wraps(method)
        async def warned(*args: Any, **kwargs: Any) -> Any:
            warnings.warn(message, MCPDeprecationWarning, stacklevel=2)
            return await method(*args, **kwargs)

        warned.__deprecated__ = message  # type: ignore[attr-defined]  # PEP 702's marker
        return warned  # type: ignore[return-value]

    return mark
