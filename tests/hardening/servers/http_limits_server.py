"""A Streamable HTTP server run the way users run one (`mcp.run(transport="streamable-http")`),
with short connection timeouts for the limits tests: `python http_limits_server.py PORT`."""

from __future__ import annotations

import sys

from mcp.server import MCPServer

mcp = MCPServer("http-limits")


@mcp.tool()
def echo(text: str) -> str:
    return text


if __name__ == "__main__":
    mcp.run(transport="streamable-http", host="127.0.0.1", port=int(sys.argv[1]), json_response=True,
            stateless_http=True, header_timeout=1.0, body_timeout=1.0, max_header_size=16 * 1024)
