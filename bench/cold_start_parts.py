"""Where a stdio cold start of `servers/weather.py` goes, step by step, in one interpreter.

Run it with a column's interpreter, e.g. `bench/.venvs/ours/bin/python bench/cold_start_parts.py`
or `bench/.venvs/official/bin/python bench/cold_start_parts.py`. It repeats the server file's own
statements (pydantic import, the SDK import, the `WeatherData` model, three tool registrations),
then imports the event loop, and prints the milliseconds of each step. The first model is where
pydantic pays its one-time schema machinery and plugin scan, unless the SDK's import already did.
"""

from __future__ import annotations

import sys
import time

t0 = time.perf_counter()
from pydantic import BaseModel  # noqa: E402

t1 = time.perf_counter()
from mcp.server import MCPServer  # noqa: E402

t2 = time.perf_counter()


class WeatherData(BaseModel):
    city: str
    temperature: float
    conditions: str


t3 = time.perf_counter()
mcp = MCPServer("bench-weather")


@mcp.tool()
def add(a: int, b: int) -> int:
    return a + b


@mcp.tool()
def weather(city: str) -> WeatherData:
    return WeatherData(city=city, temperature=21.5, conditions="sunny")


@mcp.tool()
def forecast(n: int) -> list[WeatherData]:
    return []


t4 = time.perf_counter()
import asyncio  # noqa: E402, F401

import anyio  # noqa: E402, F401

t5 = time.perf_counter()
steps = {"pydantic import": t1 - t0, "SDK import": t2 - t1, "first model": t3 - t2,
         "3 registrations": t4 - t3, "asyncio + anyio": t5 - t4}
print("  ".join(f"{name} {1e3 * seconds:.1f} ms" for name, seconds in steps.items()), file=sys.stderr)
