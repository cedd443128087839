"""Tools over real stdio, cancelled by the client: the handler stops (an async one at once, a sync
one at its next `anyio.from_thread.check_cancelled()`), nothing is answered, anyio shields hold,
and the connection keeps serving."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.interaction.test_stdio_offload import WORKLOAD
from tests.interaction.test_stdio_wire import RawServer


def _call(request_id: Any, name: str, **arguments: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {"name": name, "arguments": arguments}}


def _cancel(request_id: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": request_id}}


@pytest.fixture
def server() -> Iterator[RawServer]:
    raw = RawServer(script=WORKLOAD)
    raw.initialize()
    yield raw
    assert raw.close() == 0


def test_a_cancelled_async_call_gets_no_answer_and_the_connection_keeps_serving(server: RawServer) -> None:
    server.send(_call(1, "wait_async", seconds=30, tag="never"))
    time.sleep(0.1)
    server.send(_cancel(1))
    time.sleep(0.2)
    answer = server.request(_call(2, "wait_async", seconds=0, tag="next"))
    assert answer["id"] == 2 and answer["result"]["structuredContent"] == {"result": "next"}
    server.send(_call(1, "wait_async", seconds=0, tag="reused"))  # its id is free again
    assert server.read()["result"]["structuredContent"] == {"result": "reused"}


def test_a_cancellation_waits_for_the_handler_to_leave_its_anyio_shield(server: RawServer, tmp_path: Path) -> None:
    marker = tmp_path / "marker"
    server.send(_call("s", "shielded", path=str(marker), seconds=0.5))
    time.sleep(0.1)  # inside the shield now
    server.send(_cancel("s"))
    time.sleep(0.1)
    assert not marker.exists()
    deadline = time.monotonic() + 10
    while not marker.exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert marker.read_text() == "shield held"
    # Cancelled after its shield (not left to its 30 s wait): no answer comes for "s", and its id
    # is free again shortly after.
    time.sleep(0.3)
    assert server.request({"jsonrpc": "2.0", "id": "ping", "method": "ping"}) == {
        "jsonrpc": "2.0", "id": "ping", "result": {}}
    answer = server.request(_call("s", "wait_async", seconds=0, tag="id free"))
    assert answer["result"]["structuredContent"] == {"result": "id free"}


def test_cancelling_a_call_that_runs_a_task_group_stops_its_children(server: RawServer, tmp_path: Path) -> None:
    log = tmp_path / "log"
    server.send(_call("f", "fanout", path=str(log)))
    time.sleep(0.2)
    server.send(_cancel("f"))
    deadline = time.monotonic() + 10
    while (not log.exists() or len(log.read_text().splitlines()) < 2) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert sorted(log.read_text().splitlines()) == ["one stopped", "two stopped"]
    assert server.request({"jsonrpc": "2.0", "id": "ping", "method": "ping"})["result"] == {}


def _wait_for_lines(path: Path, predicate: Any) -> list[str]:
    deadline = time.monotonic() + 10
    lines: list[str] = []
    while time.monotonic() < deadline:
        lines = path.read_text().splitlines() if path.exists() else []
        if predicate(lines):
            break
        time.sleep(0.02)
    return lines


def test_a_sync_tool_reaches_the_loop_through_anyio_from_thread(server: RawServer, tmp_path: Path) -> None:
    log = tmp_path / "log"
    answer = server.request(_call(1, "index_books", path=str(log), count=3))
    assert answer["result"]["structuredContent"] == {"result": "indexed 3"}
    assert log.read_text().splitlines() == ["0 loop", "1 loop", "2 loop"]


def test_a_cancelled_sync_tool_stops_at_its_next_check_cancelled(server: RawServer, tmp_path: Path) -> None:
    log = tmp_path / "log"
    server.send(_call("i", "index_books", path=str(log), count=1000))
    assert len(_wait_for_lines(log, lambda lines: len(lines) >= 2)) >= 2
    server.send(_cancel("i"))
    lines = _wait_for_lines(log, lambda lines: lines[-1:] == ["cancelled"])
    assert lines[-1] == "cancelled" and len(lines) < 500
    answer = server.request(_call(2, "add", a=1, b=2))  # no answer for "i"; the next call is answered
    assert answer["id"] == 2 and answer["result"]["structuredContent"] == {"result": 3}
    assert server.close() == 0
    assert "Traceback" not in server.stderr()  # a cancellation is not logged as a failure
