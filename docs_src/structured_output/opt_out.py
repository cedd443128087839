from mcp.server import MCPServer

mcp = MCPServer("Harbour")


@mcp.tool(structured_output=False)
def tide_report(port: str) -> str:
    """A sentence about the tide, for people."""
    return f"{port}: 3.4 m and rising, high water at 14:05."
