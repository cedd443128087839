"""Two server processes with scoped items behind bearer tokens (`tests/hardening/servers/
scoped_server.py`) share their sessions through one Redis: the session's record carries the
principal that opened it, so every worker answers that principal alone, and another token with
the session id is an unknown session (404) on the worker that opened it and on the other."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from cluster import HANDSHAKE, Replicas
from redis_server import RedisServer

SCOPED_SERVER = Path(__file__).parents[1] / "hardening" / "servers" / "scoped_server.py"
HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": HANDSHAKE, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
PING = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "ping"})


class ScopedReplicas(Replicas):
    """Replicas running the scoped server (its tokens: alice, bob, carol)."""

    def start(self, i: int) -> None:
        with self.logs[i].open("ab") as log:
            self.processes[i] = subprocess.Popen(
                [sys.executable, str(SCOPED_SERVER), str(self.ports[i]), "streamable-http", self.redis_url,
                 self.prefix], stdout=log, stderr=subprocess.STDOUT)


@pytest.fixture
def replicas(redis_server: RedisServer, prefix: str, tmp_path: Path) -> Iterator[Replicas]:
    cluster = ScopedReplicas(2, redis_server.url, prefix, tmp_path)
    try:
        cluster.start_all()
        yield cluster
    finally:
        cluster.stop_all()


def test_a_shared_session_answers_only_its_principal_on_every_worker(replicas: Replicas,
                                                                     redis_server: RedisServer) -> None:
    with httpx.Client(timeout=30) as http:
        alice = {**HEADERS, "authorization": "Bearer alice"}
        opened = http.post(replicas.url(0), headers=alice, content=json.dumps(INIT))
        assert opened.status_code == 200, opened.text
        alice.update({"mcp-session-id": opened.headers["mcp-session-id"], "mcp-protocol-version": HANDSHAKE})
        http.post(replicas.url(0), headers=alice,
                  content=json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        record = json.loads(redis_server.call("GET", f"{replicas.prefix}:session:{alice['mcp-session-id']}")
                            .split(b"\r\n")[1])
        assert record["owner"] == {"client_id": "notes-app", "issuer": None, "subject": "alice"}
        bob = {**alice, "authorization": "Bearer bob"}
        for worker in (1, 0):
            refused = http.post(replicas.url(worker), headers=bob, content=PING)
            assert (refused.status_code, refused.json()["error"]["message"]) == (404, "Session not found"), worker
            assert http.delete(replicas.url(worker), headers=bob).status_code == 404
        for worker in (1, 0, 1):
            answered = http.post(replicas.url(worker), headers=alice, content=PING)
            assert answered.json() == {"jsonrpc": "2.0", "id": 2, "result": {}}, worker
