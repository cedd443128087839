"""Where a stdio cold start of `servers/weather.py` goes, step by step, in one interpreter.

Run it with a column's interpreter, e.g. `bench/.venvs/ours/bin/python bench/cold_start_parts.py`
or `bench/.venvs/official/bin/python bench/cold_start_parts.py`. It times the imports the server
file starts with (pydantic, then the SDK), a one-field probe model (the first model is where pydantic
pays its one-time schema machinery and plugin scan, unless the SDK's import already did), the server
module's own body (its `WeatherData` model, the server and three tool registrations, imported here
without running it), then the event loop's imports, and prints the milliseconds of each step.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "servers"))

t0 = time.perf_counter()
from pydantic import BaseModel  # noqa: E402

t1 = time.perf_counter()
from mcp.server import MCPServer  # noqa: E402, F401

t2 = time.perf_counter()


class Probe(BaseModel):
    x: int


t3 = time.perf_counter()
import weather  # noqa: E402, F401  # the bench server's module body: model, server, registrations

t4 = time.perf_counter()
import asyncio  # noqa: E402, F401

import anyio  # noqa: E402, F401

t5 = time.perf_counter()
steps = {"pydantic import": t1 - t0, "SDK import": t2 - t1, "first model": t3 - t2,
         "server module (model + 3 registrations)": t4 - t3, "asyncio + anyio": t5 - t4}
print("  ".join(f"{name} {1e3 * seconds:.1f} ms" for name, seconds in steps.items()), file=sys.stderr)
