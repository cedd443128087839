"""Resumable POST streams (event store): SSE polling with `close_sse_stream()`, a dropped
connection resumed with GET + `Last-Event-ID`, and who may resume what."""

from typing import Any, cast

import anyio
import pytest
from httpkit import (
    SSEStream,
    build_server,
    connect,
    legacy_headers,
    messages_of,
    open_session,
    sse_events,
    text_of,
    tool_call,
)
from pydantic import BaseModel

from mcp.server.event_store import InMemoryEventStore
from mcp.server.streamable_http import EventCallback, EventMessage, EventStore
from mcp.types import JSONRPCMessage, JSONRPCResponse, jsonrpc_message_adapter

pytestmark = pytest.mark.anyio


def resumable_app(mcp: object, store: EventStore | None = None) -> object:
    store = store if store is not None else InMemoryEventStore()
    return mcp.streamable_http_app(event_store=store, retry_interval=100)  # type: ignore[attr-defined]


class AnswerWatchingStore(InMemoryEventStore):
    """An in-memory event store that sets `answered` once it has stored the answer to request
    `request_id`: the moment that request has finished, as far as a resuming client can tell."""

    def __init__(self, request_id: int) -> None:
        super().__init__()
        self.request_id = request_id
        self.answered = anyio.Event()

    async def store_event(self, stream_id: str, message: Any) -> str:
        event_id = await super().store_event(stream_id, message)
        wire = cast("dict[str, Any]", message) if isinstance(message, dict) else {}
        if wire.get("id") == self.request_id and ("result" in wire or "error" in wire):
            self.answered.set()
        return event_id


def resume_headers(session_id: str, last_event_id: str) -> dict[str, str]:
    return {**legacy_headers(session_id, accept="text/event-stream"), "last-event-id": last_event_id}


async def test_a_handler_that_closes_its_stream_is_resumed_with_get_and_last_event_id(wire: str) -> None:
    mcp = build_server()
    with anyio.fail_after(20):
        async with connect(wire, resumable_app(mcp)) as client:
            session_id = await open_session(client)
            async with client.stream("POST", "/mcp", json=tool_call(2, "reconnect", progress_token="r"),
                                     headers=legacy_headers(session_id)) as post, SSEStream(post) as stream:
                assert post.headers["content-type"].startswith("text/event-stream")
                priming = await stream.next_event()
                assert priming is not None
                assert priming.id is not None and priming.data == "" and priming.retry == 100
                before = await stream.next_message()
                assert before is not None and before["params"]["message"] == "before"
                assert await stream.next_message() is None  # closed before the result
                last_event_id = stream.last_event_id
            assert last_event_id is not None and last_event_id != priming.id

            async with client.stream("GET", "/mcp", headers=resume_headers(session_id, last_event_id)) as get, \
                    SSEStream(get) as resumed:
                assert get.status_code == 200
                rest = await resumed.rest()
            assert [m.get("method") for m in rest] == ["notifications/progress", None]
            assert rest[0]["params"]["message"] == "after"
            assert rest[1]["id"] == 2
            assert text_of(rest[1]) == "reconnected"


async def test_a_handler_may_close_its_stream_several_times_and_each_resumption_continues(wire: str) -> None:
    mcp = build_server()
    with anyio.fail_after(20):
        async with connect(wire, resumable_app(mcp)) as client:
            session_id = await open_session(client)
            async with client.stream("POST", "/mcp", json=tool_call(2, "reconnect", {"pause": 0.2, "polls": 2},
                                                                     progress_token="r"),
                                     headers=legacy_headers(session_id)) as post, SSEStream(post) as stream:
                seen = [m["params"]["message"] for m in await stream.rest()]
                last_event_id = stream.last_event_id
            assert seen == ["before"]
            assert last_event_id is not None
            async with client.stream("GET", "/mcp", headers=resume_headers(session_id, last_event_id)) as get, \
                    SSEStream(get) as resumed:
                seen = [m["params"]["message"] for m in await resumed.rest()]
                last_event_id = resumed.last_event_id
            assert seen == ["poll 1"]
            assert last_event_id is not None
            async with client.stream("GET", "/mcp", headers=resume_headers(session_id, last_event_id)) as get, \
                    SSEStream(get) as resumed:
                rest = await resumed.rest()
            assert rest[0]["params"]["message"] == "after"
            assert text_of(rest[-1]) == "reconnected"
            session = mcp.session_manager._sessions[session_id]
            with anyio.fail_after(5):
                while session.busy:  # every exchange has ended on the server
                    await anyio.sleep(0.01)


