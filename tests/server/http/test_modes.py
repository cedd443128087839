"""Streamable HTTP server, raw HTTP: both protocol eras on one endpoint in every mode (stateful
SSE, stateful JSON, stateless), the standalone GET stream, and session lifecycle statuses.

Every test runs in-process (asyncio and trio) and against a real uvicorn on loopback (asyncio).
"""

import re

import anyio
import httpx
import pytest
from httpkit import (
    ACCEPT_BOTH,
    LEGACY,
    SSEStream,
    build_server,
    connect,
    initialize,
    legacy_headers,
    messages_of,
    modern,
    modern_headers,
    modern_tool_call,
    notification,
    open_session,
    request,
    text_of,
    tool_call,
)

pytestmark = pytest.mark.anyio

VISIBLE_ASCII = re.compile(r"^[\x21-\x7E]+$")


def assert_sse_headers(response: httpx.Response) -> None:
    assert response.headers["content-type"].startswith("text/event-stream")
    assert "no-cache" in response.headers["cache-control"]
    assert response.headers["x-accel-buffering"] == "no"


def assert_json(response: httpx.Response) -> None:
    assert response.headers["content-type"].startswith("application/json")


# -- stateful, SSE allowed (the default) ---------------------------------------------------------------


async def test_a_stateful_server_opens_a_session_with_a_visible_ascii_id_and_answers_every_call_as_sse(wire: str) -> None:
    """As officially (json_response=False): even a lone answer goes out as an SSE stream, which
    names the session."""
    mcp = build_server()
    with anyio.fail_after(20):
        async with connect(wire, mcp.streamable_http_app()) as client:
            response = await client.post("/mcp", json=initialize(), headers=legacy_headers(version=None))
            assert response.status_code == 200
            assert_sse_headers(response)
            session_id = response.headers["mcp-session-id"]
            assert VISIBLE_ASCII.match(session_id)
            result = messages_of(response)[-1]["result"]
            assert result["protocolVersion"] == LEGACY
            assert result["serverInfo"]["name"] == "http-test"

            initialized = await client.post("/mcp", json=notification("notifications/initialized"),
                                            headers=legacy_headers(session_id))
            assert initialized.status_code == 202
            assert initialized.content == b""

            call = await client.post("/mcp", json=tool_call(2, "echo", {"text": "hi"}), headers=legacy_headers(session_id))
            assert call.status_code == 200
            assert_sse_headers(call)
            assert call.headers["mcp-session-id"] == session_id
            assert messages_of(call)[-1]["id"] == 2
            assert text_of(messages_of(call)[-1]) == "hi"
            assert "resultType" not in messages_of(call)[-1]["result"]  # not part of 2025-11-25


async def test_a_call_that_reports_progress_is_answered_with_an_unbuffered_sse_stream(wire: str) -> None:
    mcp = build_server()
    with anyio.fail_after(20):
        async with connect(wire, mcp.streamable_http_app()) as client:
            session_id = await open_session(client)
            response = await client.post("/mcp", json=tool_call(3, "progress", {"steps": 2}, progress_token="p"),
                                         headers=legacy_headers(session_id))
            assert response.status_code == 200
            assert_sse_headers(response)
            messages = messages_of(response)
            assert [m.get("method") for m in messages] == ["notifications/progress"] * 2 + [None]
            assert [m["params"]["progress"] for m in messages[:2]] == [1, 2]
            assert all(m["params"]["progressToken"] == "p" for m in messages[:2])
            assert text_of(messages[-1]) == "counted 2"


