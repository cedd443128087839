"""A server whose tool schemas strict clients accept: `$ref`s inlined, parameters described from
the docstring (both switches are off by default)."""

import asyncio
import enum
import json

from pydantic import BaseModel

from mcp import Client
from mcp.server import MCPServer


class Unit(enum.Enum):
    METRIC = "metric"
    IMPERIAL = "imperial"


class Place(BaseModel):
    city: str
    country: str = "FR"


mcp = MCPServer("Weather", portable_schemas=True, parameter_docs=True)


@mcp.tool()
def forecast(place: Place, unit: Unit = Unit.METRIC) -> str:
    """Forecast tomorrow's weather.

    Args:
        place: Where to forecast.
        unit: The units of the answer.
    """
    return f"Sunny in {place.city}"


async def main() -> None:
    async with Client(mcp) as client:
        tool = (await client.list_tools()).tools[0]
        print(tool.description)
        print(json.dumps(tool.input_schema, indent=2))


if __name__ == "__main__":
    asyncio.run(main())
