"""FastMCP twin of `content.py`: the same resource and prompt, `from fastmcp import FastMCP`."""

from __future__ import annotations

from fastmcp import FastMCP

README = "mcpkit benchmark resource.\n" * 8

mcp = FastMCP("bench-content")


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
