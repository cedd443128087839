"""Official import path of the framework's exceptions; they live in `mcp.shared.exceptions`."""

from mcp.shared.exceptions import (
    InvalidSignature,
    MCPServerError,
    ResourceError,
    ResourceNotFoundError,
    ToolError,
    UnexpectedResourceError,
)

__all__ = [
    "InvalidSignature",
    "MCPServerError",
    "ResourceError",
    "ResourceNotFoundError",
    "ToolError",
    "UnexpectedResourceError",
]
