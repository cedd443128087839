"""The seed page's weather server, plus a few tools that misbehave on purpose."""

import json
import sys

from pydantic import BaseModel, Field

from mcp.server import MCPServer

mcp = MCPServer("Weather", version="1.0.0")

READINGS = {"London": 17, "Cairo": 34, "Reykjavik": 4}
UPSTREAM = {"London": '{"temperature": 16.2, "conditions": "Overcast"}'}


class WeatherData(BaseModel):
    temperature: float = Field(description="Degrees Celsius.")
    humidity: float = Field(description="Relative humidity, 0 to 1.")
    conditions: str


@mcp.tool()
def get_temperature(city: str) -> int:
    """Current temperature in a city, in whole degrees Celsius."""
    return READINGS[city]


@mcp.tool()
def get_weather(city: str) -> WeatherData:
    """Current weather for a city."""
    return json.loads(UPSTREAM[city])


@mcp.tool()
def get_forecast(city: str, days: int) -> list[WeatherData]:
    """Daily forecast for a city."""
    return [WeatherData(temperature=16.2 + d, humidity=0.83, conditions="Overcast") for d in range(days)]


@mcp.tool()
def chatty(text: str) -> str:
    """Prints to stdout, which must not corrupt the protocol stream."""
    print("this line must not reach the protocol stream")
    sys.stdout.write("neither must this\n")
    return text.upper()


@mcp.tool()
async def boom() -> str:
    """Always fails."""
    raise RuntimeError("kaput")


@mcp.tool()
def die() -> str:
    """Exits the process mid-call, as a crashing server would."""
    import os

    os._exit(3)


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--max-line":
        mcp.run(max_message_size=int(sys.argv[2]))
    else:
        mcp.run()
