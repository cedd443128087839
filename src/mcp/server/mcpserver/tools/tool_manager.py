"""`ToolManager`: the official SDK's registry of `Tool` models, by name."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from mcp.server.mcpserver.tools.base import Tool
from mcp.shared.exceptions import ToolError

logger = logging.getLogger("mcp.server.tools")
_duplicates_logger = logging.getLogger("mcp.server.mcpserver.tools.tool_manager")  # the official name, quoted by the docs


class ToolManager:
    """Tools by name: add (from functions), look up, list, remove, call."""

    def __init__(self, warn_on_duplicate_tools: bool = True, *, tools: list[Tool] | None = None) -> None:
        self._tools: dict[str, Tool] = {}
        self.warn_on_duplicate_tools = warn_on_duplicate_tools
        for tool in tools or ():
            if warn_on_duplicate_tools and tool.name in self._tools:
                _duplicates_logger.warning("Tool already exists: %s", tool.name)
            self._tools[tool.name] = tool

    def get_tool(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def list_tools(self) -> list[Tool]:
        return list(self._tools.values())

    def add_tool(self, fn: Callable[..., Any], name: str | None = None, title: str | None = None,
                 description: str | None = None, annotations: Any = None, icons: list[Any] | None = None,
                 meta: dict[str, Any] | None = None, structured_output: bool | None = None) -> Tool:
        """Register `fn`; a name already taken keeps the existing tool (warned about)."""
        tool = Tool.from_function(fn, name=name, title=title, description=description, annotations=annotations,
                                  icons=icons, meta=meta, structured_output=structured_output)
        existing = self._tools.get(tool.name)
        if existing is not None:
            if self.warn_on_duplicate_tools:
                _duplicates_logger.warning("Tool already exists: %s", tool.name)
            return existing
        self._tools[tool.name] = tool
        return tool

    def remove_tool(self, name: str) -> None:
        if name not in self._tools:
            raise ToolError(f"Unknown tool: {name}")
        del self._tools[name]

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any, convert_result: bool = False) -> Any:
        """Run the tool `name`; `ToolError` when there is none."""
        tool = self._tools.get(name)
        if tool is None:
            raise ToolError(f"Unknown tool: {name}")
        return await tool.run(arguments, context, convert_result=convert_result)
