"""The high-level server framework: `MCPServer` and what its handlers use. Lazy facade."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_OWNER = {
    "MCPServer": "mcp.server.mcpserver.server",
    "Context": "mcp.server.mcpserver.context",
    "Image": "mcp.server.mcpserver.media",
    "Audio": "mcp.server.mcpserver.media",
    "Icon": "mcp.types",
}

__all__ = sorted(_OWNER)


def __getattr__(name: str) -> Any:
    module = _OWNER.get(name)
    if module is None:
        raise AttributeError(f"module 'mcp.server.mcpserver' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


if TYPE_CHECKING:
    from mcp.server.mcpserver.context import Context as Context
    from mcp.server.mcpserver.media import Audio as Audio
    from mcp.server.mcpserver.media import Image as Image
    from mcp.server.mcpserver.server import MCPServer as MCPServer
    from mcp.types import Icon as Icon
