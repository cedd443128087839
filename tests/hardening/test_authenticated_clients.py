"""Clients holding a valid, low-privilege bearer token, against a server with scoped items
(`servers/scoped_server.py`, a real uvicorn started with `mcp.run()`). The gate reads a POST's
body to see what it calls, so it is where a body's size, shape and target are judged before the
transport sees them; the transport then serves a session to the principal that opened it only:

- a body over the 4 MiB limit, streamed or declared, is read no further than the limit: the
  server's peak memory grows by far less than the body (256 MiB sent), and the answer is the
  transport's own 413, given while the client is still sending;
- a body nested 1,500 or 100,000 deep is the parse error a server without auth answers (400,
  -32700), never a 500, and no traceback is logged;
- `resources/subscribe` (and a 2026-07-28 `subscriptions/listen` naming the resource) needs the
  scopes `resources/read` of that URI needs: 403 `insufficient_scope` otherwise;
- another principal's token with a session's id (POST, GET, DELETE) is answered as an unknown
  session id is (404 "Session not found"), and the session goes on for its owner.
"""

from __future__ import annotations

import json
import select
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from hardening_support import HANDSHAKE, INIT, MODERN, MODERN_META, asgi_request

from mcp.server import MCPServer
from mcp.server.streamable_http import DEFAULT_MAX_BODY

