"""Every connection a server serves (here in memory, as over stdio) has one `Connection`, as
officially: what `initialize` settled (version, client params), per-connection `state`, and an
`exit_stack` closed when the connection ends. `ServerSession._connection` is that object (FastMCP
reads it by that name)."""

from __future__ import annotations

import pytest

from mcp import Client
from mcp.server import MCPServer
from mcp.server.connection import Connection
from mcp.server.mcpserver import Context

pytestmark = pytest.mark.anyio


async def test_a_connection_lives_as_long_as_the_clients_connection_and_is_torn_down_at_its_end() -> None:
    mcp = MCPServer("per-connection")
    seen: list[Connection] = []
    closed: list[str] = []

    @mcp.tool()
    async def count(ctx: Context) -> int:
        connection = ctx.session.connection
        assert ctx.session._connection is connection  # pyright: ignore[reportPrivateUsage]
        seen.append(connection)
        if not connection.state:
            connection.state["calls"] = 0
            connection.exit_stack.callback(closed.append, "closed")
        connection.state["calls"] += 1
        return connection.state["calls"]

    async with Client(mcp, mode="legacy") as client:
        assert (await client.call_tool("count", {})).structured_content == {"result": 1}
        assert (await client.call_tool("count", {})).structured_content == {"result": 2}
        assert closed == []
        connection = seen[0]
        assert seen[1] is connection
        assert connection.session_id is None
        assert connection.initialized.is_set()
        params = connection.client_params
        assert params is not None and params.client_info.name == client.session.client_info.name
        assert connection.protocol_version == params.protocol_version
        assert connection.client_capabilities == params.capabilities
    assert closed == ["closed"]
    async with Client(mcp, mode="legacy") as client:
        assert (await client.call_tool("count", {})).structured_content == {"result": 1}  # a new connection
    assert seen[2] is not seen[0]
