"""The `add` server over Streamable HTTP (defaults), sessions in memory or, given a Redis URL,
shared through Redis: `redis_sessions.py --http PORT [REDIS_URL PREFIX]`."""

from __future__ import annotations

import sys

from mcp.server.mcpserver import MCPServer
from mcp.server.request_state import RequestStateSecurity

port = int(sys.argv[2])  # argv[1] is "--http"
options = {}
if len(sys.argv) > 3:  # (without it, also runs on a source tree from before `state=`)
    from mcp.redis import RedisState

    options["state"] = RedisState.from_url(sys.argv[3], prefix=sys.argv[4])

mcp = MCPServer("bench-redis", request_state_security=RequestStateSecurity(keys=[b"b" * 32]), **options)


@mcp.tool()
def add(a: int, b: int) -> int:
    return a + b


mcp.run(transport="streamable-http", host="127.0.0.1", port=port, log_level="warning")
