"""Every limit with a safe default, tested at its edge: the last accepted unit and the first refused.

| limit | default | beyond it |
|---|---|---|
| stdio message size (`stdio_server(max_message_size=)`) | 16 MiB | -32600, id null; the connection goes on |
| stdio output not yet read by the client (`stdio_server(max_queued_output=)`) | 1 MiB | writers wait and no new request starts; nothing is lost |
| concurrent requests per connection (`Peer(max_concurrent_requests=)`) | 1024 | -32603 "Too many concurrent requests", `data.limit` |
| pending outgoing requests (`Peer(max_pending_requests=)`) | 1024 | `send_request` raises `MCPError` -32603 |
| duplicate id in flight | - | -32600; the id is free again once answered or cancelled |
| HTTP request body (`max_request_body_size=`) | 4 MiB | 413 before parsing, declared or streamed |
| SSE replay buffer (`InMemoryEventStore`) | 1000 events and 16 MiB per stream, 10 000 streams, 64 MiB | oldest forgotten; an unknown Last-Event-ID is refused (bytes: test_event_store_bounds.py) |
| HTTP sessions (`max_sessions=`) | 10 000 | least recently used idle session evicted; 503 when all are busy |
"""

from __future__ import annotations

import json
import math
import os
import threading
import time
from typing import Any

import anyio
import pytest
from hardening_support import HANDSHAKE, INIT, StdioTarget, asgi_request

from mcp._engine.asyncio_stdio import MAX_QUEUED_OUTPUT
from mcp._engine.peer import DEFAULT_MAX_CONCURRENT_REQUESTS, DEFAULT_MAX_PENDING_REQUESTS, Peer
from mcp._engine.seam import WireSendStream
from mcp._engine.stdio_pump import DEFAULT_MAX_QUEUED_OUTPUT, BoundedOutput
from mcp._protocol import messages as m
from mcp._protocol.framing import DEFAULT_MAX_LINE
from mcp.server.event_store import EventMessage, InMemoryEventStore
from mcp.server.lowlevel import Server
from mcp.server.session import ServerSession
from mcp.server.streamable_http import DEFAULT_MAX_BODY
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage

pytestmark = pytest.mark.anyio

id_null_errors = pytest.mark.wire_invalid_ok(
    lambda sender, message, version: message.get("id") is None and "error" in message,
    reason="JSON-RPC 2.0: input whose id cannot be read is answered with id null")


def test_the_defaults_are_the_documented_ones() -> None:
    assert DEFAULT_MAX_LINE == 16 * 1024 * 1024
    assert DEFAULT_MAX_CONCURRENT_REQUESTS == 1024
    assert DEFAULT_MAX_PENDING_REQUESTS == 1024
    assert DEFAULT_MAX_BODY == 4 * 1024 * 1024
    assert MAX_QUEUED_OUTPUT == DEFAULT_MAX_QUEUED_OUTPUT == 1024 * 1024
    store = InMemoryEventStore()
    assert (store._max_events, store._max_streams) == (1000, 10_000)


def ping_line(size: int, request_id: str) -> bytes:
    """A valid ping of exactly `size` bytes (padded with JSON whitespace inside the object)."""
    head = json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "ping"}).encode()
    assert len(head) <= size
    return head[:-1] + b" " * (size - len(head)) + b"}"


# -- stdio message size -------------------------------------------------------------------------


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
@pytest.mark.parametrize("limit", [1000, 70_000])  # below and above one 64 KiB read
def test_stdio_message_size_at_its_edge(backend: str, limit: int) -> None:
    target = StdioTarget("--backend", backend, "--max-message-size", str(limit))
    try:
        target.initialize()
        target.send_raw(ping_line(limit, "fits") + b"\n")
        assert target.read() == {"jsonrpc": "2.0", "id": "fits", "result": {}}
        target.send_raw(ping_line(limit + 1, "too-big") + b"\n")
        refused = target.read()
        assert refused["id"] is None and refused["error"]["code"] == -32600
        assert f"{limit}-byte limit" in refused["error"]["message"]
        assert target.request({"jsonrpc": "2.0", "id": "after", "method": "ping"})["result"] == {}
    finally:
        assert target.close() == 0


