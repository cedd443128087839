"""A client that goes away mid-call: a session-less call is cancelled; a session's call runs on, as
officially (a disconnect is no cancellation; the client cancels with `notifications/cancelled`).
Either way the server keeps serving everyone else."""

from typing import Any

import anyio
import httpx
import pytest
from httpkit import (
    SSEStream,
    asgi_client,
    build_server,
    connect,
    legacy_headers,
    messages_of,
    modern_headers,
    modern_tool_call,
    notification,
    open_session,
    text_of,
    tool_call,
)

pytestmark = pytest.mark.anyio


async def call_then_hang_up(client: httpx.AsyncClient, probe: Any, message: dict[str, Any],
                            headers: dict[str, str]) -> None:
    """POST `message` (a call to the `block` tool) and drop the connection once it runs."""
    async with anyio.create_task_group() as tg:
        tg.start_soon(lambda: client.post("/mcp", json=message, headers=headers))
        await probe.started.wait()
        tg.cancel_scope.cancel()


@pytest.mark.parametrize("mode", ["sse", "json"])
async def test_a_sessions_call_outlives_its_clients_connection_until_cancelled(wire: str, mode: str) -> None:
    mcp = build_server()
    probe = mcp.probe
    with anyio.fail_after(20):
        async with connect(wire, mcp.streamable_http_app(json_response=mode == "json")) as client:
            session_id = await open_session(client)
            await call_then_hang_up(client, probe, tool_call(1, "block"), legacy_headers(session_id))
            response = await client.post("/mcp", json=tool_call(2, "echo", {"text": "next"}),
                                         headers=legacy_headers(session_id))
            assert text_of(messages_of(response)[-1]) == "next"
            assert not probe.cancelled.is_set()
            cancel = notification("notifications/cancelled", {"requestId": 1, "reason": "gone"})
            assert (await client.post("/mcp", json=cancel, headers=legacy_headers(session_id))).status_code == 202
            await probe.cancelled.wait()
            await probe.finished.wait()
            session = mcp.session_manager._sessions[session_id]
            assert session.server_session.peer._in_flight == {}
            assert not session.busy


@pytest.mark.parametrize("mode", ["stateless", "2026"])
async def test_a_client_that_disconnects_mid_session_less_call_cancels_the_handler(wire: str, mode: str) -> None:
    mcp = build_server()
    probe = mcp.probe
    options: dict[str, Any] = {"json_response": mode == "json", "stateless_http": mode == "stateless"}
    with anyio.fail_after(20):
        async with connect(wire, mcp.streamable_http_app(**options)) as client:
            if mode == "2026":
                message = modern_tool_call(1, "block")
                headers = modern_headers(message)
            else:
                message, headers = tool_call(1, "block"), legacy_headers()
            await call_then_hang_up(client, probe, message, headers)
            await probe.cancelled.wait()
            await probe.finished.wait()

            # the server still serves
            if mode == "2026":
                again = modern_tool_call(2, "echo", {"text": "next"})
                response = await client.post("/mcp", json=again, headers=modern_headers(again))
            else:
                response = await client.post("/mcp", json=tool_call(2, "echo", {"text": "next"}), headers=legacy_headers())
            assert text_of(messages_of(response)[-1]) == "next"


async def test_dropping_a_started_sse_response_does_not_cancel_the_sessions_call(wire: str) -> None:
    mcp = build_server()
    probe = mcp.probe
    with anyio.fail_after(20):
        async with connect(wire, mcp.streamable_http_app()) as client:
            session_id = await open_session(client)
            async with client.stream("POST", "/mcp", json=tool_call(1, "slow_steps", {"steps": 10, "pause": 0.05},
                                                                     progress_token=1),
                                     headers=legacy_headers(session_id)) as post, SSEStream(post) as stream:
                first = await stream.next_message()
                assert first is not None and first["method"] == "notifications/progress"
            await probe.finished.wait()
            assert not probe.cancelled.is_set()
            assert mcp.session_manager._sessions[session_id].server_session.peer._in_flight == {}


