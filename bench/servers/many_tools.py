"""Registration benchmark for the MCP SDK v2 API: 500 generated tools `add_0`..`add_499`.

Same file for mcpkit (ours) and the official SDK. After the imports and the
`MCPServer(...)` construction, it times (time.perf_counter, in-process) the
registration of 500 tools through the `@mcp.tool(name=...)` decorator and prints
`BENCH_REGISTER_SECONDS=<float>` to stderr. Framework import and server
construction are not included. With `--serve` it then serves stdio via `mcp.run()`.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

from mcp.server import MCPServer

N_TOOLS = 500


def make_tool(i: int) -> Callable[[int, int], int]:
    """Generate a distinct `add_<i>(a: int, b: int) -> int` function."""

    def add(a: int, b: int) -> int:
        return a + b + i

    add.__name__ = add.__qualname__ = f"add_{i}"
    add.__doc__ = f"Add two integers plus {i}."
    return add


functions = [make_tool(i) for i in range(N_TOOLS)]
mcp = MCPServer("bench-many-tools")

t0 = time.perf_counter()
for fn in functions:
    mcp.tool(name=fn.__name__)(fn)
elapsed = time.perf_counter() - t0
print(f"BENCH_REGISTER_SECONDS={elapsed:.9f}", file=sys.stderr, flush=True)

if __name__ == "__main__" and "--serve" in sys.argv[1:]:
    mcp.run()
