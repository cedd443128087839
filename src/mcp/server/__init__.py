"""MCP servers: `MCPServer` (high level) and `Server` (low level). Lazy facade."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_OWNER = {
    "MCPServer": "mcp.server.mcpserver.server",
    "Server": "mcp.server.lowlevel.server",
    "NotificationOptions": "mcp.server.lowlevel.server",
    "InitializationOptions": "mcp.server.models",
    "ServerRequestContext": "mcp.server.context",
    "ServerSession": "mcp.server.session",
    "CacheHint": "mcp.server.caching",
}

__all__ = sorted(_OWNER)


_SUBPACKAGES = frozenset({"lowlevel", "mcpserver"})
"""Reachable as attributes after `import mcp.server` (imported on first access, as the official
package binds them; importing them up front would load pydantic for every `from mcp.server import`)."""


def __getattr__(name: str) -> Any:
    if name in _SUBPACKAGES:
        return importlib.import_module(f"mcp.server.{name}")
    module = _OWNER.get(name)
    if module is None:
        raise AttributeError(f"module 'mcp.server' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


if TYPE_CHECKING:
    from mcp.server import lowlevel as lowlevel
    from mcp.server import mcpserver as mcpserver
    from mcp.server.caching import CacheHint as CacheHint
    from mcp.server.context import ServerRequestContext as ServerRequestContext
    from mcp.server.lowlevel.server import NotificationOptions as NotificationOptions
    from mcp.server.lowlevel.server import Server as Server
    from mcp.server.mcpserver.server import MCPServer as MCPServer
    from mcp.server.models import InitializationOptions as InitializationOptions
    from mcp.server.session import ServerSession as ServerSession
