"""A stateful Streamable HTTP server (SSE answers) started with `mcp.run()` and the connection
options given as JSON, for the send-timeout and connection-cap tests:
`python connections_server.py PORT '{"send_timeout": 1.0, "max_connections": 16}'`.

Tools: `echo`; `big(size)` (an answer of `size` bytes); `wait_gate` (reports progress at once, answered once
`open_gate` is called: a request held in the app for as long as the test wants); `stats` (this process's open
file descriptors and the bytes its connections have not yet sent). `GET /big?size=N` is a plain
response of N bytes written in one piece."""

from __future__ import annotations

import asyncio
import gc
import json
import os
import sys
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from mcp.server import MCPServer
from mcp.server.mcpserver import Context

mcp = MCPServer("connections")
gate = asyncio.Event()


@mcp.tool()
def echo(text: str) -> str:
    return text


@mcp.tool()
def big(size: int) -> str:
    return "x" * size


@mcp.tool()
async def wait_gate(ctx: Context) -> str:
    await ctx.report_progress(0)  # the answer's stream starts now: the client sees its request is in the app
    await gate.wait()
    return "opened"


@mcp.tool()
def open_gate() -> str:
    gate.set()
    return "ok"


@mcp.tool()
def stats() -> dict[str, Any]:
    unsent = 0
    connections = 0
    for obj in gc.get_objects():
        if isinstance(obj, asyncio.BaseProtocol) and hasattr(obj, "_mcp_in_head"):
            transport: Any = getattr(obj, "transport", None)
            if transport is not None and not transport.is_closing():
                connections += 1
            if transport is not None:
                unsent += transport.get_write_buffer_size()
    return {"fds": len(os.listdir("/proc/self/fd")), "unsent": unsent, "connections": connections}


@mcp.custom_route("/big", methods=["GET"])
async def big_route(request: Request) -> Response:
    return Response(b"x" * int(request.query_params["size"]), media_type="text/plain")


if __name__ == "__main__":
    mcp.run(transport="streamable-http", host="127.0.0.1", port=int(sys.argv[1]), **json.loads(sys.argv[2]))
