"""Per-client limits over a real uvicorn (`servers/sessions_server.py`, started with `mcp.run()`
and with the host's own `uvicorn.run(..., http=guarded_httptools(...))`): a client holding its
`max_sessions_per_client` sessions is refused another `initialize` with 429 and a JSON-RPC error
saying why, until it ends one; an idle kept-alive connection is closed after `keep_alive_timeout`;
an oversized request head is refused with 431 on both ways of running the server."""

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

from mcp._protocol.http import DEFAULT_MAX_SESSIONS_PER_CLIENT
from mcp.server.http_limits import DEFAULT_HTTP_LIMITS, SessionsPerClient
from mcp.server.streamable_http_app import _limits, uvicorn_config

SERVER = Path(__file__).parent / "servers" / "sessions_server.py"
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module", params=["run", "uvicorn"])
def base(request: pytest.FixtureRequest) -> Iterator[str]:
    port = free_port()
    proc = subprocess.Popen([sys.executable, str(SERVER), str(port), request.param],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert proc.poll() is None and time.monotonic() < deadline, "the server did not start"
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def initialize(http: httpx.Client, url: str) -> httpx.Response:
    return http.post(url, headers=HEADERS, content=json.dumps(INIT))


def echo(http: httpx.Client, url: str, session_id: str, text: str) -> Any:
    http.post(url, headers={**HEADERS, "mcp-session-id": session_id},
              content=json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
    response = http.post(url, headers={**HEADERS, "mcp-session-id": session_id}, content=json.dumps(
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": text}}}))
    assert response.status_code == 200, response.text
    return response.json()["result"]["content"][0]["text"]


def test_the_default_is_the_documented_one() -> None:
    assert DEFAULT_MAX_SESSIONS_PER_CLIENT == 100
    assert SessionsPerClient().limit == 100
    assert DEFAULT_HTTP_LIMITS.keep_alive_timeout == 5.0


def test_a_client_at_its_session_limit_is_refused_initialize_until_it_ends_one(base: str) -> None:
    with httpx.Client(timeout=30) as http:
        sessions = []
        for _ in range(3):
            response = initialize(http, base)
            assert response.status_code == 200, response.text
            sessions.append(response.headers["mcp-session-id"])
        refused = initialize(http, base)
        assert refused.status_code == 429
        error = refused.json()["error"]
        assert error["code"] == -32600 and error["data"] == {"limit": 3}
        assert error["message"].startswith("Too Many Requests: this client already has 3 open sessions")
        assert "mcp-session-id" not in refused.headers
        assert [echo(http, base, session_id, session_id[:6]) for session_id in sessions] == \
            [session_id[:6] for session_id in sessions]  # the client's sessions go on serving
        assert http.delete(base, headers={"mcp-session-id": sessions.pop()}).status_code == 200
        again = initialize(http, base)
        assert again.status_code == 200
        sessions.append(again.headers["mcp-session-id"])
        assert initialize(http, base).status_code == 429
        for session_id in sessions:
            assert http.delete(base, headers={"mcp-session-id": session_id}).status_code == 200
        assert initialize(http, base).status_code == 200


def test_an_idle_kept_alive_connection_is_closed_and_the_server_serves_on(base: str) -> None:
    port = int(base.split(":")[2].split("/")[0])
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}).encode()
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                     b"Accept: application/json\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
        data = b""
        while chunk := sock.recv(65536):  # the answer, then the end once the connection idled out
            data += chunk
    assert data.startswith(b"HTTP/1.1 400"), data[:200]  # a ping without a session: answered, kept alive
    with httpx.Client(timeout=30) as http:
        response = initialize(http, base)
        assert response.status_code == 200
        http.delete(base, headers={"mcp-session-id": response.headers["mcp-session-id"]})


def test_an_oversized_request_head_is_refused_with_431(base: str) -> None:
    with httpx.Client(timeout=30) as http:
        response = http.post(base, headers={**HEADERS, "x-pad": "a" * (20 * 1024)}, content=json.dumps(INIT))
    assert response.status_code == 431


def test_run_passes_the_keep_alive_timeout_to_uvicorn() -> None:
    options: dict[str, Any] = {"keep_alive_timeout": 2.5, "json_response": True}
    limits = _limits(options)
    assert limits.keep_alive_timeout == 2.5 and options == {"json_response": True}
    config = uvicorn_config(None, host="127.0.0.1", port=1, log_level="info", keep_alive_timeout=limits.keep_alive_timeout)
    assert config.timeout_keep_alive == 2.5


def test_clients_are_told_apart_by_their_principal_else_their_address() -> None:
    class Token:
        def __init__(self, client_id: str, subject: str | None) -> None:
            self.client_id, self.subject, self.claims = client_id, subject, {"iss": "https://issuer"}

    address = SessionsPerClient.client_of({"client": ("10.0.0.1", 5000)})
    assert address == SessionsPerClient.client_of({"client": ("10.0.0.1", 6000)})  # any port: one client
    assert address != SessionsPerClient.client_of({"client": ("10.0.0.2", 5000)})
    alice = SessionsPerClient.client_of({"client": ("10.0.0.1", 5000), "mcp.access_token": Token("app", "alice")})
    bob = SessionsPerClient.client_of({"client": ("10.0.0.1", 5000), "mcp.access_token": Token("app", "bob")})
    assert len({address, alice, bob}) == 3  # users of one app behind one proxy are told apart
    assert alice == SessionsPerClient.client_of({"client": ("10.9.9.9", 1), "mcp.access_token": Token("app", "alice")})


def test_the_count_at_its_edge() -> None:
    quota = SessionsPerClient(2)
    for _ in range(2):
        assert quota.admit("c")
        quota.opened("c")
    assert not quota.admit("c") and quota.admit("d")
    quota.closed("c")
    assert quota.admit("c") and quota.open_sessions("c") == 1
    with pytest.raises(ValueError):
        SessionsPerClient(0)
    unbounded = SessionsPerClient(None)
    unbounded.opened("c")
    assert unbounded.admit("c") and unbounded.open_sessions("c") == 0
