"""One worker of a service capped at 3 sessions per client (clients connect directly:
`trusted_proxies=[]`, so an address is one client), its sessions in Redis.
Usage: capped_server.py PORT REDIS_URL PREFIX WORKER_NAME MARKER_DIR (the last two unused)."""

from __future__ import annotations

import sys

from mcp.redis import RedisState
from mcp.server.mcpserver import MCPServer

port, redis_url, prefix = sys.argv[1:4]
mcp = MCPServer("capped", state=RedisState.from_url(redis_url, prefix=prefix))


@mcp.tool()
def echo(text: str) -> str:
    return text


mcp.run(transport="streamable-http", host="127.0.0.1", port=int(port), max_sessions_per_client=3, trusted_proxies=[])
