"""Official import path of the framework's exceptions (most live in `mcp.shared.exceptions`)."""

from mcp.shared.exceptions import (
    InvalidSignature,
    MCPServerError,
    ResourceError,
    ResourceNotFoundError,
    ToolError,
    UnexpectedResourceError,
)


class UnexpectedToolError(ToolError):
    """A tool crashed (raised something other than `ToolError`, `ResourceError` or `MCPError`).

    Raised by the framework, never by a tool: the message is only `Error executing tool <name>`, so
    nothing of the original reaches the client; `__cause__` is the original exception."""


__all__ = [
    "InvalidSignature",
    "MCPServerError",
    "ResourceError",
    "ResourceNotFoundError",
    "ToolError",
    "UnexpectedResourceError",
    "UnexpectedToolError",
]