SERVER = Path(__file__).parent / "servers" / "scoped_server.py"
HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
BODY_SENT = 256 * 1024 * 1024
"""What the oversized-body client sends (the defect held it all, twice over)."""
MEMORY_BOUND_MIB = 64
"""How much the server's peak memory may grow while it is sent (the limit is 4 MiB)."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Server:
    proc: subprocess.Popen[bytes]
    port: int
    log: Path
    transport: str

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def memory_kib(self, field: str) -> int:
        """`VmRSS` (now) or `VmHWM` (the peak so far) of the server process."""
        with open(f"/proc/{self.proc.pid}/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
        raise AssertionError(f"no {field}")


def start(transport: str, log: Path, *extra: str) -> Server:
    port = free_port()
    with log.open("wb") as stderr:  # (the child keeps its own copy of the descriptor)
        proc = subprocess.Popen([sys.executable, str(SERVER), str(port), transport, *extra],
                                stdout=subprocess.DEVNULL, stderr=stderr)
    deadline = time.monotonic() + 60
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return Server(proc, port, log, transport)
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                stop(Server(proc, port, log, transport))
                raise AssertionError(f"the server did not start: {log.read_text()[-2000:]}") from None
            time.sleep(0.1)


def stop(server: Server) -> None:
    server.proc.terminate()
    try:
        server.proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        server.proc.kill()
        server.proc.wait()


@pytest.fixture(scope="module", params=["streamable-http", "sse"])
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    transport: str = request.param
    running = start(transport, tmp_path_factory.mktemp("scoped") / "server.log")
    try:
        yield running
    finally:
        stop(running)


@pytest.fixture(scope="module")
def http_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = start("streamable-http", tmp_path_factory.mktemp("scoped") / "server.log")
    try:
        yield running
    finally:
        stop(running)


def post_path(server: Server) -> str:
    """Where the server's transport takes POSTed messages (SSE: the message endpoint, where a
    request without a session is still judged by its size first)."""
    return "/messages/" if server.transport == "sse" else "/mcp"


# -- the body limit comes first ------------------------------------------------------------------


@dataclass
class RawAnswer:
    status: int
    body: bytes
    sent_before_answer: int | None
    """Body bytes the client had sent when the first byte of the answer arrived."""
    sent: int


def post_oversized(server: Server, *, declared: bool, token: str = "alice") -> RawAnswer:
    """POST a `BODY_SENT`-byte body (a `tools/call` of the scoped tool, padded), with its
    Content-Length or chunked, sending all of it unless the server closes the connection; then
    read the answer."""
    head = (f"POST {post_path(server)} HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nAuthorization: Bearer {token}\r\n"
            "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n")
    head += f"Content-Length: {BODY_SENT}\r\n" if declared else "Transfer-Encoding: chunked\r\n"
    opening = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"purge","arguments":{"pad":"'
    size = 64 * 1024
    padding = b"x" * size
    sent, sent_before_answer = 0, None
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as sock:
        sock.sendall(head.encode() + b"\r\n")
        try:
            while sent < BODY_SENT:
                piece = opening + padding[len(opening):] if sent == 0 else padding
                sock.sendall(piece if declared else b"%x\r\n%s\r\n" % (len(piece), piece))
                sent += len(piece)
                if sent_before_answer is None and select.select([sock], [], [], 0)[0]:
                    sent_before_answer = sent
            if not declared:
                sock.sendall(b"0\r\n\r\n")
        except OSError:
            pass  # the server closed the connection: what it answered is still there to read
        return RawAnswer(*read_answer(sock), sent_before_answer, sent)


def read_answer(sock: socket.socket) -> tuple[int, bytes]:
    data = b""
    while b"\r\n\r\n" not in data:
        more = sock.recv(65536)
        assert more, f"the connection closed before an answer: {data!r}"
        data += more
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    fields = {name.strip().lower(): value.strip() for name, _, value in (line.partition(":") for line in lines[1:])}
    length = int(fields.get("content-length", "0"))
    while len(body) < length:
        more = sock.recv(65536)
        assert more, "the connection closed in the middle of the answer"
        body += more
    return int(lines[0].split()[1]), body[:length]


def warm_up(server: Server) -> None:
    """One ordinary call through the gate (every module the attack's path needs is loaded)."""
    with httpx.Client(timeout=30) as http:
        response = http.post(server.url + post_path(server), headers={**HEADERS, "authorization": "Bearer alice"},
                             content=json.dumps(INIT))
        assert response.status_code in (200, 400, 404), response.text  # (SSE: no session named)


@pytest.mark.parametrize("declared", [False, True], ids=["streamed", "declared"])
def test_a_body_over_the_limit_is_refused_413_with_the_server_holding_far_less_than_it(
        server: Server, declared: bool) -> None:
    """A valid token's 256 MiB POST to a server where some item has `required_scopes=` (so the
    gate reads bodies): the answer is the transport's own 413, given before the client has sent
    64 MiB, and the server's peak memory grows by under 64 MiB (the defect read it all first:
    1 GB for 500 MB)."""
    warm_up(server)
    before = server.memory_kib("VmRSS")
    answer = post_oversized(server, declared=declared)
    growth_mib = (server.memory_kib("VmHWM") - before) / 1024
    assert answer.status == 413, answer
    if post_path(server) == "/mcp":
        assert json.loads(answer.body) == {"jsonrpc": "2.0", "id": None, "error": {
            "code": -32600, "message": f"Payload Too Large: the request body exceeds {DEFAULT_MAX_BODY} bytes"}}
    else:
        assert answer.body == b"Request body too large"
    assert answer.sent_before_answer is not None and answer.sent_before_answer < 64 * 1024 * 1024, answer
    assert growth_mib < MEMORY_BOUND_MIB, f"peak memory grew {growth_mib:.0f} MiB while {answer.sent} bytes were sent"
    warm_up(server)  # and it serves on


def test_a_body_just_within_the_limit_is_still_checked_for_its_scopes(http_server: Server) -> None:
    """The bound is the transport's: a call of the scoped tool padded to the limit itself reaches
    the scope check (403 naming the scope), one byte more is the 413."""
    headers = {**HEADERS, "authorization": "Bearer alice"}
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "purge", "arguments": {}}}
    text = json.dumps(call)
    at_limit = text + " " * (DEFAULT_MAX_BODY - len(text))
    with httpx.Client(timeout=30) as http:
        denied = http.post(f"{http_server.url}/mcp", headers=headers, content=at_limit)
        assert denied.status_code == 403 and 'scope="notes:admin"' in denied.headers["www-authenticate"]
        too_large = http.post(f"{http_server.url}/mcp", headers=headers, content=at_limit + " ")
        assert too_large.status_code == 413


# -- deep nesting -----------------------------------------------------------------------------------


def nested(depth: int, *, envelope: bool) -> bytes:
    inner = "[" * depth + "]" * depth
    if not envelope:
        return inner.encode()
    return ('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":'
            + inner + "}}}").encode()


async def unauthenticated_answer(body: bytes) -> tuple[int, Any]:
    """What a server without auth answers `body` with (in process, its own transport)."""
    mcp = MCPServer("plain")
    app = mcp.streamable_http_app(json_response=True)
    async with mcp.session_manager.run():
        response = await asgi_request(app, "POST", {**HEADERS, "host": "127.0.0.1"}, body)
    return response.status, json.loads(response.body)


