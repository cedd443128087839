from mcp.server import MCPServer

mcp = MCPServer("Web")


@mcp.tool()
def search(query: str) -> str:
    """Search the web."""
    return f"web: {query}"


if __name__ == "__main__":
    mcp.run()
