from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Mount, Route

from mcp.server import MCPServer

mcp = MCPServer("Weather")


@mcp.tool()
def get_temperature(city: str) -> int:
    """Current temperature in a city, in whole degrees Celsius."""
    return {"London": 17, "Cairo": 34, "Reykjavik": 4}[city]


async def health(request: object) -> PlainTextResponse:
    return PlainTextResponse("ok")


# The MCP endpoint is /weather/mcp; no lifespan wiring is needed for it.
app = Starlette(routes=[Route("/health", health), Mount("/weather", app=mcp.streamable_http_app())])
