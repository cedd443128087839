"""Resource and prompt benchmark server for the MCP SDK v2 API (`from mcp.server import MCPServer`).

Same file for mcpkit (ours) and the official SDK. One static text resource
(`bench://readme`, a fixed URI whose function returns a constant string) and one
prompt with two string arguments. Serves stdio via `mcp.run()`.
"""

from __future__ import annotations

from mcp.server import MCPServer

README = "mcpkit benchmark resource.\n" * 8

mcp = MCPServer("bench-content")


@mcp.resource("bench://readme", name="readme", mime_type="text/plain")
def readme() -> str:
    """A static text resource."""
    return README


@mcp.prompt()
def review(code: str, language: str) -> str:
    """Ask for a code review."""
    return f"Please review this {language} code:\n\n{code}"


if __name__ == "__main__":
    mcp.run()
