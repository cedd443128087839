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


class ToolTimeoutError(ToolError):
    """A tool ran past its `timeout=` (or the server's `tool_timeout=`) and was stopped.

    Raised by the framework, never by a tool: `Error executing tool <name>: timed out after <n>
    seconds`; tools/call answers it as an `is_error` result with that text."""


__all__ = [
    "InvalidSignature",
    "MCPServerError",
    "ResourceError",
    "ResourceNotFoundError",
    "ToolError",
    "ToolTimeoutError",
    "UnexpectedResourceError",
    "UnexpectedToolError",
]