async def test_the_2026_wire_is_served_on_the_same_endpoint_without_a_session(wire: str) -> None:
    mcp = build_server()
    with anyio.fail_after(20):
        async with connect(wire, mcp.streamable_http_app()) as client:
            await open_session(client)  # a handshake-era session exists alongside
            call = modern_tool_call(7, "echo", {"text": "modern"})
            response = await client.post("/mcp", json=call, headers=modern_headers(call))
            assert response.status_code == 200
            assert_json(response)
            assert "mcp-session-id" not in response.headers
            result = messages_of(response)[-1]["result"]
            assert result["resultType"] == "complete"
            assert result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "http-test"
            assert result["content"][0]["text"] == "modern"

            streamed = modern_tool_call(8, "progress", {"steps": 2}, progress_token=5)
            response = await client.post("/mcp", json=streamed, headers=modern_headers(streamed))
            assert response.status_code == 200
            assert_sse_headers(response)
            assert "mcp-session-id" not in response.headers
            messages = messages_of(response)
            assert [m.get("method") for m in messages] == ["notifications/progress"] * 2 + [None]
            assert messages[-1]["result"]["resultType"] == "complete"

            discover = modern(9, "server/discover")
            response = await client.post("/mcp", json=discover, headers=modern_headers(discover))
            assert response.status_code == 200
            assert "2026-07-28" in messages_of(response)[-1]["result"]["supportedVersions"]


# -- stateful, JSON responses only ---------------------------------------------------------------------


async def test_a_json_response_server_answers_with_one_json_body_and_drops_the_calls_progress(wire: str) -> None:
    """As officially: a JSON body carries only the answer; what relates to the call has no wire."""
    mcp = build_server()
    with anyio.fail_after(20):
        async with connect(wire, mcp.streamable_http_app(json_response=True)) as client:
            session_id = await open_session(client)
            response = await client.post("/mcp", json=tool_call(3, "progress", {"steps": 2}, progress_token="t"),
                                         headers=legacy_headers(session_id))
            assert response.status_code == 200
            assert_json(response)
            assert text_of(messages_of(response)[-1]) == "counted 2"

            modern_call = modern_tool_call(4, "progress", {"steps": 2}, progress_token="m")
            response = await client.post("/mcp", json=modern_call, headers=modern_headers(modern_call))
            assert response.status_code == 200
            assert_json(response)
            assert messages_of(response)[-1]["result"]["resultType"] == "complete"


async def test_a_json_response_server_refuses_a_client_that_accepts_only_sse(wire: str) -> None:
    mcp = build_server()
    with anyio.fail_after(20):
        async with connect(wire, mcp.streamable_http_app(json_response=True)) as client:
            response = await client.post("/mcp", json=initialize(),
                                         headers=legacy_headers(version=None, accept="text/event-stream"))
            assert response.status_code == 406
            assert response.json()["error"]["code"] == -32600
            assert mcp.session_manager.session_count == 0


# -- stateless ---------------------------------------------------------------------------------------


async def test_a_stateless_server_answers_both_eras_without_sessions_and_refuses_get_and_delete(wire: str) -> None:
    mcp = build_server()
    with anyio.fail_after(20):
        async with connect(wire, mcp.streamable_http_app(stateless_http=True)) as client:
            response = await client.post("/mcp", json=initialize(), headers=legacy_headers(version=None))
            assert response.status_code == 200
            assert "mcp-session-id" not in response.headers
            assert messages_of(response)[-1]["result"]["protocolVersion"] == LEGACY

            call = await client.post("/mcp", json=tool_call(2, "echo", {"text": "no session"}), headers=legacy_headers())
            assert call.status_code == 200
            assert "mcp-session-id" not in call.headers
            assert text_of(messages_of(call)[-1]) == "no session"

            streamed = await client.post("/mcp", json=tool_call(3, "progress", {"steps": 1}, progress_token=1),
                                         headers=legacy_headers())
            assert_sse_headers(streamed)
            assert text_of(messages_of(streamed)[-1]) == "counted 1"

            modern_call = modern_tool_call(4, "echo", {"text": "modern"})
            response = await client.post("/mcp", json=modern_call, headers=modern_headers(modern_call))
            assert response.status_code == 200
            assert "mcp-session-id" not in response.headers
            assert messages_of(response)[-1]["result"]["resultType"] == "complete"

            get = await client.get("/mcp", headers={"accept": "text/event-stream"})
            assert get.status_code == 405
            delete = await client.delete("/mcp", headers={"mcp-session-id": "anything"})
            assert delete.status_code == 405
            assert mcp.session_manager.session_count == 0


