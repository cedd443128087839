"""One of our servers (mcpkit's MCPServer): a plain tool and one with structured output.

    python ours_server.py            # stdio
    python ours_server.py PORT       # Streamable HTTP on 127.0.0.1:PORT/mcp
"""

import sys

from pydantic import BaseModel

from mcp.server import MCPServer

app = MCPServer("Weather")


class Reading(BaseModel):
    city: str
    celsius: int


@app.tool()
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@app.tool()
def reading(city: str) -> Reading:
    """The current reading in a city."""
    return Reading(city=city, celsius={"Oslo": 4, "Cairo": 34}.get(city, 17))


if __name__ == "__main__":
    if len(sys.argv) > 1:
        app.run("streamable-http", host="127.0.0.1", port=int(sys.argv[1]))
    else:
        app.run()
