"""`mcp_types`: the protocol's data types as a top-level package, for code that only
(de)serializes MCP traffic.

One home, two import paths: every name is the very object `mcp.types` exports (looked up lazily,
PEP 562), so `mcp_types.CallToolResult is mcp.types.CallToolResult`. Importing it loads `mcp.types`
only, never the transport stack. The `jsonrpc`, `methods` and `version` submodules live beside
this file.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

import mcp.types as _types

__all__ = list(_types.__all__)

_SUBMODULES = frozenset({"jsonrpc", "methods", "version"})


def __getattr__(name: str) -> Any:
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    try:
        value = getattr(_types, name)
    except AttributeError:
        raise AttributeError(f"module 'mcp_types' has no attribute {name!r}") from None
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*__all__, *_SUBMODULES})


if TYPE_CHECKING:
    from mcp.types import *  # noqa: F403
