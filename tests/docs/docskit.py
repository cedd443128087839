"""Shared helpers of the docs-page tests: serve an ASGI app with uvicorn on 127.0.0.1, and start a
server script as a stdio subprocess. Each page's module states its own server; only the plumbing
lives here."""

from __future__ import annotations

import gc
import socket
import sys
import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import uvicorn

from mcp import StdioServerParameters


@contextmanager
def serve_http(make_app: Callable[[], Any]) -> Iterator[str]:
    """Run `make_app()` under uvicorn on a free 127.0.0.1 port; yields `http://127.0.0.1:<port>`.
    The app is built on the server's thread, so its loop owns whatever the app creates."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    servers: list[uvicorn.Server] = []
    failures: list[BaseException] = []

    def serve() -> None:
        try:
            config = uvicorn.Config(make_app(), log_level="warning", lifespan="auto", ws="none", http="h11",
                                    timeout_graceful_shutdown=2)
            server = uvicorn.Server(config)
            servers.append(server)
            server.run(sockets=[sock])
        except BaseException as exc:  # surfaced by the waiting loop below
            failures.append(exc)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 15
        while not (servers and servers[0].started):
            if failures:
                raise failures[0]
            if not thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.01)
        yield f"http://127.0.0.1:{port}"
    finally:
        for server in servers:
            server.should_exit = True
        thread.join(10)
        sock.close()
        gc.collect()
        assert not thread.is_alive(), "uvicorn did not stop"


def stdio_script(tmp_path: Path, source: str, *args: str) -> StdioServerParameters:
    """Write `source` (dedented) as `server.py` under `tmp_path` and return the parameters that
    start it with this interpreter over stdio."""
    script = tmp_path / "server.py"
    script.write_text(textwrap.dedent(source))
    return StdioServerParameters(command=sys.executable, args=[str(script), *args], cwd=str(tmp_path))
