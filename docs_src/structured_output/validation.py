import json

from pydantic import BaseModel

from mcp.server import MCPServer

mcp = MCPServer("Harbour")

# What an upstream service answers: it stopped sending `rising`.
UPSTREAM = {"Brest": '{"height": 3.4, "next_high": "14:05"}'}


class Tide(BaseModel):
    height: float
    rising: bool
    next_high: str


@mcp.tool()
def get_tide(port: str) -> Tide:
    """The tide at a harbour right now."""
    return json.loads(UPSTREAM[port])
