"""A server every known client takes as it is: plain scalar parameters, one type each."""

from mcp.server import MCPServer

mcp = MCPServer("Plain")


@mcp.tool()
def get_temperature(city: str) -> int:
    """Current temperature in a city."""
    return 17


@mcp.tool()
def convert(celsius: float, decimals: int = 1) -> float:
    """Celsius to Fahrenheit."""
    return round(celsius * 9 / 5 + 32, decimals)


if __name__ == "__main__":
    mcp.run()
