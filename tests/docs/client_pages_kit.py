"""Shared pieces of the client docs-page tests: a real uvicorn on 127.0.0.1, a recorder of the
HTTP requests that reach it, a bookshop server, and a token storage like the pages' own."""

from __future__ import annotations

import gc
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn

from mcp.server import MCPServer
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

ASGIApp = Callable[..., Any]


@contextmanager
def serving(make_app: Callable[[], ASGIApp]) -> Iterator[str]:
    """Serve `make_app()` with uvicorn on a free 127.0.0.1 port, on a thread of its own (so the test
    may run on asyncio or trio); yields `http://127.0.0.1:<port>`. Stopped and joined on exit."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    servers: list[uvicorn.Server] = []
    stop = threading.Event()

    def serve() -> None:
        config = uvicorn.Config(make_app(), log_level="warning", lifespan="on", ws="none", http="h11",
                                timeout_graceful_shutdown=2)
        server = uvicorn.Server(config)
        servers.append(server)
        if not stop.is_set():
            server.run(sockets=[sock])

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 15
        while not (servers and servers[0].started):
            if not thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.01)
        yield f"http://127.0.0.1:{port}"
    finally:
        stop.set()
        for server in servers:
            server.should_exit = True
        thread.join(15)
        sock.close()
        gc.collect()
        assert not thread.is_alive(), "uvicorn did not stop"


class Recorder:
    """An ASGI wrapper that notes the method, path, headers and JSON-RPC method of every HTTP
    request reaching the wrapped app."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.requests: list[dict[str, Any]] = []

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode().lower(): v.decode() for k, v in scope.get("headers", ())}
        entry: dict[str, Any] = {"method": scope["method"], "path": scope["path"], "headers": headers,
                                 "mcp_method": headers.get("mcp-method")}
        self.requests.append(entry)
        await self.app(scope, receive, send)

    def posts(self) -> list[dict[str, Any]]:
        return [r for r in self.requests if r["method"] == "POST"]


def bookshop(**kwargs: Any) -> MCPServer:
    """A small server with one tool, used where a page only needs something to connect to."""
    mcp = MCPServer("Bookshop", instructions="Search the catalog before recommending a book.", **kwargs)

    @mcp.tool()
    def search_books(query: str) -> str:
        """Search the catalog by title or author."""
        return f"Found 3 books matching {query!r}."

    return mcp


class MemoryTokenStorage:
    """The token storage the OAuth pages sketch: tokens and client information in memory."""

    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client_info: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client_info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client_info = client_info