def test_stdio_default_message_size_at_its_edge() -> None:
    target = StdioTarget()
    try:
        target.initialize()
        target.send_raw(ping_line(DEFAULT_MAX_LINE, "fits") + b"\n")
        assert target.read(timeout=30) == {"jsonrpc": "2.0", "id": "fits", "result": {}}
        target.send_raw(ping_line(DEFAULT_MAX_LINE + 1, "too-big") + b"\n")
        assert target.read(timeout=30)["error"]["code"] == -32600
        assert target.request({"jsonrpc": "2.0", "id": "after", "method": "ping"})["result"] == {}
    finally:
        assert target.close() == 0


# -- concurrent requests per connection ----------------------------------------------------------


def call(request_id: Any, tool: str, **arguments: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {"name": tool, "arguments": arguments}}


def test_the_default_concurrency_cap_over_stdio() -> None:
    """1024 never-ending calls are admitted, the 1025th is refused at once; cancelling them all
    frees every slot and the connection serves again."""
    target = StdioTarget()
    try:
        target.initialize()
        limit = DEFAULT_MAX_CONCURRENT_REQUESTS
        target.send_raw(b"".join(json.dumps(call(i, "hang", token=str(i))).encode() + b"\n" for i in range(limit)))
        target.send(call("one-too-many", "hang", token="x"))
        refused = target.read(timeout=30)
        assert refused == {"jsonrpc": "2.0", "id": "one-too-many",
                           "error": {"code": -32603, "message": "Too many concurrent requests", "data": {"limit": limit}}}
        target.send_raw(b"".join(json.dumps({"jsonrpc": "2.0", "method": "notifications/cancelled",
                                             "params": {"requestId": i}}).encode() + b"\n" for i in range(limit)))
        stats = target.request(call("stats", "stats"), timeout=30)["result"]["structuredContent"]
        assert (stats["in_flight"], stats["active"]) == (1, 1), stats  # the stats call itself
        assert target.request({"jsonrpc": "2.0", "id": "after", "method": "ping"})["result"] == {}
    finally:
        assert target.close() == 0


def hold_server() -> tuple[Server[Any], anyio.Event]:
    release = anyio.Event()

    async def hold(ctx: Any, params: Any) -> Any:
        await release.wait()
        from mcp.server.session import WireResult

        return WireResult({})

    server: Server[Any] = Server("limits")
    server.add_request_handler("test/hold", None, hold)
    return server, release


@pytest.mark.parametrize("cap", [1, 3])
async def test_a_session_concurrency_cap_at_its_edge(cap: int) -> None:
    server, release = hold_server()
    inbox_send, inbox = anyio.create_memory_object_stream[Any](math.inf)
    outbox, answers = anyio.create_memory_object_stream[SessionMessage](math.inf)
    session = ServerSession(server=server, read_stream=inbox, write_stream=WireSendStream(outbox), stateless=True, max_concurrent_requests=cap)
    async with anyio.create_task_group() as tg, outbox, answers:
        tg.start_soon(session.run)
        for i in range(cap + 1):
            inbox_send.send_nowait(SessionMessage(m.request(i, "test/hold", None)))
        with anyio.fail_after(5):
            refused = (await answers.receive()).message
        assert refused["id"] == cap and refused["error"]["code"] == -32603
        assert refused["error"]["data"] == {"limit": cap}
        assert session.peer._active == cap
        release.set()
        with anyio.fail_after(5):
            served = sorted([(await answers.receive()).message["id"] for _ in range(cap)])
        assert served == list(range(cap))
        inbox_send.send_nowait(SessionMessage(m.request("again", "test/hold", None)))
        with anyio.fail_after(5):
            assert (await answers.receive()).message == {"jsonrpc": "2.0", "id": "again", "result": {}}
        inbox_send.close()
    assert session.peer._active == 0 and session.peer._in_flight == {}


def test_limits_below_one_are_refused() -> None:
    send, receive = anyio.create_memory_object_stream[Any](1)
    with send, receive:
        for bad in ({"max_concurrent_requests": 0}, {"max_pending_requests": 0}):
            with pytest.raises(ValueError):
                Peer(receive, send, role="server", on_request=None, on_notification=None, **bad)  # type: ignore[arg-type]


# -- pending outgoing requests -------------------------------------------------------------------


