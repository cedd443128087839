import sys

from mcp.server import MCPServer

mcp = MCPServer("Weather")


@mcp.tool()
def get_temperature(city: str) -> int:
    """Current temperature in a city, in whole degrees Celsius."""
    return {"London": 17, "Cairo": 34, "Reykjavik": 4}[city]


if __name__ == "__main__":
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 8000
    mcp.run(transport="streamable-http", host="127.0.0.1", port=port)
