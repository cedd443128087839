"""The low-level `Server` over a real stdio subprocess, spoken to in raw JSON-RPC: results and
output schemas reach the wire as returned (checked on the bytes), `_meta` round trips, a crashing
handler is answered with a sanitised -32603, capabilities are exactly those of the handlers given,
a custom method and a notification handler work end to end, and middleware runs outermost first
and can refuse. Every line both sides wrote validates against the negotiated revision's schema."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.interaction.test_stdio_wire import RawServer

from schema_check import check_lines

SERVER = Path(__file__).parent / "servers" / "lowlevel_features.py"
ODD_SCHEMA_TEXT = ('{"type":"object","properties":{"z":{"type":"string","pattern":"^a  b$"},"a":{"type":"integer"}},'
                   '"required":["z"],"$schema":"https://json-schema.org/draft/2020-12/schema","x-vendor":[1,{"k":null}]}')


class Recorded(RawServer):
    """A `RawServer` that also keeps what the test wrote, for the schema check."""

    def __init__(self) -> None:
        super().__init__(script=SERVER)
        self.sent: list[bytes] = []
        self.excused: list[bytes] = []

    def send_invalid(self, data: bytes) -> None:
        """Write input that is invalid on purpose (left out of the client-side schema check)."""
        super().send_raw(data)

    def excuse_last(self) -> None:
        """Leave the last line read out of the schema check: JSON-RPC answers unparsable input
        with `"id": null`, which the MCP schema's error response does not allow."""
        self.excused.append(self.transcript[-1])

    def send_raw(self, data: bytes) -> None:
        self.sent.append(data)
        super().send_raw(data)


@pytest.fixture
def server() -> Iterator[Recorded]:
    raw = Recorded()
    try:
        yield raw
    finally:
        assert raw.close() == 0
    check_lines([line for line in raw.transcript if line not in raw.excused], "server", peer_lines=raw.sent)
    check_lines(raw.sent, "client", "2025-11-25")


def _call(server: Recorded, request_id: int, name: str, **arguments: Any) -> dict[str, Any]:
    return server.request({"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                           "params": {"name": name, "arguments": arguments}})


def test_capabilities_are_exactly_those_of_the_handlers_given(server: Recorded) -> None:
    result = server.initialize()["result"]
    assert result["capabilities"] == {"tools": {"listChanged": False}}
    assert result["serverInfo"] == {"name": "low-stdio", "version": "9"}


def test_output_schemas_and_results_reach_the_wire_byte_for_byte_with_meta(server: Recorded) -> None:
    server.initialize()
    tools = server.request({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})["result"]["tools"]
    assert [tool["name"] for tool in tools] == ["echo", "crash", "forbidden"]
    assert server.transcript[-1].count(b'"outputSchema":' + ODD_SCHEMA_TEXT.encode()) == 3
    answer = _call(server, 2, "echo", a=5, tag="round-trip", unchecked="arguments are never validated")
    line = server.transcript[-1]
    assert b'"structuredContent":{"z":"a  b","a":5}' in line
    assert answer["result"]["_meta"] == {"app/only": {"secret": 1, "echo": "round-trip"}}
    assert "isError" not in answer["result"] or answer["result"]["isError"] is False


def test_a_crashing_handler_answers_code_0_with_its_text_and_the_server_keeps_serving(server: Recorded) -> None:
    server.initialize()
    answer = _call(server, 1, "crash")
    # The official low-level server's handshake-era answer: code 0 and the exception's text (a
    # low-level handler's exception text is its message to the caller), the traceback logged too.
    assert answer["error"]["code"] == 0 and "hunter2" in answer["error"]["message"]
    assert _call(server, 2, "echo", a=1)["result"]["structuredContent"] == {"z": "a  b", "a": 1}
    server.close()
    assert "hunter2" in server.stderr()


def test_a_custom_method_validates_its_params_and_answers(server: Recorded) -> None:
    server.initialize()
    ok = server.request({"jsonrpc": "2.0", "id": 1, "method": "vendor/search", "params": {"query": "q", "limit": 2}})
    assert ok["result"]["hits"] == ["q-0", "q-1"]
    bad = server.request({"jsonrpc": "2.0", "id": 2, "method": "vendor/search", "params": {"limit": "many"}})
    assert bad["error"]["code"] == -32602 and "query" in bad["error"]["message"]
    missing = server.request({"jsonrpc": "2.0", "id": 3, "method": "vendor/nothing", "params": {}})
    assert missing["error"]["code"] == -32601


def test_middleware_runs_outermost_first_sees_notifications_and_can_refuse(server: Recorded) -> None:
    server.initialize()
    refused = _call(server, 1, "forbidden")
    assert refused["error"] == {"code": -32001, "message": "Forbidden by policy", "data": {"tool": "forbidden"}}
    _call(server, 2, "echo", a=3)
    server.send({"jsonrpc": "2.0", "method": "vendor/note", "params": {"count": 7}})
    seen = server.request({"jsonrpc": "2.0", "id": 3, "method": "trail/get"})["result"]
    assert seen["notes"] == [7]
    assert seen["trail"] == [
        "outer>initialize", "inner>initialize",
        "outer>notifications/initialized", "inner>notifications/initialized",
        "outer>tools/call",  # refused by the policy between the two recorders
        "outer>tools/call", "inner>tools/call",
        "outer>vendor/note", "inner>vendor/note",
    ]


def test_bad_input_is_answered_and_the_connection_keeps_serving(server: Recorded) -> None:
    server.initialize()
    server.send_invalid(b"{not json\n")
    assert server.read()["error"]["code"] == -32700
    server.excuse_last()
    server.send_invalid(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": []}).encode() + b"\n")
    assert server.read()["error"] == {"code": -32600, "message": "Invalid Request: params must be an object"}
    assert _call(server, 2, "echo", a=9)["result"]["structuredContent"]["a"] == 9

