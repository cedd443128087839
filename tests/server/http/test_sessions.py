"""The session table is bounded: idle sessions are evicted after `session_idle_timeout`, and it never
holds more than `max_sessions` (least recently used idle sessions go first; 503 when every session
is busy). Requests sweep as they arrive, and while the app's lifespan runs a sweep every quarter of
the timeout ends idle sessions when no request comes (FastMCP watches `_server_instances` empty)."""

from typing import Any

import anyio
import pytest
from httpkit import (
    SSEStream,
    build_server,
    connect,
    initialize,
    legacy_headers,
    messages_of,
    open_session,
    text_of,
    tool_call,
)

from mcp.server.event_store import InMemoryEventStore

pytestmark = pytest.mark.anyio

IDLE = 0.3  # the idle timeout under test: the sleeps of 2 * IDLE below are the idleness itself


async def echo(client: Any, session_id: str, text: str = "ping") -> int:
    response = await client.post("/mcp", json=tool_call(1, "echo", {"text": text}), headers=legacy_headers(session_id))
    return int(response.status_code)


async def test_an_idle_session_is_evicted_while_other_sessions_keep_the_server_busy(wire: str) -> None:
    """Regression: idle sessions were only swept when a new session was created."""
    mcp = build_server()
    with anyio.fail_after(20):
        async with connect(wire, mcp.streamable_http_app(session_idle_timeout=IDLE)) as client:
            idle = await open_session(client)
            active = await open_session(client)
            deadline = anyio.current_time() + 3 * IDLE
            while anyio.current_time() < deadline:
                assert await echo(client, active) == 200
                await anyio.sleep(IDLE / 6)
            assert mcp.session_manager.session_count == 1
            assert await echo(client, idle) == 404
            assert await echo(client, active) == 200


async def test_an_idle_session_ends_on_time_with_no_request_to_sweep_it(wire: str) -> None:
    mcp = build_server()
    with anyio.fail_after(20):
        async with connect(wire, mcp.streamable_http_app(session_idle_timeout=IDLE)) as client:
            idle = await open_session(client)
            assert idle in mcp.session_manager._server_instances
            await anyio.sleep(3 * IDLE)
            assert mcp.session_manager._server_instances == {}
            assert await echo(client, idle) == 404


def test_a_session_idle_timeout_of_none_stays_none_as_officially() -> None:
    mcp = build_server()
    mcp.streamable_http_app(session_idle_timeout=None)
    assert mcp.session_manager.session_idle_timeout is None


async def test_a_session_with_an_open_get_stream_is_not_evicted(wire: str) -> None:
    mcp = build_server()
    with anyio.fail_after(20):
        async with connect(wire, mcp.streamable_http_app(session_idle_timeout=IDLE)) as client:
            listening = await open_session(client)
            async with client.stream("GET", "/mcp", headers=legacy_headers(listening, accept="text/event-stream")) as get:
                assert get.status_code == 200
                await anyio.sleep(2 * IDLE)
                await open_session(client)  # a request that sweeps
                assert listening in mcp.session_manager._sessions
            assert await echo(client, listening) == 200


async def test_a_long_call_does_not_get_its_session_evicted_right_after_it_answers(wire: str) -> None:
    """Regression: a session's last activity was the start of its last request, so a call longer
    than the idle timeout left a session that the next sweep evicted at once."""
    mcp = build_server()
    probe = mcp.probe
    with anyio.fail_after(20):
        async with connect(wire, mcp.streamable_http_app(session_idle_timeout=IDLE)) as client:
            session_id = await open_session(client)
            async with anyio.create_task_group() as tg:
                tg.start_soon(lambda: client.post("/mcp", json=tool_call(2, "block"), headers=legacy_headers(session_id)))
                await probe.started.wait()
                await anyio.sleep(2 * IDLE)
                await open_session(client)  # sweeps: the session is busy, so it stays
                assert session_id in mcp.session_manager._sessions
                probe.release.set()
            await open_session(client)  # sweeps again, right after the call (its start is 2 * IDLE ago)
            assert await echo(client, session_id) == 200


async def test_the_least_recently_used_idle_session_makes_room_for_a_new_one(wire: str) -> None:
    mcp = build_server()
    with anyio.fail_after(20):
        async with connect(wire, mcp.streamable_http_app(max_sessions=3)) as client:
            first, second, third = [await open_session(client) for _ in range(3)]
            assert await echo(client, first) == 200  # first is now the most recently used
            fourth = await open_session(client)
            assert mcp.session_manager.session_count == 3
            assert await echo(client, second) == 404
            for alive in (first, third, fourth):
                assert await echo(client, alive) == 200
            await open_session(client)
            assert await echo(client, first) == 404  # LRU again: first was used before third and fourth