async def test_on_a_stateless_server_one_clients_log_level_does_not_silence_another_client(wire: str) -> None:
    """Regression: stateless requests shared one ServerSession, so `logging/setLevel` from one
    client changed the log threshold of every other client."""
    mcp = build_server()
    with anyio.fail_after(20):
        async with connect(wire, mcp.streamable_http_app(stateless_http=True)) as client:
            quiet = await client.post("/mcp", json=request(1, "logging/setLevel", {"level": "error"}),
                                      headers=legacy_headers())
            assert quiet.status_code == 200
            response = await client.post("/mcp", json=tool_call(2, "log_info"), headers=legacy_headers())
            messages = messages_of(response)
            assert [m.get("method") for m in messages] == ["notifications/message", None]
            assert messages[0]["params"]["data"] == "hello from the tool"


async def test_concurrent_stateless_requests_with_the_same_id_are_all_answered(wire: str) -> None:
    mcp = build_server()
    with anyio.fail_after(20):
        async with connect(wire, mcp.streamable_http_app(stateless_http=True)) as client:
            answers: list[str] = []

            async def call(text: str) -> None:
                message = modern_tool_call(1, "progress", {"steps": 3}, progress_token=text)
                response = await client.post("/mcp", json=message, headers=modern_headers(message))
                answers.append(text_of(messages_of(response)[-1]))

            async with anyio.create_task_group() as tg:
                for n in range(8):
                    tg.start_soon(call, f"c{n}")
            assert answers == ["counted 3"] * 8


# -- the standalone GET stream -------------------------------------------------------------------------


async def test_a_notification_related_to_no_request_stays_off_the_calls_sse_response(wire: str) -> None:
    """As officially: a list-changed notification names no request, so it is for the GET stream."""
    mcp = build_server()
    with anyio.fail_after(20):
        async with connect(wire, mcp.streamable_http_app()) as client:
            session_id = await open_session(client)
            response = await client.post("/mcp", json=tool_call(2, "notify"), headers=legacy_headers(session_id))
            assert_sse_headers(response)
            messages = messages_of(response)
            assert len(messages) == 1
            assert text_of(messages[0]) == "notified"


async def test_the_get_stream_delivers_notifications_that_cannot_go_on_the_post(wire: str) -> None:
    mcp = build_server()
    with anyio.fail_after(20):
        async with connect(wire, mcp.streamable_http_app(json_response=True)) as client:
            session_id = await open_session(client)
            async with client.stream("GET", "/mcp", headers=legacy_headers(session_id, accept="text/event-stream")) as get, SSEStream(get) as stream:
                assert get.status_code == 200
                assert_sse_headers(get)
                assert get.headers["mcp-session-id"] == session_id
                response = await client.post("/mcp", json=tool_call(2, "notify"), headers=legacy_headers(session_id))
                assert messages_of(response)[-1]["result"]["content"][0]["text"] == "notified"
                assert_json(response)
                assert await stream.next_message() == {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}


async def test_notifications_sent_before_the_get_stream_opens_wait_for_it(wire: str) -> None:
    mcp = build_server()
    with anyio.fail_after(20):
        async with connect(wire, mcp.streamable_http_app(json_response=True)) as client:
            session_id = await open_session(client)
            response = await client.post("/mcp", json=tool_call(2, "notify"), headers=legacy_headers(session_id))
            assert response.status_code == 200
            async with client.stream("GET", "/mcp", headers=legacy_headers(session_id, accept="text/event-stream")) as get, SSEStream(get) as stream:
                message = await stream.next_message()
                assert message == {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}


