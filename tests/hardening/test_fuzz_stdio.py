"""A real stdio server subprocess fed random and structured-invalid lines.

Every line is followed by a `ping` on the same connection; the test reads (with timeouts) until
the ping is answered and the line's own answer, if one is due, has arrived. Properties:

- the server never exits and never hangs: every read is bounded, the ping always comes back;
- parse errors get -32700 and malformed envelopes -32600 (id null when the id is unusable);
- a well-formed request gets exactly one answer with its id: a result, or an error the client
  caused (-32600/-32601/-32602/...), never -32603 and never a second answer;
- notifications (whatever their params) get no answer at all;
- every message the server writes is valid against the MCP schema, except the id-null errors
  JSON-RPC 2.0 requires for unreadable input (the MCP schema has no null id);
- at the end the server's tables are empty and EOF makes it exit with status 0.

Requests are derived from the spec schemas of 2025-11-25 and 2026-07-28 (`request_shapes`),
then one field anywhere (envelope, params, nested `_meta`, arguments) is replaced by a value of
another JSON type, removed, or joined by an unknown field.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from typing import Any

import pytest
from hardening_support import (
    CASES,
    HANDSHAKE,
    JSON,
    MODERN,
    WRONG_VALUES,
    StdioTarget,
    deep,
    expected_for,
    fuzz_settings,
    mutated_messages,
    notification_shapes,
    paths,
    removed,
    replaced,
)
from hypothesis import given
from hypothesis import strategies as st

from schema_check import default_checker

_CHECKER = default_checker()


class Prober:
    """Drives one connection: a line, a ping, and reads until both have their answers."""

    def __init__(self, *args: str) -> None:
        self.args = args
        self.target = self._start()
        self.ids = itertools.count()
        self.exchanges = 0

    def _start(self) -> StdioTarget:
        target = StdioTarget(*self.args)
        target.initialize()
        return target

    def live(self) -> StdioTarget:
        """The server (a fresh one if the last example killed it: that example already failed)."""
        if not self.target.alive():
            self.target = self._start()
        return self.target

    def next_id(self) -> str:
        return f"fuzz-{next(self.ids)}"

    def exchange(self, line: bytes) -> None:
        try:
            self._exchange(line)
        except BaseException:
            # Unread answers would be blamed on the next example (hypothesis replays many while
            # shrinking): a failed exchange ends this connection; the next one starts afresh.
            self.target.proc.kill()
            self.target.close()
            raise

    def _exchange(self, line: bytes) -> None:
        target = self.live()
        expected = expected_for(line)
        method = None
        ok, value = _loads(line)
        if ok and isinstance(value, dict) and isinstance(value.get("method"), str):
            method = value["method"]
        ping_id = f"probe-{next(self.ids)}"
        target.send_raw(line + b"\n")
        target.send({"jsonrpc": "2.0", "id": ping_id, "method": "ping"})
        self.exchanges += 1
        pinged, answered = False, expected.silent
        while not (pinged and answered):
            message = target.read(timeout=10)
            if message.get("id") == ping_id:
                assert message.get("result") == {}, f"the ping after {line[:300]!r} failed: {message!r}"
                pinged = True
                continue
            if message.get("method") == "notifications/subscriptions/acknowledged":
                # A fuzzed subscriptions/listen that was valid: a stream, not an answer. End it.
                stream = message["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"]
                assert stream == expected.id, f"acknowledged a stream nobody opened: {message!r}"
                target.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": stream}})
                answered = True
                continue
            assert not answered, f"unexpected message after {line[:300]!r}: {message!r}"
            expected.check(message)
            answered = True
            if not (message.get("id") is None and "error" in message):  # JSON-RPC's id null: not MCP-valid
                _CHECKER.check("server", message, None, method)


def _loads(line: bytes) -> tuple[bool, Any]:
    try:
        return True, json.loads(line)
    except (ValueError, RecursionError):
        return False, None


@pytest.fixture(scope="module")
def prober() -> Iterator[Prober]:
    driver = Prober()
    yield driver
    report = _stats(driver.live())
    assert report["in_flight"] == 1 and report["active"] == 1 and report["pending"] == 0, report  # the stats call
    assert driver.target.close() == 0, driver.target.stderr_text[-3000:]


@pytest.fixture(scope="module")
def trio_prober() -> Iterator[Prober]:
    driver = Prober("--backend", "trio")
    yield driver
    assert driver.target.close() == 0, driver.target.stderr_text[-3000:]


def _stats(target: StdioTarget) -> dict[str, Any]:
    answer = target.request({"jsonrpc": "2.0", "id": "stats", "method": "tools/call",
                             "params": {"name": "stats", "arguments": {}}})
    return answer["result"]["structuredContent"]


def dumps(message: Any) -> bytes:
    return json.dumps(message).encode()


# -- structured-invalid requests from the spec ---------------------------------------------------


@fuzz_settings(2000)
@given(st.data(), st.sampled_from([HANDSHAKE, MODERN]))
def test_requests_with_a_wrong_field_anywhere_are_answered_with_the_right_code(
        prober: Prober, data: st.DataObject, version: str) -> None:
    CASES[f"stdio: mutated {version} requests"] += 1
    message = data.draw(mutated_messages(version, prober.next_id()))
    prober.exchange(dumps(message))


@fuzz_settings(400)
@given(st.data())
def test_notifications_with_a_wrong_field_anywhere_get_no_answer(prober: Prober, data: st.DataObject) -> None:
    CASES["stdio: mutated notifications"] += 1
    method, params = data.draw(st.sampled_from(notification_shapes(HANDSHAKE)))
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        message["params"] = params
    path = data.draw(st.sampled_from(list(paths(message))[1:]))
    if data.draw(st.booleans()):
        message = removed(message, path)
    else:
        message = replaced(message, path, data.draw(st.one_of(st.sampled_from(WRONG_VALUES), JSON)))
    prober.exchange(dumps(message))


# -- random lines -------------------------------------------------------------------------------

RANDOM_LINES = st.one_of(
    st.binary(max_size=120).map(lambda b: b.replace(b"\n", b"")),
    JSON.map(dumps),
    st.dictionaries(st.sampled_from(["jsonrpc", "id", "method", "params", "result", "error"]),
                    st.one_of(st.sampled_from(WRONG_VALUES), JSON, st.just("2.0")), max_size=5).map(dumps),
    st.sampled_from([b"", b"   ", b"\r", b"{", b'{"jsonrpc":"2.0","id":1,"method":"ping"', b"[]", b"[1,2]",
                     b'{"jsonrpc":"2.0","id":"n","method":"x","params":{"v":NaN}}', b"\xff\xfe", b"\xed\xa0\x80",
                     b'{"jsonrpc":"2.0","id":"s","method":"\\ud800"}', b'{"jsonrpc":"2.0","id":"big","method":"x"}']),
)


@fuzz_settings(1500)
@given(RANDOM_LINES)
def test_random_lines_never_crash_or_hang_the_server(prober: Prober, line: bytes) -> None:
    CASES["stdio: random lines"] += 1
    prober.exchange(line)


@fuzz_settings(400)
@given(st.one_of(RANDOM_LINES, mutated_messages(MODERN, "trio-t").map(dumps)))
def test_the_trio_stdio_transport_holds_the_same_properties(trio_prober: Prober, line: bytes) -> None:
    CASES["stdio (trio): random lines and mutated requests"] += 1
    trio_prober.exchange(line)


# -- the worst single lines, always run ------------------------------------------------------

WORST = [
    b"[" * 100_000 + b"]" * 100_000,
    dumps({"jsonrpc": "2.0", "id": "deep", "method": "tools/call", "params": {"name": "echo", "arguments": {"text": deep(900)}}}),
    dumps({"jsonrpc": "2.0", "id": "wide", "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "w" * 3_000_000}}}),
    dumps({"jsonrpc": "2.0", "id": "many", "method": "tools/list", "params": {"x": list(range(300_000))}}),
    b'{"jsonrpc":"2.0","id":"int","method":"ping","params":{"n":' + b"9" * 10_000 + b"}}",
    b'{"jsonrpc":"2.0","id":"inf","method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":1e999}}}',
    b'{"jsonrpc":"2.0","id":"sur","method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"\\udfff"}}}',
    b'{"jsonrpc":"2.0","id":[1],"result":{}}',
    b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":{"a":1}}}',
    b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":[1,2]}}',
    b'{"jsonrpc":"2.0","id":true,"method":"ping"}',
    b'{"jsonrpc":"2.0","id":1.5,"method":"ping"}',
    b'{"jsonrpc":"2.0","id":null,"method":"ping"}',
    b'{"jsonrpc":"2.0","id":"dup","error":{"code":"x","message":[]}}',
]


@pytest.mark.parametrize("line", WORST, ids=lambda line: line[:40].decode(errors="replace"))
def test_the_worst_single_lines(prober: Prober, line: bytes) -> None:
    CASES["stdio: worst lines"] += 1
    prober.exchange(line)
