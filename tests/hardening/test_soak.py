"""Soak and concurrency, bounded: many sessions and calls at once, with sync, async and slow tools,
cancellations and clients that disconnect in the middle. Asserted on counts, never on time:

- every call gets exactly one answer, and it is the answer to that call (each carries a token);
- a cancelled call gets no answer (stdio) or a closed exchange (HTTP), never someone else's;
- afterwards no request is in flight, nothing is pending, no session is left in the table, the
  task count is back where it was, and no object type grew with the number of calls (a second
  round of the same size is compared with the first).

Size: `MCP_SOAK_SESSIONS` x `MCP_SOAK_CALLS` per round (CI defaults below; e.g. 50 x 2000 for a
long run, see README.md).
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections import Counter
from typing import Any

import anyio
import pytest
from anyio.abc import Process
from hardening_support import HANDSHAKE, INIT, MODERN_META, TARGET, asgi_request, soak_size
from introspect import grown, object_counts, task_count

pytestmark = pytest.mark.anyio

HTTP_SESSIONS, HTTP_CALLS = soak_size(20, 150)
STDIO_SESSIONS, STDIO_CALLS = soak_size(4, 750)
IGNORED_TYPES = ("logging.", "_pytest.", "pluggy.", "traceback", "builtins.frame", "builtins.cell")
"""Test-harness bookkeeping (pytest keeps captured log records) and transient frames."""


def guard(calls: int) -> float:
    """A hang guard (seconds) that grows with the size of the run; never a performance bound."""
    return 120 + calls * 0.01


def leak_threshold(calls: int) -> int:
    """A per-call leak grows some type by at least `calls` between rounds; allow far less."""
    return max(60, calls // 8)


def tool_call(request_id: Any, kind: int, token: str) -> tuple[dict[str, Any], str]:
    """A call of one of the mixed kinds; returns (message, the text its answer must carry)."""
    if kind in (0, 1, 2):
        name, arguments, text = "echo", {"text": token}, token  # sync, on a worker thread
    elif kind in (3, 4):
        number = int(token.rsplit("-", 1)[-1])
        name, arguments, text = "add", {"a": number, "b": 1}, str(number + 1)
    else:
        name, arguments, text = "slow_echo", {"token": token, "seconds": 0.005 * (kind - 4)}, token
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
            "params": {"name": name, "arguments": arguments}}, text


# -- stdio -------------------------------------------------------------------------------------------


class StdioSession:
    def __init__(self, process: Process) -> None:
        self.process = process
        self.buffer = b""

    async def send(self, messages: list[dict[str, Any]]) -> None:
        assert self.process.stdin is not None
        await self.process.stdin.send(b"".join(json.dumps(m).encode() + b"\n" for m in messages))

    async def read(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        while b"\n" not in self.buffer:
            self.buffer += await self.process.stdout.receive()
        line, self.buffer = self.buffer.split(b"\n", 1)
        return json.loads(line)

    async def request(self, message: dict[str, Any]) -> dict[str, Any]:
        await self.send([message])
        answer = await self.read()
        assert answer.get("id") == message["id"], answer
        return answer

    async def stats(self, objects: bool = False) -> dict[str, Any]:
        answer = await self.request({"jsonrpc": "2.0", "id": "stats", "method": "tools/call",
                                     "params": {"name": "stats", "arguments": {"objects": objects}}})
        return answer["result"]["structuredContent"]


async def stdio_round(session: StdioSession, number: int, calls: int) -> None:
    """`calls` pipelined calls (every 10th a never-ending one, cancelled right after it is sent)."""
    expected: dict[str, str] = {}
    cancelled: set[str] = set()
    batch: list[dict[str, Any]] = []
    for i in range(calls):
        request_id = f"r{number}-{i}"
        if i % 10 == 9:
            batch.append({"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                          "params": {"name": "hang", "arguments": {"token": request_id}}})
            batch.append({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": request_id}})
            cancelled.add(request_id)
        else:
            message, text = tool_call(request_id, i % 10, f"tok-{number}-{i}")
            batch.append(message)
            expected[request_id] = text
        if len(batch) >= 50:
            await session.send(batch)
            batch = []
    await session.send(batch)
    answers: Counter[str] = Counter()
    while sum(answers.values()) < len(expected):
        answer = await session.read()
        request_id = answer["id"]
        assert request_id in expected, f"an answer to nothing asked (or cancelled): {answer!r}"
        assert answer["result"]["content"][0]["text"] == expected[request_id], answer
        answers[request_id] += 1
    assert set(answers) == set(expected) and set(answers.values()) == {1}
    assert (await session.request({"jsonrpc": "2.0", "id": "sync", "method": "ping"}))["result"] == {}


async def open_target(stderr: Any) -> StdioSession:
    process = await anyio.open_process([sys.executable, str(TARGET)], stderr=stderr)
    session = StdioSession(process)
    await session.request(INIT)
    await session.send([{"jsonrpc": "2.0", "method": "notifications/initialized"}])
    return session


async def test_stdio_sessions_under_load_answer_every_call_once_and_leave_nothing_behind() -> None:
    with tempfile.TemporaryFile() as stderr, anyio.fail_after(guard(STDIO_SESSIONS * STDIO_CALLS)):
        sessions = [await open_target(stderr) for _ in range(STDIO_SESSIONS)]
        try:
            async with anyio.create_task_group() as tg:
                for session in sessions:
                    tg.start_soon(stdio_round, session, 0, STDIO_CALLS)
            before = [await s.stats(objects=True) for s in sessions]
            async with anyio.create_task_group() as tg:
                for session in sessions:
                    tg.start_soon(stdio_round, session, 1, STDIO_CALLS)
            after = [await s.stats(objects=True) for s in sessions]
            for first, second in zip(before, after, strict=True):
                assert (second["in_flight"], second["active"], second["pending"]) == (1, 1, 0), second
                assert second["tasks"] <= first["tasks"], (first["tasks"], second["tasks"])
                leaks = grown(Counter(first["objects"]), Counter(second["objects"]),
                              more_than=leak_threshold(STDIO_CALLS), ignore=IGNORED_TYPES)
                assert leaks == {}, leaks
            # Clients that go away with calls in flight: each server answers what it took, exits 0.
            for number, session in enumerate(sessions):
                in_flight = [tool_call(f"last-{number}-{i}", 5 + i % 4, f"last-{i}")[0] for i in range(40)]
                await session.send(in_flight)
                assert session.process.stdin is not None
                await session.process.stdin.aclose()
            for session in sessions:
                drained = Counter()
                while True:
                    try:
                        drained[(await session.read())["id"]] += 1
                    except (anyio.EndOfStream, anyio.ClosedResourceError):
                        break
                assert len(drained) == 40 and set(drained.values()) == {1}, drained
                assert await session.process.wait() == 0
        finally:
            for session in sessions:
                if session.process.returncode is None:
                    session.process.kill()
                    await session.process.wait()
                await session.process.aclose()


# -- HTTP ---------------------------------------------------------------------------------------------

HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}


def load_app() -> tuple[Any, Any]:
    from test_fuzz_http import load_target

    mcp = load_target().build()
    return mcp, mcp.streamable_http_app()


class HttpClient:
    def __init__(self, app: Any, session_id: str | None) -> None:
        self.app = app
        self.session_id = session_id

    def headers(self, message: dict[str, Any]) -> dict[str, str]:
        if self.session_id is None:  # the 2026-07-28 wire: no session, routing headers
            return {**HEADERS, "mcp-protocol-version": "2026-07-28", "mcp-method": message["method"],
                    **({"mcp-name": message["params"]["name"]} if message["method"] == "tools/call" else {})}
        return {**HEADERS, "mcp-session-id": self.session_id, "mcp-protocol-version": HANDSHAKE}

    async def post(self, message: dict[str, Any], **options: Any) -> Any:
        if self.session_id is None and "id" in message:
            message = {**message, "params": {**message["params"], "_meta": MODERN_META}}
        return await asgi_request(self.app, "POST", self.headers(message), json.dumps(message).encode(), **options)


async def http_call(client: HttpClient, request_id: str, kind: int, token: str, tally: Counter[str]) -> None:
    if kind == 7 and client.session_id is not None:  # never-ending, cancelled by the client
        message = {"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                   "params": {"name": "hang", "arguments": {"token": token}}}
        done = anyio.Event()

        async def cancel_until_done() -> None:
            while not done.is_set():
                await anyio.sleep(0.005)  # pacing: a cancel may land before its call, so it repeats
                response = await client.post({"jsonrpc": "2.0", "method": "notifications/cancelled",
                                              "params": {"requestId": request_id}})
                assert response.status == 202

        async with anyio.create_task_group() as tg:
            tg.start_soon(cancel_until_done)
            response = await client.post(message)
            done.set()
        assert response.completed and "result" not in response.body.decode(), (response.status, response.body)
        tally[f"cancelled: HTTP {response.status}"] += 1
        return
    if kind == 8:  # the client goes away in the middle of a slow call
        gone = anyio.Event()
        message = {"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                   "params": {"name": "slow_echo", "arguments": {"token": token, "seconds": 0.2}}}
        async with anyio.create_task_group() as tg:
            tg.start_soon(lambda: client.post(message, disconnect=gone))
            await anyio.sleep(0.01)  # early in the call, or before it starts: both must leave nothing behind
            gone.set()
        tally["disconnected"] += 1
        return
    message, text = tool_call(request_id, kind, token)
    response = await client.post(message)
    assert response.status == 200, response.body[:300]
    (answer,) = [a for a in response.messages() if "id" in a]
    assert answer["id"] == request_id and answer["result"]["content"][0]["text"] == text, (request_id, answer)
    tally["answered"] += 1


async def http_round(app: Any, manager: Any, number: int, sessions: int, calls: int) -> Counter[str]:
    tally: Counter[str] = Counter()
    clients: list[HttpClient] = []
    for _ in range(sessions):
        opened = await asgi_request(app, "POST", HEADERS, json.dumps(INIT).encode())
        assert opened.status == 200
        clients.append(HttpClient(app, opened.headers["mcp-session-id"]))
    clients.append(HttpClient(app, None))  # plus the session-less 2026-07-28 wire
    limiter = anyio.CapacityLimiter(64)

    async def one(client: HttpClient, index: int, call: int) -> None:
        async with limiter:
            await http_call(client, f"r{number}-{index}-{call}", call % 10, f"tok-{number}-{index}-{call}", tally)

    async with anyio.create_task_group() as tg:
        for index, client in enumerate(clients):
            for call in range(calls):
                tg.start_soon(one, client, index, call)
    peers = [manager._sessions[client.session_id].server_session.peer for client in clients[:-1]]
    with anyio.fail_after(10):  # disconnected slow calls finish their sleep (they are cancelled, not awaited)
        while not all(peer._in_flight == {} and peer._active == 0 and peer._pending == {} for peer in peers):
            await anyio.sleep(0.01)
    for client in clients[:-1]:
        session = manager._sessions[client.session_id]
        peer = session.server_session.peer
        assert peer._in_flight == {} and peer._active == 0 and peer._pending == {}, (peer._in_flight, peer._active)
        deleted = await asgi_request(app, "DELETE", {"mcp-session-id": client.session_id,
                                                     "mcp-protocol-version": HANDSHAKE})
        assert deleted.status == 200
    assert manager.session_count == 0
    assert manager._live == {}
    return tally


async def test_http_sessions_under_load_answer_every_call_once_and_leave_nothing_behind(wire_check: Any) -> None:
    mcp, app = load_app()
    with anyio.fail_after(guard((HTTP_SESSIONS + 1) * HTTP_CALLS)):
        async with mcp.session_manager.run():
            manager = mcp.session_manager
            total = (HTTP_SESSIONS + 1) * HTTP_CALLS
            first = await http_round(app, manager, 0, HTTP_SESSIONS, HTTP_CALLS)
            wire_check.messages.clear()  # the suite's record of what was sent (already schema-checked)
            tasks, objects = task_count(), object_counts()
            second = await http_round(app, manager, 1, HTTP_SESSIONS, HTTP_CALLS)
            assert first == second and sum(second.values()) == total, second
            assert task_count() <= tasks
            wire_check.messages.clear()
            leaks = grown(objects, object_counts(), more_than=leak_threshold(total), ignore=IGNORED_TYPES)
            assert leaks == {}, leaks