async def test_when_every_session_is_busy_a_new_session_is_refused_with_503(wire: str) -> None:
    mcp = build_server()
    with anyio.fail_after(20):
        async with connect(wire, mcp.streamable_http_app(max_sessions=2)) as client:
            one, two = await open_session(client), await open_session(client)
            async with client.stream("GET", "/mcp", headers=legacy_headers(one, accept="text/event-stream")) as get_one:
                assert get_one.status_code == 200
                async with client.stream("GET", "/mcp", headers=legacy_headers(two, accept="text/event-stream")) as get_two:
                    assert get_two.status_code == 200
                    refused = await client.post("/mcp", json=initialize(9), headers=legacy_headers(version=None))
                    assert refused.status_code == 503
                    assert refused.json()["id"] == 9
                    assert "mcp-session-id" not in refused.headers
                    assert mcp.session_manager.session_count == 2
            with anyio.fail_after(5):
                while True:  # the GET streams end on the server shortly after the client closes them
                    response = await client.post("/mcp", json=initialize(10), headers=legacy_headers(version=None))
                    if response.status_code == 200:
                        break
                    await anyio.sleep(0.01)
            assert mcp.session_manager.session_count == 2


async def test_a_session_whose_client_vanished_mid_call_is_evicted_and_its_call_cancelled(wire: str) -> None:
    """Regression: with an event store a call outlives a dropped connection (the client may resume),
    and its in-flight request kept the session "busy" forever, safe from eviction."""
    mcp = build_server()
    probe = mcp.probe
    app = mcp.streamable_http_app(session_idle_timeout=IDLE, event_store=InMemoryEventStore())
    with anyio.fail_after(20):
        async with connect(wire, app) as client:
            session_id = await open_session(client)
            async with client.stream("POST", "/mcp", json=tool_call(2, "block"), headers=legacy_headers(session_id)) as post, \
                    SSEStream(post) as stream:
                await stream.next_event()  # the priming event
                await probe.started.wait()
            await probe.cancelled.wait()  # the lifespan's sweep, with no request to trigger it
            assert session_id not in mcp.session_manager._sessions


async def test_a_closed_session_table_is_empty_and_the_endpoint_keeps_working(wire: str) -> None:
    mcp = build_server()
    with anyio.fail_after(20):
        async with connect(wire, mcp.streamable_http_app()) as client:
            ids = [await open_session(client) for _ in range(3)]
            await mcp.session_manager.close()
            assert mcp.session_manager.session_count == 0
            assert await echo(client, ids[0]) == 404
            fresh = await open_session(client)
            response = await client.post("/mcp", json=tool_call(3, "echo", {"text": "again"}), headers=legacy_headers(fresh))
            assert text_of(messages_of(response)[-1]) == "again"


async def test_no_idle_timeout_and_no_session_bound_are_spelled_none(wire: str) -> None:
    mcp = build_server()
    with anyio.fail_after(20):
        async with connect(wire, mcp.streamable_http_app(session_idle_timeout=None, max_sessions=None)) as client:
            sessions = [await open_session(client) for _ in range(3)]
            assert all([await echo(client, session_id) == 200 for session_id in sessions])
            assert mcp.session_manager.session_count == 3


def test_the_app_factories_take_the_official_keyword_options_and_no_port() -> None:
    import inspect

    from mcp.server import MCPServer, Server

    shared = ["streamable_http_path", "json_response", "stateless_http", "event_store", "retry_interval",
              "max_request_body_size", "session_idle_timeout", "max_sessions", "transport_security", "host"]
    ours = ["max_sessions_per_client", "trusted_proxies"]  # beyond the official SDK, after its keywords
    assert list(inspect.signature(MCPServer.streamable_http_app).parameters)[1:] == [*shared, *ours]
    assert list(inspect.signature(Server.streamable_http_app).parameters)[1:] == [
        *shared, "auth", "token_verifier", "auth_server_provider", "custom_starlette_routes", "debug", *ours]
    with pytest.raises(TypeError, match="port"):
        MCPServer("x").streamable_http_app(port=8000)  # type: ignore[call-arg]
