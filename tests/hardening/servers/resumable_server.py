"""A resumable Streamable HTTP server as users run one (`mcp.run(transport="streamable-http")`
with an `InMemoryEventStore` at its default bounds), whose `blob` tool answers with as many
characters as asked; `GET /store` tells what the store keeps and the process's resident memory.
Usage: `python resumable_server.py PORT IDLE_SECONDS` (sessions idle that long are evicted)."""

from __future__ import annotations

import gc
import os
import sys

from starlette.requests import Request
from starlette.responses import JSONResponse

from mcp.server import MCPServer
from mcp.server.event_store import InMemoryEventStore

store = InMemoryEventStore()
mcp = MCPServer("resumable")


@mcp.tool()
def blob(size: int) -> str:
    return "x" * size


def resident_bytes() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@mcp.custom_route("/store", methods=["GET"])
async def store_report(request: Request) -> JSONResponse:
    gc.collect()
    return JSONResponse({"bytes": store.stored_bytes, "events": len(store), "streams": len(store._streams),
                         "resident": resident_bytes()})


if __name__ == "__main__":
    mcp.run(transport="streamable-http", host="127.0.0.1", port=int(sys.argv[1]), event_store=store,
            session_idle_timeout=float(sys.argv[2]))
