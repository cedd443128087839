"""Per-client limits over a real uvicorn (`servers/sessions_server.py`, started with `mcp.run()`
and with the host's own `uvicorn.run(..., http=guarded_httptools(...))`): a client holding its
`max_sessions_per_client` sessions is refused another `initialize` with 429 and a JSON-RPC error
saying why, until it ends one (a client: a token's subject, else an address where `trusted_proxies`
makes addresses trustworthy; otherwise nobody is capped, as the official SDK caps nobody); an idle kept-alive connection is closed after `keep_alive_timeout`;
an oversized request head is refused with 431 on both ways of running the server."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from mcp._protocol.http import DEFAULT_MAX_SESSIONS_PER_CLIENT
from mcp.server import MCPServer
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
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


class Token:
    def __init__(self, client_id: str, subject: str | None) -> None:
        self.client_id, self.subject, self.claims = client_id, subject, {"iss": "https://issuer"}


def forwarded(peer: str, chain: str | None = None, token: Token | None = None) -> dict[str, Any]:
    headers = [(b"x-forwarded-for", chain.encode())] if chain is not None else []
    scope: dict[str, Any] = {"client": (peer, 5000), "headers": headers}
    if token is not None:
        scope["mcp.access_token"] = token
    return scope


def test_clients_are_told_apart_by_their_subject_else_a_trusted_address_else_not_at_all() -> None:
    untrusted = SessionsPerClient()
    alice = untrusted.client_of(forwarded("10.0.0.1", token=Token("app", "alice")))
    bob = untrusted.client_of(forwarded("10.0.0.1", token=Token("app", "bob")))
    assert alice is not None and bob is not None and alice != bob  # users of one app behind one proxy
    assert alice == untrusted.client_of(forwarded("10.9.9.9", token=Token("app", "alice")))  # from anywhere
    # Without trusted_proxies an address may be a proxy's, and a token without a subject may be
    # every user's of one OAuth client: nobody in particular, never refused.
    assert untrusted.client_of(forwarded("10.0.0.1")) is None
    assert untrusted.client_of(forwarded("10.0.0.1", "203.0.113.7")) is None
    assert untrusted.client_of(forwarded("10.0.0.1", token=Token("app", None))) is None
    for _ in range(DEFAULT_MAX_SESSIONS_PER_CLIENT + 1):
        assert untrusted.admit(None)
        untrusted.opened(None)
    assert untrusted.open_sessions(None) == 0

    direct = SessionsPerClient(trusted_proxies=[])  # no proxies: every peer is a client
    assert direct.client_of(forwarded("10.0.0.1", "203.0.113.7")) == direct.client_of(forwarded("10.0.0.1"))
    assert direct.client_of(forwarded("10.0.0.1")) != direct.client_of(forwarded("10.0.0.2"))
    assert direct.client_of(forwarded("10.0.0.1", token=Token("app", None))) == direct.client_of(forwarded("10.0.0.1"))


def test_behind_a_trusted_proxy_the_client_is_the_nearest_untrusted_forwarded_address() -> None:
    quota = SessionsPerClient(trusted_proxies="10.0.0.0/8, 192.0.2.1")
    assert quota.client_of(forwarded("10.0.0.1", "203.0.113.7")) == ("address", "203.0.113.7")
    assert quota.client_of(forwarded("10.0.0.1", "198.51.100.1, 203.0.113.7, 192.0.2.1")) == \
        ("address", "203.0.113.7")  # the left of it was written by the client: not trusted
    assert quota.client_of(forwarded("10.0.0.1", "10.0.0.5, 10.0.0.6")) == ("address", "10.0.0.5")
    assert quota.client_of(forwarded("10.0.0.1")) is None  # a proxy naming nobody is nobody
    # X-Forwarded-For from a peer that is not a trusted proxy is never read.
    assert quota.client_of(forwarded("203.0.113.9", "198.51.100.1")) == ("address", "203.0.113.9")
    assert SessionsPerClient(trusted_proxies="*").client_of(forwarded("203.0.113.9", "198.51.100.1")) == \
        ("address", "198.51.100.1")


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


# -- who counts as one client, over a real uvicorn ------------------------------------------------
# uvicorn runs with proxy_headers=False, so the ASGI scope's client is the TCP peer (127.0.0.1: the
# "proxy"), whatever X-Forwarded-For says: what a deployment sees when uvicorn is not told about
# its proxy.


@contextmanager
def uvicorn_thread(app: Any) -> Iterator[str]:
    """Serve `app` on a free 127.0.0.1 port on a thread of its own; yields the MCP URL."""
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on", ws="none", proxy_headers=False))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 15
        while not server.started:
            assert thread.is_alive() and time.monotonic() < deadline, "uvicorn did not start"
            time.sleep(0.01)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        server.should_exit = True
        thread.join(15)
        sock.close()
        assert not thread.is_alive(), "uvicorn did not stop"


def initialize_as(http: httpx.Client, url: str, **headers: str) -> int:
    return http.post(url, headers={**HEADERS, **headers}, content=json.dumps(INIT)).status_code


def test_behind_a_proxy_without_a_trusted_proxy_setting_no_client_is_capped() -> None:
    """Every request comes from the proxy's address: counting by it would give the whole
    deployment 100 sessions. Without `trusted_proxies` the address is not a client's, so the
    official SDK's answer holds: every session is served."""
    app = MCPServer("behind-a-proxy").streamable_http_app(json_response=True)
    with uvicorn_thread(app) as url, httpx.Client(timeout=30) as http:
        served = [initialize_as(http, url, **{"x-forwarded-for": f"203.0.113.{n % 250}, 198.51.100.{n // 250}"})
                  for n in range(150)]
        assert served == [200] * 150
        assert initialize_as(http, url) == 200  # nor without a forwarded address