@pytest.mark.parametrize("depth", [1_500, 100_000])
@pytest.mark.parametrize("envelope", [False, True], ids=["bare", "in-a-call"])
def test_an_authenticated_body_nested_deep_is_the_parse_error_a_server_without_auth_answers(
        http_server: Server, depth: int, envelope: bool) -> None:
    """Nested 1,500 or 100,000 deep, as an opening request and in a session: 400 with the
    JSON-RPC parse error (-32700), the answer a server without auth gives; never a 500, and the
    server's log has no traceback (the defect: every time)."""
    body = nested(depth, envelope=envelope)
    expected = anyio.run(unauthenticated_answer, body)
    assert expected[0] == 400 and expected[1]["error"]["code"] == -32700
    headers = {**HEADERS, "authorization": "Bearer alice"}
    with httpx.Client(timeout=30) as http:
        opening = http.post(f"{http_server.url}/mcp", headers=headers, content=body)
        assert (opening.status_code, opening.json()) == expected
        session = http.post(f"{http_server.url}/mcp", headers=headers, content=json.dumps(INIT))
        session_id = session.headers["mcp-session-id"]
        within = http.post(f"{http_server.url}/mcp", headers={**headers, "mcp-session-id": session_id}, content=body)
        assert within.status_code == 400 and within.json()["error"]["code"] == -32700
        ping = http.post(f"{http_server.url}/mcp", headers={**headers, "mcp-session-id": session_id},
                         content=json.dumps({"jsonrpc": "2.0", "id": 2, "method": "ping"}))
        assert ping.json() == {"jsonrpc": "2.0", "id": 2, "result": {}}
    log = http_server.log.read_text(errors="replace")
    assert "Traceback" not in log and "Exception in ASGI application" not in log, log[-3000:]


# -- subscriptions need the read scopes -------------------------------------------------------------


