from pydantic import BaseModel, Field

from mcp.server import MCPServer

mcp = MCPServer("Harbour")


class Tide(BaseModel):
    height: float = Field(description="Metres above chart datum.")
    rising: bool
    next_high: str


@mcp.tool()
def get_tide(port: str) -> Tide:
    """The tide at a harbour right now."""
    return Tide(height=3.4, rising=True, next_high="14:05")