class SubjectVerifier:
    """Bearer tokens "alice" and "bob" stand for those subjects of one OAuth client; "app" for the
    client itself (a verifier that sets no subject)."""

    async def verify_token(self, token: str) -> AccessToken | None:
        if token not in ("alice", "bob", "app"):
            return None
        return AccessToken(token=token, client_id="one-app", scopes=[], subject=None if token == "app" else token)


def test_an_authenticated_subject_is_one_client_from_every_address() -> None:
    mcp = MCPServer("principals", token_verifier=SubjectVerifier(), auth=AuthSettings(
        issuer_url="https://auth.example.com", resource_server_url="http://127.0.0.1/mcp", validate_token_resource=False))
    with uvicorn_thread(mcp.streamable_http_app(json_response=True)) as url, httpx.Client(timeout=30) as http:
        alice = [initialize_as(http, url, authorization="Bearer alice", **{"x-forwarded-for": f"203.0.113.{n}"})
                 for n in range(DEFAULT_MAX_SESSIONS_PER_CLIENT)]
        assert alice == [200] * DEFAULT_MAX_SESSIONS_PER_CLIENT
        refused = http.post(url, headers={**HEADERS, "authorization": "Bearer alice"}, content=json.dumps(INIT))
        assert refused.status_code == 429
        assert refused.json()["error"]["data"] == {"limit": DEFAULT_MAX_SESSIONS_PER_CLIENT}
        assert initialize_as(http, url, authorization="Bearer bob") == 200
        # A token without a subject may be every user's of that client: not counted.
        no_subject = [initialize_as(http, url, authorization="Bearer app") for _ in range(DEFAULT_MAX_SESSIONS_PER_CLIENT + 1)]
        assert no_subject == [200] * (DEFAULT_MAX_SESSIONS_PER_CLIENT + 1)


def test_with_trusted_proxies_each_forwarded_address_is_one_client() -> None:
    app = MCPServer("trusted").streamable_http_app(json_response=True, max_sessions_per_client=3,
                                                   trusted_proxies=["127.0.0.1"])
    with uvicorn_thread(app) as url, httpx.Client(timeout=30) as http:
        first = {"x-forwarded-for": "203.0.113.1"}
        assert [initialize_as(http, url, **first) for _ in range(4)] == [200, 200, 200, 429]
        assert initialize_as(http, url, **{"x-forwarded-for": "203.0.113.2"}) == 200
        # What the client itself wrote to the left of the address the proxy saw changes nothing.
        assert initialize_as(http, url, **{"x-forwarded-for": "198.51.100.9, 203.0.113.1"}) == 429


def test_forwarded_addresses_from_a_peer_that_is_not_a_trusted_proxy_are_ignored() -> None:
    app = MCPServer("untrusted-peer").streamable_http_app(json_response=True, max_sessions_per_client=3,
                                                          trusted_proxies="10.0.0.0/8")
    with uvicorn_thread(app) as url, httpx.Client(timeout=30) as http:
        spoofed = [initialize_as(http, url, **{"x-forwarded-for": f"203.0.113.{n}"}) for n in range(4)]
        assert spoofed == [200, 200, 200, 429]  # all one client: the peer 127.0.0.1
