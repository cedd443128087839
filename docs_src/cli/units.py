from enum import Enum

from mcp.server import MCPServer

mcp = MCPServer("Weather")

READINGS = {"London": 17.0, "Cairo": 34.0}


class Unit(str, Enum):
    celsius = "celsius"
    fahrenheit = "fahrenheit"


@mcp.tool()
def get_temperature(city: str, unit: Unit = Unit.celsius) -> float:
    """Current temperature in a city."""
    celsius = READINGS[city]
    return celsius if unit is Unit.celsius else celsius * 9 / 5 + 32


if __name__ == "__main__":
    mcp.run()