async def test_a_handler_can_close_the_get_stream_and_what_follows_waits_for_the_next_one(wire: str) -> None:
    mcp = build_server()
    with anyio.fail_after(20):
        async with connect(wire, mcp.streamable_http_app(json_response=True)) as client:
            session_id = await open_session(client)
            headers = legacy_headers(session_id, accept="text/event-stream")
            async with client.stream("GET", "/mcp", headers=headers) as get, SSEStream(get) as stream:
                response = await client.post("/mcp", json=tool_call(2, "end_get_stream"), headers=legacy_headers(session_id))
                assert text_of(messages_of(response)[-1]) == "closed"
                assert await stream.rest() == []  # closed by the handler
            with anyio.fail_after(5):
                while True:  # reopen (the old stream's exchange ends on the server shortly after)
                    async with client.stream("GET", "/mcp", headers=headers) as get, SSEStream(get) as stream:
                        if get.status_code == 200:
                            message = await stream.next_message()
                            break
                    await anyio.sleep(0.01)
            assert message == {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}


async def test_only_one_get_stream_per_session_is_allowed(wire: str) -> None:
    mcp = build_server()
    with anyio.fail_after(20):
        async with connect(wire, mcp.streamable_http_app()) as client:
            session_id = await open_session(client)
            headers = legacy_headers(session_id, accept="text/event-stream")
            async with client.stream("GET", "/mcp", headers=headers) as first:
                assert first.status_code == 200
                second = await client.get("/mcp", headers=headers)
                assert second.status_code == 409
                assert second.json()["error"]["code"] == -32600
            # once the first stream is gone, a new one may open
            with anyio.fail_after(5):
                while True:
                    async with client.stream("GET", "/mcp", headers=headers) as again:
                        if again.status_code == 200:
                            break
                    await anyio.sleep(0.01)


async def test_deleting_a_session_ends_it_and_its_get_stream(wire: str) -> None:
    mcp = build_server()
    with anyio.fail_after(20):
        async with connect(wire, mcp.streamable_http_app()) as client:
            session_id = await open_session(client)
            other = await open_session(client)
            async with client.stream("GET", "/mcp", headers=legacy_headers(session_id, accept="text/event-stream")) as get, SSEStream(get) as stream:
                delete = await client.delete("/mcp", headers=legacy_headers(session_id))
                assert delete.status_code == 200
                assert await stream.rest() == []  # the stream ends
            assert mcp.session_manager.session_count == 1

            after = await client.post("/mcp", json=tool_call(3, "echo", {"text": "x"}), headers=legacy_headers(session_id))
            assert after.status_code == 404
            assert after.json()["error"]["message"] == "Session not found"
            assert (await client.get("/mcp", headers=legacy_headers(session_id, accept="text/event-stream"))).status_code == 404
            assert (await client.delete("/mcp", headers=legacy_headers(session_id))).status_code == 404

            still = await client.post("/mcp", json=tool_call(4, "echo", {"text": "alive"}), headers=legacy_headers(other))
            assert text_of(messages_of(still)[-1]) == "alive"


async def test_an_unknown_session_is_404_and_a_missing_session_id_is_400(wire: str) -> None:
    mcp = build_server()
    with anyio.fail_after(20):
        async with connect(wire, mcp.streamable_http_app()) as client:
            await open_session(client)
            call = tool_call(5, "echo", {"text": "x"})
            unknown = legacy_headers("no-such-session")
            missing = legacy_headers()
            response = await client.post("/mcp", json=call, headers=unknown)
            assert response.status_code == 404
            assert response.json() == {"jsonrpc": "2.0", "id": None,  # as officially (the troubleshooting page)
                                       "error": {"code": -32600, "message": "Session not found"}}
            assert (await client.get("/mcp", headers={**unknown, "accept": "text/event-stream"})).status_code == 404
            assert (await client.delete("/mcp", headers=unknown)).status_code == 404

            response = await client.post("/mcp", json=call, headers=missing)
            assert response.status_code == 400
            assert response.json() == {"jsonrpc": "2.0", "id": None,  # as officially
                                       "error": {"code": -32600, "message": "Bad Request: Missing session ID"}}
            assert (await client.get("/mcp", headers={**missing, "accept": "text/event-stream"})).status_code == 400
            assert (await client.delete("/mcp", headers=missing)).status_code == 400


