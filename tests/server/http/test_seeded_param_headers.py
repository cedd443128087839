"""A caller that seeds `ClientSession._x_mcp_header_maps` (the official private FastMCP's proxy
fills from a backend tool's schema) gets the `Mcp-Param-*` headers on a 2026-07-28 `tools/call`
of a tool its session never listed, so the server accepts the call; unseeded, the server refuses
it as officially. Real uvicorn, real client."""

from __future__ import annotations

from typing import Annotated, Any

import pytest
from httpkit import uvicorn_server
from pydantic import Field

from mcp import Client
from mcp.server import MCPServer
from mcp.shared.exceptions import MCPError
from mcp.shared.inbound import x_mcp_header_map

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def build() -> MCPServer:
    mcp = MCPServer("regions")

    @mcp.tool()
    def route(region: Annotated[str, Field(json_schema_extra={"x-mcp-header": "Region"})]) -> str:
        return f"routed to {region}"

    return mcp


async def test_a_seeded_header_map_mirrors_the_argument_of_a_tool_never_listed() -> None:
    mcp = build()
    schema: Any = mcp._tools["route"].parameters
    async with uvicorn_server(mcp.streamable_http_app()) as base, Client(f"{base}/mcp", mode="2026-07-28") as client:
        client.session._x_mcp_header_maps["route"] = x_mcp_header_map(schema)
        result = await client.session.call_tool("route", {"region": "eu-west"})
    assert result.content[0].text == "routed to eu-west"


async def test_an_unseeded_call_of_a_tool_never_listed_is_refused_by_the_server() -> None:
    async with uvicorn_server(build().streamable_http_app()) as base, Client(f"{base}/mcp", mode="2026-07-28") as client:
        assert client.session._x_mcp_header_maps == {}
        with pytest.raises(MCPError, match="Mcp-Param-Region"):
            await client.session.call_tool("route", {"region": "eu-west"})