async def test_resuming_after_the_request_finished_replays_the_missed_events_and_the_result(wire: str) -> None:
    mcp = build_server()
    store = AnswerWatchingStore(request_id=2)
    with anyio.fail_after(20):
        async with connect(wire, resumable_app(mcp, store)) as client:
            session_id = await open_session(client)
            async with client.stream("POST", "/mcp", json=tool_call(2, "reconnect", {"pause": 0.01}, progress_token=1),
                                     headers=legacy_headers(session_id)) as post, SSEStream(post) as stream:
                await stream.rest()
                last_event_id = stream.last_event_id
            assert last_event_id is not None
            await store.answered.wait()  # the handler has finished meanwhile
            response = await client.get("/mcp", headers=resume_headers(session_id, last_event_id))
            assert response.status_code == 200
            messages = messages_of(response)
            assert messages[0]["params"]["message"] == "after"
            assert text_of(messages[-1]) == "reconnected"


async def test_a_dropped_connection_keeps_the_call_running_and_resumes_where_it_stopped(wire: str) -> None:
    mcp = build_server()
    with anyio.fail_after(20):
        async with connect(wire, resumable_app(mcp)) as client:
            session_id = await open_session(client)
            async with client.stream("POST", "/mcp", json=tool_call(2, "slow_steps", {"steps": 4, "pause": 0.1},
                                                                     progress_token="d"),
                                     headers=legacy_headers(session_id)) as post, SSEStream(post) as stream:
                first = await stream.next_message()
                assert first is not None and first["params"]["progress"] == 1
                last_event_id = stream.last_event_id
            # the client dropped the connection mid-call
            assert last_event_id is not None
            async with client.stream("GET", "/mcp", headers=resume_headers(session_id, last_event_id)) as get, \
                    SSEStream(get) as resumed:
                rest = await resumed.rest()
            assert [m["params"]["progress"] for m in rest[:-1]] == [2, 3, 4]
            assert text_of(rest[-1]) == "done slowly"


async def test_a_resumed_stream_that_drops_again_can_be_resumed_again(wire: str) -> None:
    mcp = build_server()
    with anyio.fail_after(20):
        async with connect(wire, resumable_app(mcp)) as client:
            session_id = await open_session(client)
            async with client.stream("POST", "/mcp", json=tool_call(2, "slow_steps", {"steps": 5, "pause": 0.1},
                                                                     progress_token="x"),
                                     headers=legacy_headers(session_id)) as post, SSEStream(post) as stream:
                await stream.next_message()
                last_event_id = stream.last_event_id
            assert last_event_id is not None
            async with client.stream("GET", "/mcp", headers=resume_headers(session_id, last_event_id)) as get, \
                    SSEStream(get) as resumed:
                second = await resumed.next_message()
                assert second is not None and second["params"]["progress"] == 2
                last_event_id = resumed.last_event_id
            assert last_event_id is not None
            async with client.stream("GET", "/mcp", headers=resume_headers(session_id, last_event_id)) as get, \
                    SSEStream(get) as resumed:
                rest = await resumed.rest()
            assert [m["params"]["progress"] for m in rest[:-1]] == [3, 4, 5]
            assert text_of(rest[-1]) == "done slowly"


async def test_a_session_cannot_resume_another_sessions_stream(wire: str) -> None:
    """Regression: event ids are sequential, and any session could replay (and take over) any
    other session's response stream by guessing one."""
    mcp = build_server()
    with anyio.fail_after(20):
        async with connect(wire, resumable_app(mcp)) as client:
            owner = await open_session(client)
            intruder = await open_session(client)
            async with client.stream("POST", "/mcp", json=tool_call(2, "reconnect", {"pause": 0.3}, progress_token=1),
                                     headers=legacy_headers(owner)) as post, SSEStream(post) as stream:
                await stream.rest()
                last_event_id = stream.last_event_id
            assert last_event_id is not None
            stolen = await client.get("/mcp", headers=resume_headers(intruder, last_event_id))
            assert stolen.status_code == 200  # as for an unknown id: an empty stream
            assert messages_of(stolen) == []
            mine = await client.get("/mcp", headers=resume_headers(owner, last_event_id))
            assert text_of(messages_of(mine)[-1]) == "reconnected"


async def test_an_unknown_last_event_id_gets_an_empty_stream(wire: str) -> None:
    """As officially: nothing to replay, and nothing to attach to."""
    mcp = build_server()
    with anyio.fail_after(20):
        async with connect(wire, resumable_app(mcp)) as client:
            session_id = await open_session(client)
            for bad in ("999999", "not-a-number"):
                response = await client.get("/mcp", headers=resume_headers(session_id, bad))
                assert response.status_code == 200
                assert response.headers["content-type"].startswith("text/event-stream")
                assert response.content == b""


async def test_resumption_streams_do_not_count_as_the_sessions_get_stream(wire: str) -> None:
    mcp = build_server()
    with anyio.fail_after(20):
        async with connect(wire, resumable_app(mcp)) as client:
            session_id = await open_session(client)
            async with client.stream("GET", "/mcp", headers=legacy_headers(session_id, accept="text/event-stream")) as get:
                assert get.status_code == 200
                async with client.stream("POST", "/mcp", json=tool_call(2, "reconnect", progress_token=1),
                                         headers=legacy_headers(session_id)) as post, SSEStream(post) as stream:
                    await stream.rest()
                    last_event_id = stream.last_event_id
                assert last_event_id is not None
                resumed = await client.get("/mcp", headers=resume_headers(session_id, last_event_id))
                assert resumed.status_code == 200
                assert text_of(messages_of(resumed)[-1]) == "reconnected"


