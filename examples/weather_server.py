"""The weather server from the "Structured Output" page: the return annotation is the output schema."""

import json

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
    return WeatherData(temperature=READINGS[city] + 0.2, humidity=0.83, conditions="Overcast")


@mcp.tool()
def get_temperatures(cities: list[str]) -> dict[str, float]:
    """Current temperature for each city, in degrees Celsius."""
    return {city: float(READINGS[city]) for city in cities}


@mcp.tool()
def get_broken_weather(city: str) -> WeatherData:
    """An upstream that stopped sending humidity: the output schema catches it."""
    return json.loads(UPSTREAM[city])


if __name__ == "__main__":
    mcp.run()
