"""The resumable in-memory event store is bounded in bytes, over a real uvicorn
(`servers/resumable_server.py`, run as users run one): many large answers keep at most its byte
bound (the process's memory with it), an answer too large to keep is replayed as an error saying
so, and a session's streams are freed when it ends, by DELETE or by idle eviction."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from mcp.server.event_store import (
    DEFAULT_MAX_EVENT_BYTES,
    DEFAULT_MAX_STORE_BYTES,
    EVENT_OVERHEAD,
    EventMessage,
    InMemoryEventStore,
)

SERVER = Path(__file__).parent / "servers" / "resumable_server.py"
HANDSHAKE = "2025-11-25"
HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream",
           "mcp-protocol-version": HANDSHAKE}
MiB = 1024 * 1024


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(idle: float) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    proc = subprocess.Popen([sys.executable, str(SERVER), str(port), str(idle)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return proc, f"http://127.0.0.1:{port}"
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                stop(proc)
                raise RuntimeError("the server did not start") from None
            time.sleep(0.1)


def stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    proc, url = start(idle=3600)
    try:
        yield url
    finally:
        stop(proc)


def sse_events(text: str) -> list[tuple[str | None, Any]]:
    """(event id, message or None for a priming event) of an SSE body."""
    events: list[tuple[str | None, Any]] = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        event_id: str | None = None
        data: list[str] = []
        seen = False
        for line in block.split("\n"):
            if line.startswith("id:"):
                event_id, seen = line[3:].strip(), True
            elif line.startswith("data:"):
                data.append(line[5:].strip())
                seen = True
        if seen:
            events.append((event_id, json.loads("".join(data)) if "".join(data) else None))
    return events


class Session:
    def __init__(self, http: httpx.Client, base: str) -> None:
        self.http, self.url = http, base + "/mcp"
        opened = http.post(self.url, headers=HEADERS, json={"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": HANDSHAKE, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
        assert opened.status_code == 200, opened.text
        self.id = opened.headers["mcp-session-id"]
        self.headers = {**HEADERS, "mcp-session-id": self.id}
        assert http.post(self.url, headers=self.headers,
                         json={"jsonrpc": "2.0", "method": "notifications/initialized"}).status_code == 202
        self.calls = 0

    def blob(self, size: int) -> tuple[str, dict[str, Any], int]:
        """(priming event id, answer, answer bytes on the wire) of one `blob` call."""
        self.calls += 1
        response = self.http.post(self.url, headers=self.headers, json={
            "jsonrpc": "2.0", "id": self.calls, "method": "tools/call", "params": {"name": "blob", "arguments": {"size": size}}})
        assert response.status_code == 200
        events = sse_events(response.text)
        assert events[0][1] is None and events[0][0] is not None  # the priming event
        return events[0][0], events[-1][1], len(response.content)

    def resume(self, last_event_id: str) -> list[Any]:
        response = self.http.get(self.url, headers={**self.headers, "accept": "text/event-stream",
                                                    "last-event-id": last_event_id})
        assert response.status_code == 200
        return [message for _, message in sse_events(response.text) if message is not None]

    def delete(self) -> None:
        assert self.http.delete(self.url, headers=self.headers).status_code == 200


def report(http: httpx.Client, base: str) -> dict[str, int]:
    return http.get(base + "/store").json()


def test_the_default_bounds_are_the_documented_ones() -> None:
    assert (16 * MiB, 64 * MiB) == (DEFAULT_MAX_EVENT_BYTES, DEFAULT_MAX_STORE_BYTES)
    store = InMemoryEventStore()
    assert (store._max_events, store._max_streams, store._max_stream_bytes, store._max_total) == \
        (1000, 10_000, 16 * MiB, 64 * MiB)


def test_many_large_answers_keep_the_store_and_the_process_within_the_byte_bound(base: str) -> None:
    with httpx.Client(timeout=60) as http:
        session = Session(http, base)
        session.blob(10)
        before = report(http, base)
        sizes = [session.blob(1_000_000)[2] for _ in range(150)]
        assert min(sizes) > 2_000_000  # the text twice (content and structuredContent): 300 MB answered
        after = report(http, base)
        assert DEFAULT_MAX_STORE_BYTES - 3 * MiB < after["bytes"] <= DEFAULT_MAX_STORE_BYTES
        # (unbounded, the answers kept grew the process by about 145 MiB)
        assert after["resident"] - before["resident"] < DEFAULT_MAX_STORE_BYTES + 32 * MiB
        # what is kept is still resumable: the newest answer replays whole
        priming, answer, _ = session.blob(1_000_000)
        replayed = session.resume(priming)
        assert replayed == [answer]
        session.delete()
        freed = report(http, base)
        assert (freed["bytes"], freed["events"], freed["streams"]) == (0, 0, 0)
        assert freed["resident"] < after["resident"] - 32 * MiB  # (unfreed: no change)


def test_an_answer_too_large_to_keep_is_answered_live_and_replayed_as_an_error(base: str) -> None:
    with httpx.Client(timeout=60) as http:
        session = Session(http, base)
        priming, answer, size = session.blob(9 * MiB)  # about 18 MiB on the wire: over 16 MiB
        assert size > DEFAULT_MAX_EVENT_BYTES and answer["result"]["content"][0]["text"] == "x" * (9 * MiB)
        replayed = session.resume(priming)
        assert len(replayed) == 1 and replayed[0]["id"] == session.calls
        error = replayed[0]["error"]
        assert error["code"] == -32603 and error["message"].startswith("Answer too large to resume:")
        assert error["data"]["limit"] == DEFAULT_MAX_EVENT_BYTES - EVENT_OVERHEAD and error["data"]["size"] > error["data"]["limit"]
        assert report(http, base)["bytes"] < MiB
        session.delete()


def test_an_idle_sessions_streams_are_freed_when_it_is_evicted() -> None:
    proc, base = start(idle=1)
    try:
        with httpx.Client(timeout=60) as http:
            idle = Session(http, base)
            for _ in range(3):
                idle.blob(1_000_000)
            assert report(http, base)["bytes"] > 6_000_000
            deadline = time.monotonic() + 30
            while report(http, base)["streams"] > 0:  # evicted as requests arrive once it idled
                assert time.monotonic() < deadline, "the idle session's streams were never freed"
                time.sleep(0.5)
                Session(http, base).delete()
            assert report(http, base)["bytes"] == 0
            gone = http.post(idle.url, headers=idle.headers, json={"jsonrpc": "2.0", "id": 9, "method": "ping"})
            assert gone.status_code == 404
    finally:
        stop(proc)


# -- the bounds at their edge, on the store itself ------------------------------------------------


async def collect_after(store: InMemoryEventStore, last: str) -> list[Any]:
    got: list[EventMessage] = []

    async def collect(event: EventMessage) -> None:
        got.append(event)

    await store.replay_events_after(last, collect)
    return [event.message for event in got]


def event_of(size: int, n: int) -> dict[str, Any]:
    """A notification of exactly `size` JSON bytes."""
    head = json.dumps({"jsonrpc": "2.0", "method": "m", "params": {"n": n, "pad": ""}}, separators=(",", ":"))
    return {"jsonrpc": "2.0", "method": "m", "params": {"n": n, "pad": "p" * (size - len(head))}}


@pytest.mark.anyio
async def test_the_byte_bounds_at_their_edge() -> None:
    unit = 1000 + EVENT_OVERHEAD
    store = InMemoryEventStore(max_bytes_per_stream=3 * unit, max_bytes=5 * unit)
    first = await store.store_event("s1/a", None)
    assert store.stored_bytes == EVENT_OVERHEAD
    for n in range(3):
        await store.store_event("s1/a", event_of(1000, n))
    assert store.stored_bytes == 3 * unit  # the priming event went first: oldest forgotten
    assert await collect_after(store, first) == []  # (unknown now)
    last_of_a = await store.store_event("s1/a", event_of(1000, 3))
    b = [await store.store_event("s2/b", event_of(1000, n)) for n in range(3)]
    # 6 units stored against 5: the least recently written stream's oldest event went
    assert store.stored_bytes == 5 * unit and len(store) == 5
    assert [m["params"]["n"] for m in await collect_after(store, b[0])] == [1, 2]
    store.forget_session("s1")
    assert store.stored_bytes == 3 * unit and await collect_after(store, last_of_a) == []
    too_big = {"jsonrpc": "2.0", "id": 7, "result": {"text": "x" * (3 * unit)}}
    kept = await store.store_event("s2/b", too_big)
    replayed = await collect_after(store, b[2])
    assert [m.get("id") for m in replayed] == [7] and replayed[0]["error"]["data"]["limit"] == 3 * unit - EVENT_OVERHEAD
    note = await store.store_event("s2/b", {"jsonrpc": "2.0", "method": "big", "params": {"x": "x" * (3 * unit)}})
    assert await collect_after(store, kept) == []  # a message that is not an answer is skipped
    assert int(note) > int(kept)
    store.forget_session("s2")
    assert (store.stored_bytes, len(store)) == (0, 0)
