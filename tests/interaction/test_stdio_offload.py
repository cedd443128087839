"""Plain sync tools over real stdio: answered from their worker thread, with every guarantee of
the usual path (concurrency, cancellation, duplicate ids, large answers, failures, EOF)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from tests.interaction.test_stdio_wire import INIT, SERVER, RawServer

WORKLOAD = Path(__file__).parent / "servers" / "workload.py"


@pytest.fixture
def server() -> Any:
    raw = RawServer(script=WORKLOAD)
    raw.initialize()
    yield raw
    raw.close()


def _call(request_id: Any, name: str, **arguments: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {"name": name, "arguments": arguments}}


def _read_all(server: RawServer, count: int) -> dict[Any, dict[str, Any]]:
    answers: dict[Any, dict[str, Any]] = {}
    for _ in range(count):
        answer = server.read()
        answers[answer["id"]] = answer
    return answers


def test_many_sync_calls_in_flight_at_once_are_all_answered_in_parallel(server: RawServer) -> None:
    for i in range(20):
        server.send(_call(i, "slow", seconds=0.2, tag=f"t{i}"))
    answers = _read_all(server, 20)
    assert {i: a["result"]["structuredContent"]["result"] for i, a in answers.items()} == {
        i: f"t{i}" for i in range(20)}


def test_a_fast_call_is_not_held_up_by_a_slow_one(server: RawServer) -> None:
    server.send(_call("slow", "slow", seconds=1.5, tag="late"))
    server.send(_call("fast", "add", a=2, b=3))
    first = server.read()
    assert first["id"] == "fast" and first["result"]["structuredContent"] == {"result": 5}
    assert server.read()["id"] == "slow"


def test_a_cancelled_sync_call_gets_no_answer_and_the_connection_keeps_serving(server: RawServer) -> None:
    server.send(_call(7, "slow", seconds=0.5, tag="cancelled"))
    server.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7}})
    server.send(_call(8, "slow", seconds=0.8, tag="after"))
    answer = server.read(timeout=10)
    assert answer["id"] == 8 and answer["result"]["structuredContent"] == {"result": "after"}


def test_a_duplicate_id_while_a_sync_call_is_in_flight_is_refused(server: RawServer) -> None:
    server.send(_call(3, "slow", seconds=0.5, tag="first"))
    server.send(_call(3, "add", a=1, b=1))
    refused = server.read()
    assert refused["id"] == 3 and refused["error"]["code"] == -32600
    assert server.read()["result"]["structuredContent"] == {"result": "first"}


def test_an_id_may_be_reused_as_soon_as_its_answer_arrived(server: RawServer) -> None:
    for round_ in range(50):
        answer = server.request(_call(1, "add", a=round_, b=1))
        assert answer["result"]["structuredContent"] == {"result": round_ + 1}


def test_an_answer_larger_than_the_pipe_buffer_arrives_whole(server: RawServer) -> None:
    size = 3 * 1024 * 1024
    server.send(_call(1, "big", size=size))
    server.send(_call(2, "add", a=1, b=2))
    answers = _read_all(server, 2)
    assert len(answers[1]["result"]["structuredContent"]["result"]) == size
    assert answers[2]["result"]["structuredContent"] == {"result": 3}


def test_sync_tool_failures_and_bad_arguments_are_is_error_results(server: RawServer) -> None:
    failed = server.request(_call(1, "fail", message="no luck"))["result"]
    assert failed["isError"] is True
    assert failed["content"][0]["text"] == "Error executing tool fail"  # an unexpected exception: masked
    bad = server.request(_call(2, "add", a="x", b=1))["result"]
    assert bad["isError"] is True and "validation error" in bad["content"][0]["text"]
    wrong = server.request({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": 5}})
    assert wrong["error"]["code"] == -32602
    assert server.request(_call(4, "ping_async"))["result"]["structuredContent"] == {"result": "pong"}


def test_eof_with_sync_calls_in_flight_still_answers_them_before_exiting() -> None:
    raw = RawServer(script=WORKLOAD)
    try:
        raw.initialize()
        raw.send(_call(1, "slow", seconds=0.3, tag="drained"))
        assert raw.proc.stdin is not None
        raw.proc.stdin.close()
        assert raw.read()["result"]["structuredContent"] == {"result": "drained"}
    finally:
        assert raw.close() == 0


@pytest.mark.parametrize("stdin_source", ["devnull", "file"])
def test_a_server_whose_stdin_is_not_a_pipe_serves_it_and_exits_cleanly(tmp_path: Path, stdin_source: str) -> None:
    """/dev/null and regular files cannot be watched by epoll: read on a thread instead of aborting."""
    if stdin_source == "devnull":
        source = open(os.devnull, "rb")  # noqa: SIM115
    else:
        path = tmp_path / "requests.jsonl"
        path.write_bytes(json.dumps(INIT).encode() + b"\n")
        source = path.open("rb")
    with source:
        done = subprocess.run([sys.executable, str(SERVER)], stdin=source, capture_output=True, timeout=30)
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
    if stdin_source == "file":
        assert json.loads(done.stdout.splitlines()[0])["result"]["serverInfo"]["name"]


def test_a_server_whose_stdout_is_dev_null_exits_cleanly() -> None:
    with open(os.devnull, "wb") as sink:
        proc = subprocess.Popen([sys.executable, str(SERVER)], stdin=subprocess.PIPE, stdout=sink,
                                stderr=subprocess.PIPE)
        try:
            assert proc.stdin is not None
            proc.stdin.write((json.dumps(INIT) + "\n").encode())
            proc.stdin.close()
            assert proc.wait(timeout=30) == 0
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
            assert proc.stderr is not None
            proc.stderr.close()
