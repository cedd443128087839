"""`logging` is declared where it is served: on handshake-era connections (where `logging/setLevel`
and log notifications work, and the spec says a server that sends them must declare it; the MCP
Inspector refuses to call `setLevel` without it), and not on the 2026-07-28 wire, where protocol
logging is deprecated."""

from __future__ import annotations

import pytest

from mcp import Client
from mcp.server import MCPServer

pytestmark = pytest.mark.anyio


def build() -> MCPServer:
    mcp = MCPServer("logs")

    @mcp.tool()
    def ping() -> str:
        return "pong"

    return mcp


@pytest.mark.filterwarnings("ignore:The logging capability is deprecated")
async def test_a_handshake_era_connection_is_told_the_server_logs() -> None:
    async with Client(build(), mode="legacy") as client:
        capabilities = client.session.server_capabilities
        assert capabilities is not None and capabilities.logging is not None
        await client.session.set_logging_level("info")  # deprecated as of 2026-07-28, still served here


async def test_the_2026_wire_does_not_advertise_deprecated_logging() -> None:
    async with Client(build(), mode="2026-07-28") as client:
        result = await client.session.send_discover("2026-07-28")
        assert "logging" not in result["capabilities"]
