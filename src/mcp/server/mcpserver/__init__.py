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
    "Message": "mcp.server.mcpserver.prompts.base",
    "UserMessage": "mcp.server.mcpserver.prompts.base",
    "AssistantMessage": "mcp.server.mcpserver.prompts.base",
    "Resolve": "mcp.server.mcpserver.dependencies",
    "Elicit": "mcp.server.mcpserver.dependencies",
    "Sample": "mcp.server.mcpserver.dependencies",
    "ListRoots": "mcp.server.mcpserver.dependencies",
    "ElicitationResult": "mcp.server.elicitation",
    "AcceptedElicitation": "mcp.server.elicitation",
    "DeclinedElicitation": "mcp.server.elicitation",
    "CancelledElicitation": "mcp.server.elicitation",
    "ResourceSecurity": "mcp.server.mcpserver.resources",
    "DEFAULT_RESOURCE_SECURITY": "mcp.server.mcpserver.resources",
    "RequestStateSecurity": "mcp.server.request_state",
    "RequestStateBoundary": "mcp.server.request_state",
    "RequestStateCodec": "mcp.server.request_state",
    "InvalidRequestState": "mcp.server.request_state",
    "authenticated_principal": "mcp.server.request_state",
    "Extension": "mcp.server.extension",
    "ToolBinding": "mcp.server.extension",
    "ResourceBinding": "mcp.server.extension",
    "MethodBinding": "mcp.server.extension",
    "require_client_extension": "mcp.server.extension",
    "AESGCMRequestStateCodec": "mcp.server.request_state",
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