async def test_one_client_hanging_up_does_not_disturb_calls_of_other_clients(wire: str) -> None:
    mcp = build_server()
    probe = mcp.probe
    with anyio.fail_after(20):
        async with connect(wire, mcp.streamable_http_app()) as client:
            quitter = await open_session(client)
            stayer = await open_session(client)
            results: list[str] = []

            async def steady() -> None:
                response = await client.post("/mcp", json=tool_call(7, "progress", {"steps": 20}, progress_token=7),
                                             headers=legacy_headers(stayer))
                results.append(text_of(messages_of(response)[-1]))

            async with anyio.create_task_group() as tg:
                tg.start_soon(steady)
                await call_then_hang_up(client, probe, tool_call(1, "block"), legacy_headers(quitter))
            assert results == ["counted 20"]
            cancel = notification("notifications/cancelled", {"requestId": 1})
            assert (await client.post("/mcp", json=cancel, headers=legacy_headers(quitter))).status_code == 202
            await probe.cancelled.wait()


async def test_notifications_cancelled_cancels_a_legacy_call_and_ends_its_http_exchange(wire: str) -> None:
    mcp = build_server()
    probe = mcp.probe
    with anyio.fail_after(20):
        async with connect(wire, mcp.streamable_http_app()) as client:
            session_id = await open_session(client)
            responses: list[httpx.Response] = []

            async def call() -> None:
                responses.append(await client.post("/mcp", json=tool_call(5, "block"), headers=legacy_headers(session_id)))

            async with anyio.create_task_group() as tg:
                tg.start_soon(call)
                await probe.started.wait()
                cancel = notification("notifications/cancelled", {"requestId": 5, "reason": "changed my mind"})
                assert (await client.post("/mcp", json=cancel, headers=legacy_headers(session_id))).status_code == 202
            await probe.cancelled.wait()
            assert len(responses) == 1  # the exchange ended (with no result for the cancelled call)
            assert "result" not in responses[0].text


@pytest.mark.parametrize("anyio_backend", ["asyncio", "trio"])
@pytest.mark.parametrize("mode", ["sse", "json", "2026"])
async def test_an_asgi_server_that_raises_on_writes_after_a_disconnect_crashes_nothing(mode: str) -> None:
    """Some ASGI servers raise OSError on a write to a closed connection (uvicorn drops it): the
    endpoint must treat it as the client being gone, not fail the ASGI call (in-process only)."""
    mcp = build_server()
    probe = mcp.probe
    app = mcp.streamable_http_app(json_response=mode == "json")
    with anyio.fail_after(20):
        async with asgi_client(app, lifespan=True, raise_after_disconnect=True) as client:
            if mode == "2026":
                message = modern_tool_call(1, "slow_steps", {"steps": 30, "pause": 0.02}, progress_token=1)
                headers = modern_headers(message)
                follow_up = modern_tool_call(2, "echo", {"text": "fine"})
                follow_up_headers = modern_headers(follow_up)
            else:
                session_id = await open_session(client)
                message = tool_call(1, "slow_steps", {"steps": 30, "pause": 0.02}, progress_token=1)
                headers = follow_up_headers = legacy_headers(session_id)
                follow_up = tool_call(2, "echo", {"text": "fine"})
            async with anyio.create_task_group() as tg:
                tg.start_soon(lambda: client.post("/mcp", json=message, headers=headers))
                await probe.started.wait()
                await anyio.sleep(0.05)  # a few progress writes first (the 30 steps go on after the drop either way)
                tg.cancel_scope.cancel()
            await probe.finished.wait()
            ok = await client.post("/mcp", json=follow_up, headers=follow_up_headers)
            assert messages_of(ok)[-1]["result"]["content"][0]["text"] == "fine"
