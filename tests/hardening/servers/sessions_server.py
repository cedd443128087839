"""A stateful Streamable HTTP server allowing 3 sessions per client (clients connect directly:
`trusted_proxies=[]`, so an address is one client), with a 1 s keep-alive and a
16 KiB request-head limit, started either way users start one:
`python sessions_server.py PORT run` (`mcp.run(transport="streamable-http", ...)`) or
`python sessions_server.py PORT uvicorn` (their own `uvicorn.run(app, http=guarded_httptools(...))`)."""

from __future__ import annotations

import sys

from mcp.server import MCPServer

mcp = MCPServer("sessions")


@mcp.tool()
def echo(text: str) -> str:
    return text


if __name__ == "__main__":
    port, how = int(sys.argv[1]), sys.argv[2]
    if how == "run":
        mcp.run(transport="streamable-http", host="127.0.0.1", port=port, json_response=True,
                max_sessions_per_client=3, trusted_proxies=[], keep_alive_timeout=1.0, max_header_size=16 * 1024)
    else:
        import uvicorn

        from mcp.server.http_limits import HttpLimits, guarded_httptools

        app = mcp.streamable_http_app(json_response=True, max_sessions_per_client=3, trusted_proxies=[])
        uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", timeout_keep_alive=1,
                    http=guarded_httptools(HttpLimits(max_header_size=16 * 1024)))
