"""`mcp_types.methods`: a mirror of `mcp.types.methods` (every name is the same object, looked up there)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import mcp.types.methods as _home
from mcp.types.methods import __all__ as __all__


def __getattr__(name: str) -> Any:
    return getattr(_home, name)


def __dir__() -> list[str]:
    return sorted(__all__)


if TYPE_CHECKING:
    from mcp.types.methods import *  # noqa: F403
