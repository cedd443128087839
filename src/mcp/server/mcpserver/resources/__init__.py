"""Resources for `MCPServer`: ready-made `Resource` classes, templates, the registry. Lazy facade."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_BASE = "mcp.server.mcpserver.resources.base"
_SECURITY = "mcp.server.mcpserver.resources.security"
_OWNER = {
    "Resource": _BASE,
    "TextResource": _BASE,
    "BinaryResource": _BASE,
    "FunctionResource": _BASE,
    "FileResource": _BASE,
    "HttpResource": _BASE,
    "DirectoryResource": _BASE,
    "ReadResourceContents": _BASE,
    "ResourceTemplate": "mcp.server.mcpserver.resources.templates",
    "ResourceManager": "mcp.server.mcpserver.resources.manager",
    "ResourceSecurity": _SECURITY,
    "DEFAULT_RESOURCE_SECURITY": _SECURITY,
    "ResourceSecurityError": _SECURITY,
}

__all__ = [
    "DEFAULT_RESOURCE_SECURITY",
    "BinaryResource",
    "DirectoryResource",
    "FileResource",
    "FunctionResource",
    "HttpResource",
    "ReadResourceContents",
    "Resource",
    "ResourceManager",
    "ResourceSecurity",
    "ResourceSecurityError",
    "ResourceTemplate",
    "TextResource",
]


def __getattr__(name: str) -> Any:
    module = _OWNER.get(name)
    if module is None:
        raise AttributeError(f"module 'mcp.server.mcpserver.resources' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_OWNER})


if TYPE_CHECKING:
    from mcp.server.mcpserver.resources.base import BinaryResource as BinaryResource
    from mcp.server.mcpserver.resources.base import DirectoryResource as DirectoryResource
    from mcp.server.mcpserver.resources.base import FileResource as FileResource
    from mcp.server.mcpserver.resources.base import FunctionResource as FunctionResource
    from mcp.server.mcpserver.resources.base import HttpResource as HttpResource
    from mcp.server.mcpserver.resources.base import ReadResourceContents as ReadResourceContents
    from mcp.server.mcpserver.resources.base import Resource as Resource
    from mcp.server.mcpserver.resources.base import TextResource as TextResource
    from mcp.server.mcpserver.resources.manager import ResourceManager as ResourceManager
    from mcp.server.mcpserver.resources.security import DEFAULT_RESOURCE_SECURITY as DEFAULT_RESOURCE_SECURITY
    from mcp.server.mcpserver.resources.security import ResourceSecurity as ResourceSecurity
    from mcp.server.mcpserver.resources.security import ResourceSecurityError as ResourceSecurityError
    from mcp.server.mcpserver.resources.templates import ResourceTemplate as ResourceTemplate
