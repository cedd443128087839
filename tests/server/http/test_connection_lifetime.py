"""Over Streamable HTTP every session has a `Connection` of its own, as officially: a stateful
session's lasts as long as the session (its `session_id`, its `state` shared by its requests, its
`exit_stack` closed when the session ends, before its id answers 404), and a stateless request's
is its own, closed once it is answered. FastMCP keys stateful proxy clients and the cleanup of a
session's log level on it (`ServerSession._connection`)."""

from typing import Any

import anyio
import pytest
from httpkit import build_server, connect, legacy_headers, messages_of, open_session, text_of, tool_call

from mcp.server.connection import Connection
from mcp.server.mcpserver import Context

pytestmark = pytest.mark.anyio

IDLE = 0.3


def connection_server() -> tuple[Any, list[Connection], list[str]]:
    """A server whose `remember` tool counts its calls in the connection's `state` and registers
    a teardown that records the connection's session id (or "-") in `closed`."""
    mcp = build_server()
    seen: list[Connection] = []
    closed: list[str] = []

    @mcp.tool()
    async def remember(ctx: Context) -> str:
        connection = ctx.session.connection
        seen.append(connection)
        state = connection.state
        if "calls" not in state:
            state["calls"] = 0
            connection.exit_stack.callback(closed.append, connection.session_id or "-")
        state["calls"] += 1
        return f"{connection.session_id} {state['calls']}"

    return mcp, seen, closed


async def remember(client: Any, session_id: str | None, request_id: int) -> str:
    response = await client.post("/mcp", json=tool_call(request_id, "remember"), headers=legacy_headers(session_id))
    assert response.status_code == 200, response.text
    return text_of(messages_of(response)[0])


async def test_a_stateful_session_keeps_one_connection_named_by_its_id_until_deleted(wire: str) -> None:
    mcp, seen, closed = connection_server()
    with anyio.fail_after(20):
        async with connect(wire, mcp.streamable_http_app()) as client:
            first = await open_session(client)
            second = await open_session(client)
            assert await remember(client, first, 2) == f"{first} 1"
            assert await remember(client, first, 3) == f"{first} 2"
            assert await remember(client, second, 2) == f"{second} 1"
            assert seen[0] is seen[1] and seen[0] is not seen[2]
            assert closed == []
            deleted = await client.delete("/mcp", headers=legacy_headers(first))
            assert deleted.status_code == 200
            assert closed == [first]  # torn down before the DELETE is answered
    assert closed == [first, second]  # the rest when the app shuts down


async def test_an_idle_sessions_connection_is_torn_down_before_its_id_is_forgotten(wire: str) -> None:
    mcp, _seen, closed = connection_server()
    with anyio.fail_after(20):
        async with connect(wire, mcp.streamable_http_app(session_idle_timeout=IDLE)) as client:
            session_id = await open_session(client)
            await remember(client, session_id, 2)
            manager = mcp.session_manager
            while session_id in manager._server_instances:
                assert closed == []
                await anyio.sleep(IDLE / 10)
            assert closed == [session_id]


async def test_each_stateless_request_has_a_connection_of_its_own_closed_once_answered(wire: str) -> None:
    mcp, seen, closed = connection_server()
    with anyio.fail_after(20):
        async with connect(wire, mcp.streamable_http_app(stateless_http=True, json_response=True)) as client:
            assert await remember(client, None, 1) == "None 1"
            await closed_count(closed, 1)  # (the teardown may run just after the answer went out)
            assert await remember(client, None, 2) == "None 1"
            await closed_count(closed, 2)
            assert seen[0] is not seen[1]


async def closed_count(closed: list[str], count: int) -> None:
    while len(closed) < count:
        await anyio.sleep(0.01)
    assert closed == ["-"] * count

