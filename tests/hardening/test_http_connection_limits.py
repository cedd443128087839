"""The HTTP server `run()` starts cuts off hostile connections (`mcp.server.http_limits`): an
oversized request head gets 431 before the rest is read, and a connection that sends nothing, a
slow head or a slow body is closed once its timeout passes, so such clients cannot pile up (they
used to be held forever: 1,100 silent sockets filled a 1,024-fd limit). Real uvicorn, real sockets;
the server runs with 1 s timeouts and a 16 KiB head limit (`servers/http_limits_server.py`).

An answer the client never reads is dropped once it makes no progress for `send_timeout`, and what
it held is freed while its session goes on; beyond `max_connections` (per process) and
`max_connections_per_client` (per address) a new connection replaces the longest-idle one (else
the one longest sending a body), or gets 503 with `Retry-After` when every connection has a request
being answered, with a warning in the log
(`servers/connections_server.py`, a stateful server; bounded waits on the clients' TCP state, never
a clock)."""

from __future__ import annotations

import itertools
import json
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from mcp.server.connection_cap import default_max_connections
from mcp.server.http_limits import DEFAULT_HTTP_LIMITS, HttpLimits
from mcp.server.streamable_http_app import _limits

SERVER = Path(__file__).parent / "servers" / "http_limits_server.py"
INIT = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}).encode()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def port() -> Iterator[int]:
    number = free_port()
    proc = subprocess.Popen([sys.executable, str(SERVER), str(number)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", number), timeout=1).close()
                break
            except OSError:
                assert proc.poll() is None and time.monotonic() < deadline, "the server did not start"
                time.sleep(0.1)
        yield number
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def connect(port: int) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    sock.settimeout(30)
    return sock


def read_all(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection (bounded by the socket timeout)."""
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    return data


def post(body: bytes, extra: bytes = b"") -> bytes:
    return (b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Accept: application/json, text/event-stream\r\nConnection: close\r\n" + extra +
            b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)


def assert_serves(port: int) -> None:
    with connect(port) as sock:
        sock.sendall(post(INIT))
        answer = read_all(sock)
    assert answer.startswith(b"HTTP/1.1 200"), answer[:200]
    assert b'"protocolVersion":"2025-11-25"' in answer


def test_the_default_limits_are_the_documented_ones() -> None:
    assert (DEFAULT_HTTP_LIMITS.max_header_size, DEFAULT_HTTP_LIMITS.header_timeout, DEFAULT_HTTP_LIMITS.body_timeout) \
        == (128 * 1024, 30.0, 60.0)


def test_an_oversized_request_head_is_refused_with_431_before_the_rest_is_read(port: int) -> None:
    with connect(port) as sock:
        sock.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: " + b"a" * (64 * 1024))
        answer = b""
        try:  # the server closes mid-head: the rest of a 1 MB header is never read
            for _ in range(16):
                sock.sendall(b"a" * (64 * 1024))
            answer = read_all(sock)
        except (BrokenPipeError, ConnectionResetError):
            pass
    assert answer == b"" or answer.startswith(b"HTTP/1.1 431 Request Header Fields Too Large"), answer[:200]
    assert_serves(port)


def test_a_head_at_the_limit_is_still_served(port: int) -> None:
    with connect(port) as sock:
        sock.sendall(post(INIT, b"X-Pad: " + b"a" * (12 * 1024) + b"\r\n"))
        assert read_all(sock).startswith(b"HTTP/1.1 200")


@pytest.mark.parametrize("opening", [b"", b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n",
                                     post(b'{"jsonrpc": "2.0", "id": 1, "method": "ping"}')[:-20]],
                         ids=["silent", "slow head", "slow body"])
def test_a_connection_that_stalls_is_closed_and_the_server_serves_on(port: int, opening: bytes) -> None:
    with connect(port) as sock:
        sock.sendall(opening)
        started = time.monotonic()
        read_all(sock)  # returns once the server closes it (the socket timeout would fail the test)
        assert time.monotonic() - started < 29
    assert_serves(port)


def test_hundreds_of_silent_connections_are_all_closed_and_new_clients_are_served(port: int) -> None:
    socks = [connect(port) for _ in range(300)]
    try:
        for sock in socks:
            assert read_all(sock) == b""
    finally:
        for sock in socks:
            sock.close()
    assert_serves(port)


def test_an_oversized_head_sent_in_one_write_is_refused_also_on_a_kept_alive_connection(port: int) -> None:
    """Was: a head arriving whole in one read was parsed (and served) before it was measured, so a
    20 KiB head passed a 16 KiB limit; the second request of a connection was not measured at all."""
    ping = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}).encode()
    keep_alive = post(ping).replace(b"Connection: close\r\n", b"")
    with connect(port) as sock:
        sock.sendall(keep_alive)
        first = b""
        while b"\r\n\r\n" not in first or not first.rstrip().endswith(b"}"):
            chunk = sock.recv(65536)
            assert chunk, first[:200]
            first += chunk
        assert first.startswith(b"HTTP/1.1 200"), first[:200]
        sock.sendall(post(INIT, b"X-Pad: " + b"a" * (20 * 1024) + b"\r\n"))
        assert read_all(sock).startswith(b"HTTP/1.1 431")
    assert_serves(port)


# -- the send timeout and the connection caps (`servers/connections_server.py`, a stateful server) --

CONNECTIONS = Path(__file__).parent / "servers" / "connections_server.py"
CAP = 16
"""`max_connections` of the capped server."""
PER_CLIENT = 4
"""`max_connections_per_client` of the per-client server (whose `max_connections` is 64)."""
BIG = 16 * 1024 * 1024
"""An answer far larger than what the kernel buffers of a client with a 4 KiB receive buffer hold."""
ESTABLISHED = 1  # Linux tcp_info.tcpi_state
REQUEST_IDS = itertools.count(1)


class Server:
    def __init__(self, port: int, log: Path) -> None:
        self.port, self.log = port, log

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")


@contextmanager
def connections_server(log: Path, **options: Any) -> Iterator[Server]:
    port = free_port()
    with log.open("w") as sink:
        proc = subprocess.Popen([sys.executable, str(CONNECTIONS), str(port), json.dumps(options)],
                                stdout=subprocess.DEVNULL, stderr=sink)
    try:
        wait_until(lambda: _accepts(port) or proc.poll() is not None, "the server to start")
        assert proc.poll() is None, log.read_text()
        yield Server(port, log)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _accepts(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    except OSError:
        return False
    return True


def wait_until(condition: Callable[[], bool], what: str, bound: float = 60.0) -> None:
    """A bounded wait (a generous bound: nothing here is a measure of time)."""
    deadline = time.monotonic() + bound
    while not condition():
        assert time.monotonic() < deadline, f"gave up waiting for {what}"
        time.sleep(0.05)


@pytest.fixture(scope="module")
def capped(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with connections_server(tmp_path_factory.mktemp("capped") / "server.log", send_timeout=1.0,
                            max_connections=CAP, keep_alive_timeout=30.0) as server:
        yield server


@pytest.fixture(scope="module")
def per_client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with connections_server(tmp_path_factory.mktemp("per_client") / "server.log", max_connections=64,
                            max_connections_per_client=PER_CLIENT, keep_alive_timeout=30.0) as server:
        yield server


class Session:
    """A client of the stateful server over httpx: one session, calls answered over SSE."""

    def __init__(self, port: int) -> None:
        self.url = f"http://127.0.0.1:{port}/mcp"
        self.http = httpx.Client(timeout=30)
        response = self.post(INIT)
        assert response.status_code == 200, response.text
        self.id = response.headers["mcp-session-id"]
        self.post(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode())

    def post(self, body: bytes) -> httpx.Response:
        headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
        if hasattr(self, "id"):
            headers["mcp-session-id"] = self.id
        return self.http.post(self.url, headers=headers, content=body)

    def call(self, name: str, arguments: dict[str, Any] | None = None) -> Any:
        response = self.post(tool_call(name, arguments))
        assert response.status_code == 200, (response.status_code, response.text[:300])
        return answer_of(response.content)

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *_: object) -> None:
        self.http.close()


def tool_call(name: str, arguments: dict[str, Any] | None = None, *, progress: bool = False) -> bytes:
    params: dict[str, Any] = {"name": name, "arguments": arguments or {}}
    if progress:
        params["_meta"] = {"progressToken": 1}
    return json.dumps({"jsonrpc": "2.0", "id": next(REQUEST_IDS), "method": "tools/call", "params": params}).encode()


def answer_of(stream: bytes) -> Any:
    """The tool's result in an SSE answer (what the tool returned: a string, or the stats dict)."""
    for line in stream.split(b"\n"):
        if line.startswith(b"data:") and b'"result"' in line:
            result = json.loads(line[5:])["result"]
            assert not result.get("isError"), result
            structured = result.get("structuredContent")
            if structured is None:
                return result["content"][0]["text"]
            return structured["result"] if set(structured) == {"result"} else structured  # a str is wrapped
    raise AssertionError(f"no result in {stream[:300]!r}")


def session_post(session_id: str, body: bytes) -> bytes:
    return (b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Accept: application/json, text/event-stream\r\nMcp-Session-Id: " + session_id.encode() +
            b"\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)


def tcp_state(sock: socket.socket) -> int:
    return sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 8)[0]


def open_count(socks: list[socket.socket]) -> int:
    """How many of `socks` the server has not closed (Linux: a FIN or a reset moves the state on)."""
    return sum(tcp_state(sock) == ESTABLISHED for sock in socks)


def slow_reader(port: int) -> socket.socket:
    """A client that reads nothing: its receive buffer is as small as the kernel allows."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.settimeout(30)
    sock.connect(("127.0.0.1", port))
    return sock


def read_rest(sock: socket.socket) -> bytes:
    """What is left to read on a connection the server has dropped (a reset ends it too)."""
    data = b""
    try:
        while chunk := sock.recv(1 << 20):
            data += chunk
    except ConnectionResetError:
        pass
    return data


def read_until(sock: socket.socket, marker: bytes) -> bytes:
    data = b""
    while marker not in data:
        chunk = sock.recv(65536)
        assert chunk, data[:300]
        data += chunk
    return data


def from_address(port: int, address: str) -> socket.socket:
    sock = socket.socket()
    sock.settimeout(30)
    sock.bind((address, 0))
    sock.connect(("127.0.0.1", port))
    return sock


def hold_request(sock: socket.socket, session_id: str) -> socket.socket:
    """Start `wait_gate` on `sock` and wait until its answer's stream has begun (a request in the app)."""
    sock.sendall(session_post(session_id, tool_call("wait_gate", progress=True)))
    assert read_until(sock, b"\r\n\r\n").startswith(b"HTTP/1.1 200")
    return sock


def test_the_connection_defaults_are_the_documented_ones() -> None:
    import resource

    limits = HttpLimits()
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    assert (limits.send_timeout, limits.max_connections_per_client) == (60.0, None)
    assert limits.max_connections == default_max_connections() == max(min(soft, 1 << 20) * 3 // 4, 8)
    options: dict[str, Any] = {"send_timeout": 2.0, "max_connections": 10, "max_connections_per_client": 3, "debug": 1}
    assert (_limits(options).send_timeout, _limits({"max_connections": 10}).max_connections) == (2.0, 10)
    assert options == {"debug": 1}


@pytest.mark.parametrize("request_line", ["sse", "plain"])
def test_an_answer_the_client_never_reads_is_dropped_after_the_send_timeout_and_its_session_goes_on(
        capped: Server, request_line: str) -> None:
    """Was: a client that never read its answer held it (16 MiB here) and the connection forever;
    even closing such a connection waited forever for the answer to flush."""
    with Session(capped.port) as session, slow_reader(capped.port) as stuck:
        if request_line == "sse":  # a tool's answer on its SSE stream, still being written
            stuck.sendall(session_post(session.id, tool_call("big", {"size": BIG})))
        else:  # a plain response written whole: complete, its bytes left in the write buffer
            stuck.sendall(b"GET /big?size=" + str(BIG).encode() + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        assert session.call("echo", {"text": "meanwhile"}) == "meanwhile"
        wait_until(lambda: tcp_state(stuck) != ESTABLISHED, "the server to drop the stalled connection")
        received = read_rest(stuck)
        assert len(received) < BIG  # cut short: the rest was never sent
        stats = session.call("stats")
        assert stats["unsent"] == 0  # what the stalled answer held is freed
        assert session.call("echo", {"text": "after"}) == "after"


def test_a_slow_reader_that_keeps_reading_gets_its_whole_answer(capped: Server) -> None:
    """The send timeout judges progress, not speed: an answer read in small pieces, each within the
    timeout, arrives whole."""
    with Session(capped.port) as session, slow_reader(capped.port) as reader:
        reader.sendall(session_post(session.id, tool_call("big", {"size": 2 * 1024 * 1024})))
        data = b""
        while b'"result"' not in data or not data.endswith(b"\r\n0\r\n\r\n"):
            chunk = reader.recv(256 * 1024)
            assert chunk, data[-300:]
            data += chunk
        assert data.count(b"x") >= 2 * 1024 * 1024


@pytest.mark.parametrize("opening", [b"", post(b'{"jsonrpc": "2.0", "id": 1, "method": "ping"}')[:-20]],
                         ids=["silent", "slow body"])
def test_connections_beyond_the_cap_replace_the_longest_idle_and_every_client_is_served(
        capped: Server, opening: bytes) -> None:
    """Was: one client holding 1,100 connections used the process's 1,024 files and made 97% of
    other clients' calls fail, unlogged. Connections beyond the cap now take the place of those
    longest idle (or longest sending a body: not yet served), so the server never holds more than
    the cap, and new clients are served."""
    flood: list[socket.socket] = []
    for _ in range(3 * CAP):
        flood.append(connect(capped.port))
        flood[-1].sendall(opening)
    try:
        wait_until(lambda: open_count(flood) <= CAP, "the server to close the longest-idle connections")
        for number in range(5):
            with Session(capped.port) as session:
                assert session.call("echo", {"text": f"client {number}"}) == f"client {number}"
                assert session.call("stats")["connections"] <= CAP
        assert open_count(flood) < CAP  # the newcomers' connections replaced more of the flood
    finally:
        for sock in flood:
            sock.close()
    assert "HTTP connection limit reached" in capped.log_text()
    assert "with no request being answered to make room for new ones" in capped.log_text()


def test_when_every_connection_is_busy_a_new_one_gets_503_and_requests_in_flight_are_answered(capped: Server) -> None:
    with Session(capped.port) as owner:
        held = [hold_request(connect(capped.port), owner.id) for _ in range(CAP)]
        try:
            with connect(capped.port) as refused:
                refused.sendall(post(INIT))
                answer = read_all(refused)
            assert answer.startswith(b"HTTP/1.1 503"), answer[:200]
            assert b"retry-after: 1\r\n" in answer.lower()
            assert "all busy: refused" in capped.log_text()
            held.pop().close()  # one client leaves: the next newcomer is served

            def gate_opened() -> bool:
                response = owner.post(tool_call("open_gate"))
                return response.status_code == 200 and answer_of(response.content) == "ok"

            wait_until(gate_opened, "a connection to be admitted again")
            for sock in held:  # every request in flight was answered on its own connection
                assert b'"opened"' in read_until(sock, b'"opened"')
        finally:
            for sock in held:
                sock.close()


def test_one_address_holds_at_most_its_share_and_other_clients_are_served(per_client: Server) -> None:
    with Session(per_client.port) as owner:
        held = [hold_request(from_address(per_client.port, "127.0.0.2"), owner.id) for _ in range(PER_CLIENT)]
        flood: list[socket.socket] = []
        try:
            with from_address(per_client.port, "127.0.0.2") as refused:
                refused.sendall(post(INIT))
                assert read_all(refused).startswith(b"HTTP/1.1 503")
            assert "client 127.0.0.2 is at max_connections_per_client=4; all busy" in per_client.log_text()
            for number in range(PER_CLIENT + 2):  # other addresses are not counted against it
                with Session(per_client.port) as other:
                    assert other.call("echo", {"text": f"other {number}"}) == f"other {number}"
            flood = [from_address(per_client.port, "127.0.0.3") for _ in range(4 * PER_CLIENT)]
            wait_until(lambda: open_count(flood) <= PER_CLIENT, "the server to close that address's idle connections")
            assert "client 127.0.0.3 is at max_connections_per_client=4; closed" in per_client.log_text()
            assert owner.call("open_gate") == "ok"
            for sock in held:
                assert b"opened" in read_until(sock, b'"opened"')
        finally:
            for sock in held + flood:
                sock.close()