def open_session(http: httpx.Client, url: str, token: str) -> dict[str, str]:
    headers = {**HEADERS, "authorization": f"Bearer {token}"}
    opened = http.post(url, headers=headers, content=json.dumps(INIT))
    assert opened.status_code == 200, opened.text
    headers["mcp-session-id"] = opened.headers["mcp-session-id"]
    headers["mcp-protocol-version"] = HANDSHAKE
    http.post(url, headers=headers, content=json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
    return headers


def test_subscribing_to_a_resource_needs_the_scopes_reading_it_needs(http_server: Server) -> None:
    """`resources/subscribe` of `notes://secret` (read needs `notes:admin`) with a `notes:read`
    token: 403 `insufficient_scope` naming the scope, as its `resources/read` is, and the session
    is not subscribed; with `notes:admin` it is allowed, and an unscoped resource for anyone."""
    url = f"{http_server.url}/mcp"
    with httpx.Client(timeout=30) as http:
        alice = open_session(http, url, "alice")
        for method in ("resources/read", "resources/subscribe"):
            denied = http.post(url, headers=alice, content=json.dumps(
                {"jsonrpc": "2.0", "id": 3, "method": method, "params": {"uri": "notes://secret"}}))
            assert denied.status_code == 403, (method, denied.text)
            challenge = denied.headers["www-authenticate"]
            assert 'error="insufficient_scope"' in challenge and 'scope="notes:admin"' in challenge
        public = http.post(url, headers=alice, content=json.dumps(
            {"jsonrpc": "2.0", "id": 4, "method": "resources/subscribe", "params": {"uri": "notes://public"}}))
        assert public.json() == {"jsonrpc": "2.0", "id": 4, "result": {}}
        carol = open_session(http, url, "carol")
        allowed = http.post(url, headers=carol, content=json.dumps(
            {"jsonrpc": "2.0", "id": 5, "method": "resources/subscribe", "params": {"uri": "notes://secret"}}))
        assert allowed.json() == {"jsonrpc": "2.0", "id": 5, "result": {}}


def test_a_long_uri_against_a_scoped_template_is_judged_in_linear_time(http_server: Server) -> None:
    """`pair://{name}-{date}` needs `notes:admin`: the gate matches URIs against it as the server
    routes them (linearly; the gate's own regular expression backtracked: a 24 KB URI of dashes
    took 0.3 s, a 3 MB one would take hours, every other client waiting). A 3 MB URI that does
    not fit is answered within the client's timeout, then a ping; one that fits is still refused
    without the scope and served with it."""
    url = f"{http_server.url}/mcp"
    read = {"jsonrpc": "2.0", "id": 3, "method": "resources/read", "params": {"uri": "pair://" + "-" * 3_000_000 + "/"}}
    with httpx.Client(timeout=60) as http:
        alice = open_session(http, url, "alice")
        long = http.post(url, headers=alice, content=json.dumps(read))
        assert long.status_code == 200 and long.json()["error"]["code"] != -32603, long.text[:300]
        ping = http.post(url, headers=alice, content=json.dumps({"jsonrpc": "2.0", "id": 4, "method": "ping"}))
        assert ping.json() == {"jsonrpc": "2.0", "id": 4, "result": {}}
        fits = json.dumps({"jsonrpc": "2.0", "id": 5, "method": "resources/read", "params": {"uri": "pair://ada-monday"}})
        assert http.post(url, headers=alice, content=fits).status_code == 403
        carol = open_session(http, url, "carol")
        assert http.post(url, headers=carol, content=fits).json()["result"]["contents"][0]["text"] == "ada on monday"


@pytest.mark.parametrize("key", ["resourceSubscriptions", "resource_subscriptions"])
def test_listening_for_a_resource_needs_the_scopes_reading_it_needs(http_server: Server, key: str) -> None:
    """The 2026-07-28 way to subscribe, a `subscriptions/listen` whose filter names
    `notes://secret` (in either spelling the server accepts), is refused the same 403 without
    `notes:admin`; with it the stream opens."""
    listen = {"jsonrpc": "2.0", "id": 7, "method": "subscriptions/listen", "params": {
        "notifications": {key: ["notes://public", "notes://secret"]}, "_meta": MODERN_META}}
    headers = {**HEADERS, "mcp-protocol-version": MODERN, "mcp-method": "subscriptions/listen"}
    with httpx.Client(timeout=30) as http:
        denied = http.post(f"{http_server.url}/mcp", headers={**headers, "authorization": "Bearer alice"},
                           content=json.dumps(listen))
        assert denied.status_code == 403 and 'scope="notes:admin"' in denied.headers["www-authenticate"]
        with http.stream("POST", f"{http_server.url}/mcp", headers={**headers, "authorization": "Bearer carol"},
                         content=json.dumps(listen)) as allowed:
            assert allowed.status_code == 200
            for line in allowed.iter_lines():
                if line.startswith("data:"):
                    assert json.loads(line[5:])["method"] == "notifications/subscriptions/acknowledged"
                    break


# -- a session belongs to the principal that opened it ----------------------------------------------


def test_a_session_answers_only_the_principal_that_opened_it(http_server: Server) -> None:
    """Alice's session id with Bob's token (the same OAuth client, another subject) or Carol's
    (more scopes): POST, GET and DELETE are answered exactly as an unknown session id is (404,
    -32600 "Session not found"), with a warning in the log; without a token, the gate's 401.
    Alice's session is untouched: it still answers her, and Bob's DELETE did not end it."""
    url = f"{http_server.url}/mcp"
    ping = json.dumps({"jsonrpc": "2.0", "id": 9, "method": "ping"})
    with httpx.Client(timeout=30) as http:
        alice = open_session(http, url, "alice")
        unknown = http.post(url, headers={**alice, "mcp-session-id": "no-such-session"}, content=ping)
        assert unknown.status_code == 404
        for token in ("bob", "carol"):
            other = {**alice, "authorization": f"Bearer {token}"}
            posted = http.post(url, headers=other, content=ping)
            with http.stream("GET", url, headers={**other, "accept": "text/event-stream"}) as fetched:
                if fetched.status_code == 404:  # (an opened stream would not end: not read)
                    fetched.read()
            deleted = http.delete(url, headers=other)
            for refused in (posted, fetched, deleted):
                assert refused.status_code == 404, (token, refused.request.method)
                assert refused.json() == unknown.json() and "mcp-session-id" not in refused.headers
        anonymous = {key: value for key, value in alice.items() if key != "authorization"}
        assert http.post(url, headers=anonymous, content=ping).status_code == 401
        assert http.post(url, headers=alice, content=ping).json() == {"jsonrpc": "2.0", "id": 9, "result": {}}
        assert http.delete(url, headers=alice).status_code == 200
        assert http.post(url, headers=alice, content=ping).status_code == 404  # ended by its owner
    assert "credential does not match the one that created the session" in http_server.log.read_text(errors="replace")
