"""FastMCP twin of `weather.py`: the same three tools, `from fastmcp import FastMCP`."""

from __future__ import annotations

from fastmcp import FastMCP
from pydantic import BaseModel


class WeatherData(BaseModel):
    """Weather at one place."""

    city: str
    temperature: float
    conditions: str


mcp = FastMCP("bench-weather")


@mcp.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@mcp.tool()
def weather(city: str) -> WeatherData:
    """Current weather for a city."""
    return WeatherData(city=city, temperature=21.5, conditions="sunny")


@mcp.tool()
def forecast(n: int) -> list[WeatherData]:
    """A forecast of n entries."""
    return [WeatherData(city=f"city-{i}", temperature=10.0 + i % 20, conditions="cloudy") for i in range(n)]


if __name__ == "__main__":
    mcp.run()
