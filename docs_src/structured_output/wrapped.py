from pydantic import BaseModel

from mcp.server import MCPServer

mcp = MCPServer("Harbour")


class Tide(BaseModel):
    height: float
    rising: bool


@mcp.tool()
def get_forecast(port: str, hours: int) -> list[Tide]:
    """The tide for each of the next hours."""
    return [Tide(height=3.4 - 0.5 * hour, rising=False) for hour in range(hours)]


@mcp.tool()
def get_heights(ports: list[str]) -> dict[str, float]:
    """The tide height at each harbour."""
    return {port: 3.4 for port in ports}


@mcp.tool()
def get_best_port(ports: list[str]) -> str | None:
    """The first harbour with water enough, if any."""
    return ports[0] if ports else None
