"""Tools over real stdio, cancelled by the client: the handler stops (an async one at once, a sync
one at its next `anyio.from_thread.check_cancelled()`), nothing is answered, anyio shields hold,
and the connection keeps serving."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.interaction.test_stdio_offload import WORKLOAD
from tests.interaction.test_stdio_wire import RawServer

PING: dict[str, Any] = {"jsonrpc": "2.0", "id": "ping", "method": "ping"}
PONG: dict[str, Any] = {"jsonrpc": "2.0", "id": "ping", "result": {}}
DUPLICATE_ID = "Invalid Request: duplicate request id in flight"


def _call(request_id: Any, name: str, **arguments: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {"name": name, "arguments": arguments}}


def _call_with_progress(request_id: Any, name: str, **arguments: Any) -> dict[str, Any]:
    message = _call(request_id, name, **arguments)
    message["params"]["_meta"] = {"progressToken": request_id}
    return message


def _cancel(request_id: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": request_id}}


def _progress_message(message: dict[str, Any]) -> str:
    assert message.get("method") == "notifications/progress", message
    return message["params"]["message"]


def _once_its_id_is_free(server: RawServer, message: dict[str, Any]) -> dict[str, Any]:
    """Send `message` until the server takes it: while the cancelled handler that held its id is
    still ending, the id is refused as a duplicate (the server's state, seen only in its answers)."""
    deadline = time.monotonic() + 10
    while True:
        answer = server.request(message)
        if answer.get("error", {}).get("message") != DUPLICATE_ID or time.monotonic() > deadline:
            return answer
        time.sleep(0.01)


@pytest.fixture
def server() -> Iterator[RawServer]:
    raw = RawServer(script=WORKLOAD)
    raw.initialize()
    yield raw
    assert raw.close() == 0


def test_a_cancelled_async_call_gets_no_answer_and_the_connection_keeps_serving(server: RawServer) -> None:
    server.send(_call(1, "wait_async", seconds=30, tag="never"))
    assert server.request(PING) == PONG  # the call has been taken in
    server.send(_cancel(1))
    answer = server.request(_call(2, "wait_async", seconds=0, tag="next"))  # no answer for 1 before it
    assert answer["id"] == 2 and answer["result"]["structuredContent"] == {"result": "next"}
    answer = _once_its_id_is_free(server, _call(1, "wait_async", seconds=0, tag="reused"))  # nor after it
    assert answer["result"]["structuredContent"] == {"result": "reused"}


def test_a_cancellation_waits_for_the_handler_to_leave_its_anyio_shield(server: RawServer, tmp_path: Path) -> None:
    marker = tmp_path / "marker"
    server.send(_call_with_progress("s", "shielded", path=str(marker)))
    assert _progress_message(server.read()) == "inside the shield"
    server.send(_cancel("s"))
    assert server.request(PING) == PONG  # the cancellation has been taken in
    assert not marker.exists()  # the shield holds: it waits for release_shield
    assert server.request(_call("r", "release_shield"))["result"]["structuredContent"] == {"result": "released"}
    deadline = time.monotonic() + 10
    while not marker.exists() and time.monotonic() < deadline:  # the other process's file
        time.sleep(0.02)
    assert marker.read_text() == "shield held"
    # Cancelled after its shield (not left to its 30 s wait): no answer comes for "s", and its id
    # is free again shortly after.
    assert server.request(PING) == PONG
    answer = _once_its_id_is_free(server, _call("s", "wait_async", seconds=0, tag="id free"))
    assert answer["result"]["structuredContent"] == {"result": "id free"}


def test_cancelling_a_call_that_runs_a_task_group_stops_its_children(server: RawServer, tmp_path: Path) -> None:
    log = tmp_path / "log"
    server.send(_call_with_progress("f", "fanout", path=str(log)))
    assert _progress_message(server.read()) == "children waiting"
    server.send(_cancel("f"))
    lines = _wait_for_lines(log, lambda lines: len(lines) >= 2)
    assert sorted(lines) == ["one stopped", "two stopped"]
    assert server.request(PING) == PONG


def _wait_for_lines(path: Path, predicate: Callable[[list[str]], bool]) -> list[str]:
    """The lines of `path` (written by the server process) once `predicate` holds, or after 10 s."""
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