async def test_pending_outgoing_requests_at_their_edge() -> None:
    inbox_send, inbox = anyio.create_memory_object_stream[Any](math.inf)
    outbox, sent = anyio.create_memory_object_stream[SessionMessage](math.inf)

    async def nothing(message: Any, metadata: Any) -> None:
        return None

    peer = Peer(inbox, WireSendStream(outbox), role="server", on_request=nothing, on_notification=nothing, max_pending_requests=3)
    results: list[Any] = []

    async def ask() -> None:
        try:
            results.append(await peer.send_request("test/ask"))
        except MCPError as exc:
            results.append(exc.code)

    async with anyio.create_task_group() as tg, outbox, sent:
        tg.start_soon(peer.run)
        for _ in range(3):
            tg.start_soon(ask)
        await anyio.wait_all_tasks_blocked()
        assert len(peer._pending) == 3
        with pytest.raises(MCPError) as refused:
            await peer.send_request("test/ask")
        assert refused.value.code == -32603 and "Too many pending requests" in refused.value.message
        first = (await sent.receive()).message
        inbox_send.send_nowait(SessionMessage(m.result_response(first["id"], {"n": 1})))
        with anyio.fail_after(5):
            while len(peer._pending) == 3:
                await anyio.sleep(0.001)
        tg.start_soon(ask)  # a slot is free again
        await anyio.wait_all_tasks_blocked()
        assert len(peer._pending) == 3
        inbox_send.close()  # the peer goes away: every pending request fails, none hangs
    assert sorted(map(str, results)) == sorted(map(str, [{"n": 1}, -32000, -32000, -32000]))  # answered, closed x3
    assert peer._pending == {}


# -- duplicate ids in flight ------------------------------------------------------------------------


def test_a_duplicate_id_in_flight_is_refused_and_free_again_once_cancelled() -> None:
    target = StdioTarget()
    try:
        target.initialize()
        target.send(call("d", "hang", token="first"))
        duplicate = target.request(call("d", "echo", text="second"))
        assert duplicate["error"] == {"code": -32600, "message": "Invalid Request: duplicate request id in flight"}
        target.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "d"}})
        assert target.request({"jsonrpc": "2.0", "id": "p", "method": "ping"})["result"] == {}
        reused = target.request(call("d", "echo", text="third"))
        assert reused["result"]["content"][0]["text"] == "third"
    finally:
        assert target.close() == 0


# -- HTTP body size ----------------------------------------------------------------------------


def http_app(**options: Any) -> Any:
    from test_fuzz_http import load_target

    mcp = load_target().build()
    return mcp, mcp.streamable_http_app(**options)


HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}


@pytest.mark.parametrize("declared", [True, False])
async def test_the_http_body_limit_at_its_edge(declared: bool) -> None:
    limit = 2000
    mcp, app = http_app(max_request_body_size=limit)
    async with mcp.session_manager.run():
        for size, status in ((limit, 200), (limit + 1, 413)):
            body = json.dumps(INIT).encode()
            body = body[:-1] + b" " * (size - len(body)) + b"}"
            headers = {**HEADERS, **({"content-length": str(len(body))} if declared else {})}
            response = await asgi_request(app, "POST", headers, body)
            assert response.status == status, response.body
            if status == 413:
                assert json.loads(response.body)["error"]["code"] == -32600


async def test_a_content_length_past_ints_parsing_limit_is_a_413_not_a_crash() -> None:
    """Was: `int()` of a 5000-digit Content-Length raised ValueError (CPython parses at most 4300
    digits) and the request died with a 500."""
    mcp, app = http_app()
    async with mcp.session_manager.run():
        response = await asgi_request(app, "POST", {**HEADERS, "content-length": "9" * 5000}, json.dumps(INIT).encode())
    assert response.status == 413, response.body


