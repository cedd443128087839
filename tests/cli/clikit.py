"""Helpers for the CLI tests: run the real `mcp` command in a subprocess, and serve the bookshop
server over Streamable HTTP with a real uvicorn on 127.0.0.1."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

BOOKSHOP = Path(__file__).parent / "servers" / "bookshop.py"
MCP = [sys.executable, "-m", "mcp.cli"]


def mcp(*args: str, stdin: str = "", env: dict[str, str] | None = None,
        cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """`mcp ARGS...` as a user runs it; wide, colourless output so tables read predictably."""
    environment = {**os.environ, "COLUMNS": "200", "NO_COLOR": "1", "TERM": "dumb", **(env or {})}
    return subprocess.run([*MCP, *args], input=stdin, capture_output=True, text=True, timeout=60,
                          env=environment, cwd=cwd)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def bookshop_over_http(wire: str = "http", server: Path = BOOKSHOP) -> Iterator[str]:
    """The bookshop (or another server file taking the same `WIRE PORT` arguments) served by
    `mcp.run(transport="streamable-http")` (or "sse" with `wire="sse"`) in a child process; its URL."""
    port = free_port()
    proc = subprocess.Popen([sys.executable, str(server), wire, str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.05)
        else:
            raise RuntimeError(proc.stderr.read().decode() if proc.stderr and proc.poll() is not None else "no server")
        yield f"http://127.0.0.1:{port}/{'mcp' if wire == 'http' else 'sse'}"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stderr is not None:
            proc.stderr.close()
