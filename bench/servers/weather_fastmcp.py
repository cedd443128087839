"""FastMCP twin of `weather.py`: the same three tools, `from fastmcp import FastMCP`.

Serves stdio via `mcp.run()`; with `--http PORT [--json] [--stateless]` it serves
Streamable HTTP on 127.0.0.1:PORT/mcp via FastMCP's `mcp.run(transport="http", ...)`
(uvicorn), FastMCP's equivalent of the SDK's `transport="streamable-http"`.
"""

from __future__ import annotations

import sys

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
    argv = sys.argv[1:]
    if argv[:1] == ["--http"]:
        mcp.run(
            transport="http",
            host="127.0.0.1",
            port=int(argv[1]),
            json_response="--json" in argv,
            stateless_http="--stateless" in argv,
        )
    else:
        mcp.run()
