"""The official SDK's module path for the ready-made resource kinds (they live in `base`)."""

from mcp.server.mcpserver.resources.base import (
    BinaryResource,
    DirectoryResource,
    FileResource,
    FunctionResource,
    HttpResource,
    TextResource,
)

__all__ = ["BinaryResource", "DirectoryResource", "FileResource", "FunctionResource", "HttpResource", "TextResource"]
