from mcp.server import MCPServer

mcp = MCPServer("Library")


@mcp.tool()
def search(query: str) -> str:
    """Search the library catalogue."""
    return f"library: {query}"


if __name__ == "__main__":
    mcp.run()