async def test_a_streamed_body_past_the_limit_is_refused_without_reading_the_rest() -> None:
    limit = 1000
    mcp, app = http_app(max_request_body_size=limit)
    chunks = [b"x" * 600, b"x" * 600, b"never read"]
    taken: list[bytes] = []
    response: dict[str, Any] = {}

    async def receive() -> dict[str, Any]:
        if chunks:
            taken.append(chunks.pop(0))
            return {"type": "http.request", "body": taken[-1], "more_body": bool(chunks)}
        await anyio.sleep_forever()
        raise AssertionError

    async def send(event: dict[str, Any]) -> None:
        response.setdefault(event["type"], event)

    scope = {"type": "http", "method": "POST", "path": "/mcp", "raw_path": b"/mcp", "query_string": b"",
             "root_path": "", "scheme": "http", "http_version": "1.1", "server": ("127.0.0.1", 80),
             "client": ("127.0.0.1", 1), "headers": [(b"host", b"127.0.0.1"),
                                                     *((k.encode(), v.encode()) for k, v in HEADERS.items())]}
    async with mcp.session_manager.run():
        with anyio.fail_after(5):
            await app(scope, receive, send)
    assert response["http.response.start"]["status"] == 413
    assert len(taken) == 2


# -- the SSE replay buffer ---------------------------------------------------------------------------


async def test_the_replay_buffer_keeps_the_newest_events_per_stream_and_the_newest_streams() -> None:
    store = InMemoryEventStore(max_events_per_stream=3, max_streams=2)
    ids = [await store.store_event("a", {"n": n}) for n in range(5)]
    replayed: list[EventMessage] = []

    async def collect(event: EventMessage) -> None:
        replayed.append(event)

    assert await store.replay_events_after(ids[0], collect) is None  # evicted: unknown
    assert await store.replay_events_after(ids[2], collect) == "a"
    assert [e.message for e in replayed] == [{"n": 3}, {"n": 4}]
    assert len(store) == 3
    await store.store_event("b", {"n": "b"})
    await store.store_event("c", {"n": "c"})  # a third stream: "a", the oldest, is forgotten
    assert await store.replay_events_after(ids[4], collect) is None
    assert len(store) == 2
    for garbage in ("", "x", "-1", "99999999999999999999", "1e3", " 1"):
        assert await store.replay_events_after(garbage, collect) in (None, "b", "c")


async def test_a_get_with_an_unknown_last_event_id_gets_an_empty_stream_or_none() -> None:
    """As officially: an id the store cannot map is an empty stream (a blank one opens the GET
    stream); never an error of ours."""
    mcp, app = http_app(event_store=InMemoryEventStore(max_events_per_stream=2))
    async with mcp.session_manager.run():
        opened = await asgi_request(app, "POST", HEADERS, json.dumps(INIT).encode())
        session = opened.headers["mcp-session-id"]
        for last in ("12345", "not-a-number", ""):
            response = await asgi_request(app, "GET", {"accept": "text/event-stream", "mcp-session-id": session,
                                                       "mcp-protocol-version": HANDSHAKE, "last-event-id": last},
                                          disconnect_when=lambda r: True)
            assert response.status == 200 and (response.body == b"" or not response.completed), (last, response.body)


# -- HTTP sessions --------------------------------------------------------------------------------


async def test_the_session_table_at_its_edge() -> None:
    mcp, app = http_app(max_sessions=3)
    async with mcp.session_manager.run():
        manager = mcp.session_manager
        ids = []
        for _ in range(3):
            response = await asgi_request(app, "POST", HEADERS, json.dumps(INIT).encode())
            assert response.status == 200
            ids.append(response.headers["mcp-session-id"])
        assert manager.session_count == 3
        response = await asgi_request(app, "POST", HEADERS, json.dumps(INIT).encode())  # evicts the LRU idle one
        assert response.status == 200 and manager.session_count == 3
        assert ids[0] not in manager._sessions and ids[1] in manager._sessions
        hang_up = anyio.Event()
        streams: list[Any] = []

        async def listen(session_id: str) -> None:
            streams.append(await asgi_request(app, "GET", {"accept": "text/event-stream", "mcp-session-id": session_id,
                                                           "mcp-protocol-version": HANDSHAKE}, disconnect=hang_up))

        async with anyio.create_task_group() as tg:
            for session_id in list(manager._sessions):  # every session busy with a GET stream
                tg.start_soon(listen, session_id)
            await anyio.wait_all_tasks_blocked()
            refused = await asgi_request(app, "POST", HEADERS, json.dumps(INIT).encode())
            assert refused.status == 503 and manager.session_count == 3
            hang_up.set()  # the clients go away: their streams end
        assert [s.status for s in streams] == [200, 200, 200]
        response = await asgi_request(app, "POST", HEADERS, json.dumps(INIT).encode())
        assert response.status == 200 and manager.session_count == 3


