"""A real stdio subprocess spoken to in raw JSON-RPC: wire names, bad input, stray prints, EOF."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

SERVER = Path(__file__).parent / "servers" / "weather.py"
INIT: dict[str, Any] = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}


class RawServer:
    """A server subprocess with line-oriented, time-bounded I/O."""

    def __init__(self, *args: str, script: Path = SERVER) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, str(script), *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, bufsize=0,
        )
        self.transcript: list[bytes] = []
        self.stderr_text = ""

    def send_raw(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, message: Any) -> None:
        self.send_raw(json.dumps(message).encode() + b"\n")

    def read(self, timeout: float = 10.0) -> dict[str, Any]:
        import selectors

        assert self.proc.stdout is not None
        selector = selectors.DefaultSelector()
        selector.register(self.proc.stdout, selectors.EVENT_READ)
        line = b""
        while not line.endswith(b"\n"):
            if not selector.select(timeout):
                raise TimeoutError(f"no answer from the server within {timeout}s; got {line!r}")
            chunk = self.proc.stdout.readline()
            if not chunk:
                raise EOFError(f"server closed stdout; stderr: {self.stderr()}")
            line += chunk
        self.transcript.append(line)
        return json.loads(line)

    def request(self, message: Any) -> dict[str, Any]:
        self.send(message)
        return self.read()

    def initialize(self) -> dict[str, Any]:
        answer = self.request(INIT)
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return answer

    def stderr(self) -> str:
        return self.stderr_text

    def close(self) -> int:
        """Close stdin (EOF), wait for the exit code, collect stderr; kill only as a last resort."""
        if self.proc.stdin is not None and not self.proc.stdin.closed:
            self.proc.stdin.close()
        try:
            return self.proc.wait(timeout=10)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            if self.proc.stderr is not None and not self.proc.stderr.closed:
                self.stderr_text = self.proc.stderr.read().decode(errors="replace")
            for stream in (self.proc.stdout, self.proc.stderr):
                if stream is not None:
                    stream.close()


@pytest.fixture
def server() -> Any:
    raw = RawServer()
    try:
        yield raw
    finally:
        raw.close()


def _call(server: RawServer, request_id: int, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return server.request({"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                           "params": {"name": name, "arguments": arguments}})


def test_tools_list_and_call_use_the_spec_wire_names(server: RawServer) -> None:
    init = server.initialize()
    assert init["result"]["protocolVersion"] == "2025-11-25"
    assert init["result"]["serverInfo"] == {"name": "Weather", "version": "1.0.0"}
    tools = server.request({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})["result"]["tools"]
    by_name = {t["name"]: t for t in tools}
    assert [t["name"] for t in tools] == ["get_temperature", "get_weather", "get_forecast", "chatty", "boom", "die"]
    assert by_name["get_temperature"]["outputSchema"]["title"] == "get_temperatureOutput"
    assert by_name["get_temperature"]["inputSchema"]["title"] == "get_temperatureArguments"
    raw_line = None
    answer = _call(server, 2, "get_temperature", {"city": "Cairo"})
    raw_line = server.transcript[-1]
    assert b'"structuredContent":{"result":34}' in raw_line
    assert answer["result"]["content"] == [{"type": "text", "text": "34"}]
    failed = _call(server, 3, "get_weather", {"city": "London"})
    assert b'"isError":true' in server.transcript[-1]
    assert failed["result"]["content"][0]["text"].startswith("Error executing tool get_weather: 1 validation error for WeatherData\nhumidity\n")
    assert "structuredContent" not in failed["result"]


def test_stray_prints_in_a_tool_do_not_corrupt_the_protocol_stream(server: RawServer) -> None:
    server.initialize()
    answer = _call(server, 1, "chatty", {"text": "hi"})
    assert answer["result"]["structuredContent"] == {"result": "HI"}
    assert server.request({"jsonrpc": "2.0", "id": 2, "method": "ping"}) == {"jsonrpc": "2.0", "id": 2, "result": {}}
    assert server.close() == 0
    assert all(line.startswith(b"{") for line in server.transcript)
    assert "this line must not reach the protocol stream" in server.stderr()
    assert "neither must this" in server.stderr()


def test_malformed_json_gets_a_parse_error_with_null_id_and_the_connection_keeps_serving(server: RawServer) -> None:
    server.initialize()
    server.send_raw(b'{"jsonrpc": "2.0", "id": 1, "method": \n')
    error = server.read()
    assert error["id"] is None and error["error"]["code"] == -32700
    server.send_raw(b"\xff\xfe not utf-8\n")
    assert server.read()["error"]["code"] == -32700
    assert _call(server, 5, "get_temperature", {"city": "London"})["result"]["structuredContent"] == {"result": 17}


@pytest.mark.parametrize(
    ("payload", "code"),
    [
        (b"42\n", -32600),
        (b'"a string"\n', -32600),
        (b'[{"jsonrpc": "2.0", "id": 1, "method": "ping"}]\n', -32600),
        (b'{"jsonrpc": "1.0", "id": 1, "method": "ping"}\n', -32600),
        (b'{"jsonrpc": "2.0", "id": 1, "method": "no/such/method"}\n', -32601),
        (b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"arguments": 3}}\n', -32602),
        (b'{"jsonrpc": "2.0", "id": {"x": 1}, "method": "ping"}\n', -32600),
    ],
)
def test_invalid_requests_get_the_spec_error_and_the_server_keeps_serving(server: RawServer, payload: bytes, code: int) -> None:
    server.initialize()
    server.send_raw(payload)
    assert server.read()["error"]["code"] == code
    assert _call(server, 9, "get_temperature", {"city": "London"})["result"]["structuredContent"] == {"result": 17}


def test_a_request_before_initialize_is_refused_and_initialize_still_works(server: RawServer) -> None:
    answer = server.request({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    # The official server's answer before the handshake, for a method it serves.
    assert answer["error"] == {"code": -32602, "message": "Invalid request parameters", "data": ""}
    assert server.initialize()["result"]["protocolVersion"] == "2025-11-25"


def test_a_tool_exception_is_an_is_error_result_that_keeps_its_text_on_the_server(server: RawServer) -> None:
    server.initialize()
    answer = _call(server, 1, "boom", {})["result"]
    assert answer["isError"] is True
    assert answer["content"][0]["text"] == "Error executing tool boom"  # "kaput" stays in the server's log


def test_unknown_tool_and_bad_arguments_are_is_error_results(server: RawServer) -> None:
    server.initialize()
    assert _call(server, 1, "nope", {})["result"]["content"][0]["text"] == "Unknown tool: nope"
    bad = _call(server, 2, "get_temperature", {"city": 3})["result"]
    assert bad["isError"] is True and "1 validation error for get_temperatureArguments" in bad["content"][0]["text"]


def test_the_2026_wire_needs_no_handshake_and_stamps_server_info(server: RawServer) -> None:
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}
    answer = server.request({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                             "params": {"name": "get_temperature", "arguments": {"city": "London"}, "_meta": meta}})
    result = answer["result"]
    assert result["resultType"] == "complete"
    assert result["_meta"]["io.modelcontextprotocol/serverInfo"] == {"name": "Weather", "version": "1.0.0"}
    unsupported = server.request({"jsonrpc": "2.0", "id": 2, "method": "tools/list",
                                  "params": {"_meta": {**meta, "io.modelcontextprotocol/protocolVersion": "2099-01-01"}}})
    assert unsupported["error"]["code"] == -32022
    assert unsupported["error"]["data"] == {"requested": "2099-01-01", "supported": ["2026-07-28"]}


def test_eof_on_stdin_ends_the_server_cleanly(server: RawServer) -> None:
    server.initialize()
    assert server.close() == 0


def test_older_revisions_never_see_newer_fields(server: RawServer) -> None:
    server.request({**INIT, "params": {**INIT["params"], "protocolVersion": "2025-03-26"}})
    server.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    tools = server.request({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})["result"]["tools"]
    assert all("outputSchema" not in t and "title" not in t for t in tools)
    answer = _call(server, 2, "get_temperature", {"city": "London"})["result"]
    assert "structuredContent" not in answer
    assert answer["content"] == [{"type": "text", "text": "17"}]


def test_a_line_over_the_limit_is_refused_without_buffering_it_and_the_next_request_works() -> None:
    server = RawServer("--max-line", "2048")
    try:
        server.initialize()
        huge = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": "get_temperature", "arguments": {"city": "x" * 100_000}}}
        server.send(huge)
        error = server.read()
        assert error["error"]["code"] == -32600 and "2048" in error["error"]["message"]
        assert _call(server, 2, "get_temperature", {"city": "London"})["result"]["structuredContent"] == {"result": 17}
    finally:
        server.close()