async def test_an_unknown_protocol_version_header_is_the_2026_entrys_to_refuse(wire: str) -> None:
    """As officially: only handshake-era versions (or none) reach the session transport; a request
    under any other version without the 2026-07-28 envelope fails its first rung (-32602), and
    that entry serves POST only."""
    mcp = build_server()
    with anyio.fail_after(20):
        async with connect(wire, mcp.streamable_http_app()) as client:
            session_id = await open_session(client)
            headers = legacy_headers(session_id, version="1999-01-01")
            response = await client.post("/mcp", json=tool_call(6, "echo", {"text": "x"}), headers=headers)
            assert response.status_code == 400
            assert response.json()["id"] == 6
            assert response.json()["error"]["code"] == -32602
            get = await client.get("/mcp", headers={**headers, "accept": "text/event-stream"})
            assert get.status_code == 405
            assert (await client.delete("/mcp", headers=headers)).status_code == 405
            # the session is still there
            ok = await client.post("/mcp", json=tool_call(7, "echo", {"text": "ok"}), headers=legacy_headers(session_id))
            assert text_of(messages_of(ok)[-1]) == "ok"


async def test_get_needs_an_sse_accept_header_and_other_methods_are_405(wire: str) -> None:
    mcp = build_server()
    with anyio.fail_after(20):
        async with connect(wire, mcp.streamable_http_app()) as client:
            session_id = await open_session(client)
            no_accept = await client.get("/mcp", headers={"mcp-session-id": session_id, "accept": ""})
            assert no_accept.status_code == 406
            json_only = await client.get("/mcp", headers={"mcp-session-id": session_id, "accept": "application/json"})
            assert json_only.status_code == 406
            put = await client.put("/mcp", content=b"{}", headers={"content-type": "application/json"})
            assert put.status_code == 405
            modern_get = await client.get("/mcp", headers={"accept": ACCEPT_BOTH, "mcp-protocol-version": "2026-07-28"})
            assert modern_get.status_code == 405


async def test_initialize_on_an_existing_session_is_served_on_that_session(wire: str) -> None:
    """As officially: the second initialize is answered as a fresh handshake, no new session."""
    mcp = build_server()
    with anyio.fail_after(20):
        async with connect(wire, mcp.streamable_http_app()) as client:
            session_id = await open_session(client)
            response = await client.post("/mcp", json=initialize(9), headers=legacy_headers(session_id, version=None))
            assert response.status_code == 200
            assert messages_of(response)[-1]["id"] == 9
            assert mcp.session_manager.session_count == 1


@pytest.mark.parametrize("accept", [ACCEPT_BOTH])
@pytest.mark.parametrize("resumable", [False, True])
async def test_a_failed_initialize_leaves_no_session_behind_and_names_none(wire: str, accept: str, resumable: bool) -> None:
    """Regression: the error answering a failed initialize carried an Mcp-Session-Id that had
    already been discarded."""
    from mcp.server.event_store import InMemoryEventStore

    mcp = build_server()
    app = mcp.streamable_http_app(event_store=InMemoryEventStore() if resumable else None)
    with anyio.fail_after(20):
        async with connect(wire, app) as client:
            response = await client.post("/mcp", json=request(1, "initialize", {"capabilities": {}}),
                                         headers=legacy_headers(version=None, accept=accept))
            assert response.status_code == 200
            assert "mcp-session-id" not in response.headers
            assert messages_of(response)[-1]["error"]["code"] == -32602
            assert mcp.session_manager.session_count == 0
            ok = await client.post("/mcp", json=initialize(), headers=legacy_headers(version=None, accept=accept))
            assert VISIBLE_ASCII.match(ok.headers["mcp-session-id"])