async def test_a_client_that_accepts_only_json_is_refused_by_an_sse_server(wire: str) -> None:
    """As officially: unless `json_response=True`, the client must accept both types."""
    mcp = build_server()
    with anyio.fail_after(20):
        async with connect(wire, resumable_app(mcp)) as client:
            session_id = await open_session(client)
            response = await client.post("/mcp", json=tool_call(2, "echo", {"text": "j"}),
                                         headers=legacy_headers(session_id, accept="application/json"))
            assert response.status_code == 406


async def test_a_stateless_server_ignores_the_event_store_and_cancels_on_disconnect(wire: str) -> None:
    """There is no session to resume into, so the stream is a plain one (no priming event) and a
    client that goes away cancels the call."""
    mcp = build_server()
    probe = mcp.probe
    app = mcp.streamable_http_app(stateless_http=True, event_store=InMemoryEventStore(), retry_interval=100)
    with anyio.fail_after(20):
        async with connect(wire, app) as client:
            response = await client.post("/mcp", json=tool_call(1, "progress", {"steps": 1}, progress_token=1),
                                         headers=legacy_headers())
            assert all(event.id is None for event in sse_events(response.content))
            async with anyio.create_task_group() as tg:
                tg.start_soon(lambda: client.post("/mcp", json=tool_call(2, "block"), headers=legacy_headers()))
                await probe.started.wait()
                tg.cancel_scope.cancel()  # the client goes away mid-call
            await probe.cancelled.wait()


async def test_without_an_event_store_closing_the_stream_is_a_no_op_and_the_answer_still_arrives(wire: str) -> None:
    """Regression: without an event store `close_sse_stream()` still ended a started SSE response:
    the client could not resume, and the disconnect that followed cancelled the call."""
    mcp = build_server()
    with anyio.fail_after(20):
        async with connect(wire, mcp.streamable_http_app()) as client:
            session_id = await open_session(client)
            response = await client.post("/mcp", json=tool_call(2, "reconnect", {"pause": 0.05}, progress_token="n"),
                                         headers=legacy_headers(session_id))
            messages = messages_of(response)
            assert [m["params"]["message"] for m in messages[:-1]] == ["before", "after"]
            assert text_of(messages[-1]) == "reconnected"


class JsonTextStore(EventStore):
    """An event store written to the official contract: it is given `JSONRPCMessage` models and
    keeps their JSON text (`model_dump_json`), handing models back on replay."""

    def __init__(self) -> None:
        self.rows: list[tuple[str, str | None]] = []
        self.given: list[object] = []

    async def store_event(self, stream_id: str, message: JSONRPCMessage | None) -> str:
        self.given.append(message)
        self.rows.append((stream_id, None if message is None else message.model_dump_json(by_alias=True,
                                                                                           exclude_unset=True)))
        return str(len(self.rows))

    async def replay_events_after(self, last_event_id: str, send_callback: EventCallback) -> str | None:
        if not last_event_id.isdigit() or not 0 < int(last_event_id) <= len(self.rows):
            return None
        stream_id = self.rows[int(last_event_id) - 1][0]
        for index in range(int(last_event_id), len(self.rows)):
            row_stream, text = self.rows[index]
            if row_stream == stream_id and text is not None:
                await send_callback(EventMessage(jsonrpc_message_adapter.validate_json(text), str(index + 1)))
        return stream_id


async def test_an_official_style_event_store_gets_models_and_its_replay_is_delivered(wire: str) -> None:
    store = JsonTextStore()
    mcp = build_server()
    with anyio.fail_after(20):
        async with connect(wire, mcp.streamable_http_app(event_store=store, retry_interval=100)) as client:
            session_id = await open_session(client)
            async with client.stream("POST", "/mcp", json=tool_call(2, "reconnect", progress_token="r"),
                                     headers=legacy_headers(session_id)) as post, SSEStream(post) as stream:
                before = await stream.next_message()
                assert before is not None and before["params"]["message"] == "before"
                assert await stream.next_message() is None  # closed before the result
                last_event_id = stream.last_event_id
            assert last_event_id is not None
            async with client.stream("GET", "/mcp", headers=resume_headers(session_id, last_event_id)) as get, \
                    SSEStream(get) as resumed:
                rest = await resumed.rest()
            assert rest[0]["params"]["message"] == "after"
            assert text_of(rest[-1]) == "reconnected"
    assert all(message is None or isinstance(message, BaseModel) for message in store.given)
    assert any(isinstance(message, JSONRPCResponse) for message in store.given)