# -- stdio output a client does not read -----------------------------------------------------------


def rss_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def write_until_stalled(fd: int, data: bytes, stall: float = 1.0, limit: float = 20.0) -> int:
    """Write `data` to a non-blocking fd until it is all written, or the reader has taken nothing
    for `stall` seconds (bounded by `limit`); the number of bytes written."""
    os.set_blocking(fd, False)
    sent, last, deadline = 0, time.monotonic(), time.monotonic() + limit
    while sent < len(data) and time.monotonic() < deadline:
        try:
            sent += os.write(fd, data[sent:])
            last = time.monotonic()
        except BlockingIOError:
            if time.monotonic() - last > stall:
                break
            time.sleep(0.01)
        except OSError:  # the test is over (stdin closed)
            break
    return sent


async def test_the_task_based_stdio_output_bound_at_its_edge() -> None:
    """`BoundedOutput` (trio, given files): sends are accepted while the unwritten bytes are within
    the bound, the one past it is the last; then `send_nowait` refuses and `send` waits until the
    writer has written, and nothing sent is lost."""
    message = {"jsonrpc": "2.0", "id": 1, "result": {}}
    line = len(json.dumps(message, separators=(",", ":"))) + 1
    out = BoundedOutput(limit=2 * line)
    for _ in range(3):  # 2 lines reach the bound exactly, the third goes past it
        assert not out.congested()
        out.send_nowait(SessionMessage(message))
    assert out.congested() and out.queued == 3 * line
    with pytest.raises(anyio.WouldBlock):
        out.send_nowait(SessionMessage(message))
    written: list[bytes] = []

    async def write(data: bytes) -> None:
        written.append(data)

    async with anyio.create_task_group() as tg:
        tg.start_soon(out.pump, write)
        await out.send(SessionMessage(message))  # waits for the pump, then adds its line
        out.close()
    assert b"".join(written).count(b"\n") == 4 and out.queued == 0


@pytest.mark.parametrize(("backend", "bound"), [("asyncio", None), ("trio", None), ("asyncio", 64 * 1024),
                                               ("trio", 64 * 1024)])
@pytest.mark.parametrize("tool", ["bulk", "abulk"])
def test_a_client_that_stops_reading_holds_the_server_to_bounded_memory_and_loses_no_answer(
        tool: str, backend: str, bound: int | None) -> None:
    """1000 calls with 100 KB answers (100 MB in all, under the concurrency cap) from a client that
    reads none of them: once the queued output is over its bound (the default, or one set with
    `run_stdio_async(max_queued_output=)`), the server's writers wait and it starts no new request,
    so its memory stays far below the answers' total; once the client reads, every call is
    answered, in full. (Plain sync tools answer from worker threads, async ones from the loop:
    both wait; on trio, through the task-based writer, which was bounded only in messages.)"""
    count, size = 1000, 100_000
    target = StdioTarget("--backend", backend, *(["--max-queued-output", str(bound)] if bound else []))
    try:
        target.initialize()
        before = rss_mib(target.proc.pid)
        assert target.proc.stdin is not None
        fd = target.proc.stdin.fileno()
        data = b"".join(json.dumps(call(i, tool, size=size)).encode() + b"\n" for i in range(count))
        sent = write_until_stalled(fd, data)
        peak = before
        for _ in range(20):  # the server settles (blocked on output) or keeps growing: watch a while
            peak = max(peak, rss_mib(target.proc.pid))
            time.sleep(0.1)
        assert peak - before < 64, f"RSS grew from {before:.0f} to {peak:.0f} MiB with {sent} bytes of calls unread"
        rest = threading.Thread(target=write_until_stalled, args=(fd, data[sent:], 30.0, 120.0), daemon=True)
        rest.start()
        answered: set[int] = set()
        while len(answered) < count:
            answer = target.read(timeout=60)
            assert len(answer["result"]["content"][0]["text"]) == size, answer.get("error")
            answered.add(answer["id"])
        rest.join(timeout=60)
        assert answered == set(range(count))
        os.set_blocking(fd, True)
        assert target.request({"jsonrpc": "2.0", "id": "after", "method": "ping"})["result"] == {}
    finally:
        assert target.close() == 0
