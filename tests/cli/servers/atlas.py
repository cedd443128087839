"""A server whose tools take what pydantic makes of real annotations: an enum, nested models, a
union of models, a recursive model, constrained fields; plus two names some clients refuse.
Run as `python atlas.py` (stdio) or `python atlas.py http PORT` (Streamable HTTP)."""

from __future__ import annotations

import sys
from enum import Enum
from typing import Annotated, Literal

from pydantic import BaseModel, Field

from mcp.server import MCPServer

mcp = MCPServer("Atlas")


class Terrain(str, Enum):
    desert = "desert"
    forest = "forest"


class Point(BaseModel):
    lat: float
    lon: float


class Region(BaseModel):
    name: str
    corner: Point
    terrain: Terrain


class Circle(BaseModel):
    kind: Literal["circle"] = "circle"
    center: Point
    radius: Annotated[float, Field(gt=0)]


class Square(BaseModel):
    kind: Literal["square"] = "square"
    side: float


class Place(BaseModel):
    name: str
    inside: list[Place] = []


@mcp.tool()
def survey(region: Region) -> str:
    """Survey a region (nested models and an enum: $defs/$ref)."""
    return region.name


@mcp.tool()
def measure(shape: Circle | Square) -> float:
    """The area of a shape (a union of models)."""
    return 1.0


@mcp.tool()
def outline(place: Place) -> int:
    """Count the places within a place (a recursive model)."""
    return len(place.inside)


@mcp.tool()
def label(text: Annotated[str, Field(min_length=1, max_length=20, pattern="^[a-z ]+$")], size: int = 12) -> str:
    """Label a map (constrained string, an optional parameter)."""
    return text


@mcp.tool()
def locate(name: str) -> Region:
    """Find a region by name (plain input; the output schema carries $defs/$ref)."""
    return Region(name=name, corner=Point(lat=0, lon=0), terrain=Terrain.desert)


@mcp.tool(name="3d_view")
def three_d_view(zoom: int) -> str:
    """A name that starts with a digit."""
    return "view"


@mcp.tool(name="render_topographic_relief_shading_for_the_selected_region")
def relief(zoom: int) -> str:
    """A name too long for Cursor once the server's name is added."""
    return "relief"


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "http":
        mcp.run(transport="streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        mcp.run()
