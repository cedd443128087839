"""Tools: `RegisteredTool` (what `MCPServer` compiles a function into) and the official SDK's
`Tool` model and `ToolManager` (built on it, loaded on first use)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mcp.server.mcpserver.tools.registered import RegisteredTool, error_result, error_wire

__all__ = ["RegisteredTool", "Tool", "ToolManager", "error_result", "error_wire"]

if TYPE_CHECKING:
    from mcp.server.mcpserver.tools.base import Tool as Tool
    from mcp.server.mcpserver.tools.tool_manager import ToolManager as ToolManager


def __getattr__(name: str) -> Any:
    # pydantic models: built on first use so that registering tools stays pydantic-free.
    if name == "Tool":
        from mcp.server.mcpserver.tools.base import Tool

        return Tool
    if name == "ToolManager":
        from mcp.server.mcpserver.tools.tool_manager import ToolManager

        return ToolManager
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
