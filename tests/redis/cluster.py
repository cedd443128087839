"""Several replica_server.py processes sharing one Redis, and a raw HTTP client for them that
picks the worker of every request (the tests rotate, as a round-robin balancer would)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
from redis_server import free_port

HERE = Path(__file__).parent
HANDSHAKE = "2025-11-25"
MODERN = "2026-07-28"
TASKS = "io.modelcontextprotocol/tasks"


class Replicas:
    def __init__(self, count: int, redis_url: str, prefix: str, directory: Path,
                 script: str = "replica_server.py") -> None:
        self.script = script
        self.redis_url = redis_url
        self.prefix = prefix
        self.directory = directory
        self.ports = [free_port() for _ in range(count)]
        self.processes: list[subprocess.Popen[bytes] | None] = [None] * count
        self.logs = [directory / f"worker{i}.log" for i in range(count)]

    def url(self, i: int) -> str:
        return f"http://127.0.0.1:{self.ports[i]}/mcp"

    def start(self, i: int) -> None:
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        with self.logs[i].open("ab") as log:
            self.processes[i] = subprocess.Popen(
                [sys.executable, str(HERE / self.script), str(self.ports[i]), self.redis_url, self.prefix,
                 f"worker{i}", str(self.directory)], stdout=log, stderr=subprocess.STDOUT, env=env)

    def start_all(self, timeout: float = 60.0) -> None:
        for i in range(len(self.ports)):
            self.start(i)
        for i in range(len(self.ports)):
            self.wait_ready(i, timeout)

    def wait_ready(self, i: int, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            process = self.processes[i]
            if process is None or process.poll() is not None:
                raise RuntimeError(f"worker{i} exited:\n{self.log(i)}")
            try:
                socket.create_connection(("127.0.0.1", self.ports[i]), timeout=0.5).close()
                return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"worker{i} did not start listening:\n{self.log(i)}")

    def log(self, i: int) -> str:
        return self.logs[i].read_text(errors="replace") if self.logs[i].exists() else ""

    def kill(self, i: int, sig: int = signal.SIGKILL) -> None:
        process, self.processes[i] = self.processes[i], None
        if process is not None and process.poll() is None:
            process.send_signal(sig)
            process.wait(timeout=20)

    def stop_all(self) -> None:
        for i in range(len(self.ports)):
            self.kill(i, signal.SIGTERM)


def parse_sse(text: str) -> list[tuple[str | None, dict[str, Any]]]:
    """(event id, message) of every data event of an SSE body."""
    events: list[tuple[str | None, dict[str, Any]]] = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        event_id: str | None = None
        data: list[str] = []
        for line in block.split("\n"):
            if line.startswith("id:"):
                event_id = line[3:].strip()
            elif line.startswith("data:"):
                data.append(line[5:].strip())
        if data and "".join(data):
            events.append((event_id, json.loads("".join(data))))
    return events


def messages(response: httpx.Response) -> list[dict[str, Any]]:
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        return [message for _, message in parse_sse(response.text)]
    return [response.json()]


def answer(response: httpx.Response) -> dict[str, Any]:
    """The JSON-RPC response among a POST's messages."""
    found = [m for m in messages(response) if "result" in m or "error" in m]
    assert len(found) == 1, (response.status_code, response.text)
    return found[0]


ACCEPT = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


class Session:
    """A handshake-era session over raw HTTP; every call names the worker it goes to."""

    def __init__(self, http: httpx.AsyncClient, replicas: Replicas) -> None:
        self.http = http
        self.replicas = replicas
        self.id: str | None = None
        self._ids = 0

    def headers(self) -> dict[str, str]:
        headers = dict(ACCEPT, **{"mcp-protocol-version": HANDSHAKE})
        if self.id is not None:
            headers["mcp-session-id"] = self.id
        return headers

    async def initialize(self, worker: int) -> dict[str, Any]:
        response = await self.request(worker, "initialize", {
            "protocolVersion": HANDSHAKE, "capabilities": {}, "clientInfo": {"name": "tests", "version": "1"}})
        self.id = response.headers["mcp-session-id"]
        await self.notify(worker, "notifications/initialized")
        return answer(response)

    async def request(self, worker: int, method: str, params: dict[str, Any] | None = None) -> httpx.Response:
        self._ids += 1
        body: dict[str, Any] = {"jsonrpc": "2.0", "id": self._ids, "method": method}
        if params is not None:
            body["params"] = params
        return await self.http.post(self.replicas.url(worker), json=body, headers=self.headers())

    async def call(self, worker: int, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        return answer(await self.request(worker, method, params))

    async def notify(self, worker: int, method: str) -> None:
        response = await self.http.post(self.replicas.url(worker), json={"jsonrpc": "2.0", "method": method},
                                        headers=self.headers())
        assert response.status_code == 202, response.text


def modern_request(method: str, params: dict[str, Any], request_id: int = 1,
                   name: str | None = None) -> tuple[dict[str, Any], dict[str, str]]:
    """A 2026-07-28 request declaring the tasks extension, and its headers."""
    meta = {"io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": {"extensions": {TASKS: {}}}}
    body = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": {**params, "_meta": meta}}
    headers = dict(ACCEPT, **{"mcp-protocol-version": MODERN, "mcp-method": method})
    if name is not None:
        headers["mcp-name"] = name
    return body, headers


class RoundRobinProxy:
    """A TCP balancer on 127.0.0.1: each new connection goes to the next worker's port."""

    def __init__(self, ports: list[int]) -> None:
        self.ports = ports
        self.port = 0
        self.picked: list[int] = []
        self._server: Any = None
        self._tasks: set[Any] = set()

    async def __aenter__(self) -> RoundRobinProxy:
        import asyncio

        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        import asyncio

        self._server.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _handle(self, reader: Any, writer: Any) -> None:
        import asyncio

        task = asyncio.current_task()
        self._tasks.add(task)
        backend = self.ports[len(self.picked) % len(self.ports)]
        self.picked.append(backend)
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", backend)
        except OSError:
            writer.close()
            return

        async def pipe(source: Any, sink: Any) -> None:
            try:
                while data := await source.read(65536):
                    sink.write(data)
                    await sink.drain()
            except OSError:
                pass
            finally:
                sink.close()

        try:
            await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))
        finally:
            self._tasks.discard(task)
