"""The official SDK's module path for `ResourceManager` (it lives in `manager`)."""

from mcp.server.mcpserver.resources.manager import ResourceManager

__all__ = ["ResourceManager"]
