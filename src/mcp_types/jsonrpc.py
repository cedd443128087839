"""`mcp_types.jsonrpc`: a mirror of `mcp.types.jsonrpc` (every name is the same object, looked up there)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import mcp.types.jsonrpc as _home
from mcp.types.jsonrpc import __all__ as __all__


def __getattr__(name: str) -> Any:
    return getattr(_home, name)


def __dir__() -> list[str]:
    return sorted(__all__)


if TYPE_CHECKING:
    from mcp.types.jsonrpc import *  # noqa: F403
