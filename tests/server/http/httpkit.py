"""Helpers for the HTTP server tests: a streaming in-process ASGI transport, a real uvicorn on
loopback, SSE parsing and JSON-RPC request builders for both protocol eras.

`httpx.ASGITransport` buffers a whole response before returning it, so it cannot read an SSE
stream that stays open (the standalone GET stream, a tool still running). `StreamingASGITransport`
runs each request's app call in a task group it owns and hands the body over chunk by chunk;
closing the response (leaving `client.stream(...)`) is the client disconnecting. An exception
escaping the app fails the test when the client closes. Works on asyncio and trio.

`uvicorn_server` runs a real uvicorn in the test's own event loop (so server state and test state
share one loop); tests using it run on asyncio only (`WIRES` / `backend_for` arrange that).
"""

from __future__ import annotations

import gc
import json
import math
import socket
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager, suppress
from typing import Any
from urllib.parse import unquote

import anyio
import httpx
import pytest
import uvicorn
from anyio.abc import TaskGroup

from mcp._protocol.sse import Event, SSEParser

LEGACY = "2025-11-25"
MODERN = "2026-07-28"
ACCEPT_BOTH = "application/json, text/event-stream"
MCP_URL = "http://127.0.0.1/mcp"

ASGIApp = Callable[..., Any]

_UNSET: Any = object()


class _Body(httpx.AsyncByteStream):
    def __init__(self, chunks: Any, disconnect: Callable[[], None]) -> None:
        self._chunks = chunks
        self._disconnect = disconnect

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._chunks:
            yield chunk

    async def next_chunk(self) -> bytes | None:
        """The next body chunk, None at the end (no async generator to leave unfinished)."""
        try:
            return await self._chunks.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            return None

    async def aclose(self) -> None:
        self._disconnect()


class StreamingASGITransport(httpx.AsyncBaseTransport):
    """httpx transport calling an ASGI app in-process, streaming the response (module docstring)."""

    def __init__(self, app: ASGIApp, task_group: TaskGroup, *, raise_after_disconnect: bool = False) -> None:
        self.app = app
        self._tg = task_group
        self.raise_after_disconnect = raise_after_disconnect
        """Raise OSError on writes after a disconnect (as some ASGI servers do) instead of
        dropping them (as uvicorn does)."""
        self._disconnects: list[anyio.Event] = []
        self.running = 0
        """App calls still running (a finished exchange decrements it)."""

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        url = request.url
        scope = {
            "type": "http", "asgi": {"version": "3.0", "spec_version": "2.4"}, "http_version": "1.1",
            "method": request.method, "scheme": url.scheme, "path": unquote(url.path),
            "raw_path": url.raw_path.split(b"?", 1)[0], "query_string": url.query, "root_path": "",
            "headers": [(key.lower(), value) for key, value in request.headers.raw],
            "server": (url.host, url.port or 80), "client": ("127.0.0.1", 50000),
        }
        body = request.stream.__aiter__()  # type: ignore[union-attr]
        lookahead: Any = _UNSET
        body_done = False
        disconnected = anyio.Event()
        self._disconnects.append(disconnected)
        started = anyio.Event()
        response: dict[str, Any] = {}
        chunks_send, chunks_recv = anyio.create_memory_object_stream[bytes](math.inf)

        async def next_chunk() -> bytes | None:
            try:
                return bytes(await body.__anext__())
            except StopAsyncIteration:
                return None

        async def receive() -> dict[str, Any]:
            nonlocal lookahead, body_done
            if not body_done:
                if lookahead is _UNSET:
                    lookahead = await next_chunk()
                chunk = lookahead if lookahead is not None else b""
                lookahead = await next_chunk() if lookahead is not None else None
                body_done = lookahead is None
                return {"type": "http.request", "body": chunk, "more_body": not body_done}
            await disconnected.wait()
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            if disconnected.is_set():
                if self.raise_after_disconnect:
                    raise OSError("the client disconnected")
                return  # like uvicorn: writes after a disconnect are dropped
            if message["type"] == "http.response.start":
                assert not started.is_set(), "response started twice"
                response["status"] = message["status"]
                response["headers"] = message.get("headers", [])
                started.set()
            elif message["type"] == "http.response.body":
                assert started.is_set(), "body before http.response.start"
                assert not response.get("complete"), "body after the response completed"
                chunk = message.get("body", b"")
                if chunk:
                    with suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
                        chunks_send.send_nowait(chunk)
                if not message.get("more_body", False):
                    response["complete"] = True
                    chunks_send.close()

        async def run() -> None:
            self.running += 1
            try:
                await self.app(scope, receive, send)
            finally:
                self.running -= 1
                chunks_send.close()
                aclose = getattr(body, "aclose", None)
                if aclose is not None:
                    with anyio.CancelScope(shield=True):
                        await aclose()  # a request body the app did not read to the end
                if not started.is_set():
                    response["status"] = 599  # the app returned without answering
                    response["headers"] = []
                    started.set()

        def disconnect() -> None:
            disconnected.set()
            chunks_recv.close()

        self._tg.start_soon(run)
        try:
            await started.wait()
        except BaseException:
            disconnect()  # the caller gave up (cancelled) before the response started
            raise
        return httpx.Response(response["status"], headers=response["headers"],
                              stream=_Body(chunks_recv, disconnect), request=request)

    def disconnect_all(self) -> None:
        for event in self._disconnects:
            event.set()


@asynccontextmanager
async def asgi_client(app: ASGIApp, *, lifespan: bool = False, base_url: str = "http://127.0.0.1",
                      raise_after_disconnect: bool = False, **kwargs: Any) -> AsyncIterator[httpx.AsyncClient]:
    """An httpx client talking to `app` in-process over `StreamingASGITransport`. With
    `lifespan=True` the app's ASGI lifespan runs around it (default: never, as when mounted)."""
    async with anyio.create_task_group() as tg:
        transport = StreamingASGITransport(app, tg, raise_after_disconnect=raise_after_disconnect)
        stop_lifespan = anyio.Event()
        if lifespan:
            await _start_lifespan(app, tg, stop_lifespan)
        try:
            async with httpx.AsyncClient(transport=transport, base_url=base_url, timeout=30, **kwargs) as client:
                yield client
        finally:
            transport.disconnect_all()
            stop_lifespan.set()
            with anyio.move_on_after(5):
                while transport.running:
                    await anyio.sleep(0.005)
            tg.cancel_scope.cancel()


async def _start_lifespan(app: ASGIApp, tg: TaskGroup, stop: anyio.Event) -> None:
    to_app_send, to_app_recv = anyio.create_memory_object_stream[dict[str, Any]](4)
    from_app_send, from_app_recv = anyio.create_memory_object_stream[dict[str, Any]](4)

    async def run() -> None:
        with to_app_recv, from_app_send:
            await app({"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}}, to_app_recv.receive,
                      from_app_send.send)

    async def drive() -> None:
        with to_app_send, from_app_recv:
            await stop.wait()
            await to_app_send.send({"type": "lifespan.shutdown"})
            await from_app_recv.receive()

    tg.start_soon(run)
    await to_app_send.send({"type": "lifespan.startup"})
    answer = await from_app_recv.receive()
    assert answer["type"] == "lifespan.startup.complete", answer
    tg.start_soon(drive)


@asynccontextmanager
async def uvicorn_server(app: ASGIApp, *, lifespan: str = "on") -> AsyncIterator[str]:
    """Serve `app` with uvicorn on a free 127.0.0.1 port in this (asyncio) event loop; yields
    the base URL. Stopped (and waited for) on exit."""
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(app, log_level="warning", lifespan=lifespan, ws="none", http="h11",
                            timeout_graceful_shutdown=2)
    server = uvicorn.Server(config)
    server.install_signal_handlers = lambda: None  # type: ignore[method-assign]
    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(server.serve, [sock])
            with anyio.fail_after(10):
                while not server.started:
                    await anyio.sleep(0.01)
            try:
                yield f"http://127.0.0.1:{port}"
            finally:
                server.should_exit = True
    finally:
        sock.close()


# -- SSE ------------------------------------------------------------------------------------------


@contextmanager
def serving(make_app: Callable[[], ASGIApp], *, before: Callable[[str], object] | None = None) -> Iterator[str]:
    """Serve `make_app()` with uvicorn on a free 127.0.0.1 port, on a thread of its own (so the test
    may run on asyncio or trio); yields `http://127.0.0.1:<port>`. Stopped and joined on exit.
    `before` is told the base URL before the app is made (for apps that must name their origin)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    if before is not None:
        before(f"http://127.0.0.1:{port}")
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


def sse_events(body: bytes | str) -> list[Event]:
    return SSEParser().feed(body)


def sse_messages(body: bytes | str) -> list[dict[str, Any]]:
    """The JSON-RPC messages of an SSE body (priming events with empty data skipped)."""
    return [json.loads(event.data) for event in sse_events(body) if event.data]


def messages_of(response: httpx.Response) -> list[dict[str, Any]]:
    """Every JSON-RPC message of a response, JSON or SSE."""
    content_type = response.headers.get("content-type", "")
    if content_type.startswith("text/event-stream"):
        return sse_messages(response.content)
    return [response.json()]


class SSEStream:
    """Reads events from a streaming httpx response as they arrive; use as
    `async with SSEStream(response) as stream:` (closes the byte iterator)."""

    def __init__(self, response: httpx.Response) -> None:
        self.response = response
        self._parser = SSEParser()
        self._events: list[Event] = []
        raw = getattr(response.stream, "_stream", response.stream)
        self._body = raw if isinstance(raw, _Body) else None
        self._chunks: Any = None if self._body is not None else response.aiter_bytes()

    async def __aenter__(self) -> SSEStream:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        if self._chunks is not None:
            await self._chunks.aclose()

    async def _next_chunk(self) -> bytes | None:
        if self._body is not None:
            return await self._body.next_chunk()
        try:
            return await self._chunks.__anext__()
        except StopAsyncIteration:
            return None

    async def next_event(self) -> Event | None:
        """The next event, or None when the stream ended."""
        while not self._events:
            chunk = await self._next_chunk()
            if chunk is None:
                return None
            self._events.extend(self._parser.feed(chunk))
        return self._events.pop(0)

    async def next_message(self) -> dict[str, Any] | None:
        """The next JSON-RPC message (events without data skipped), or None at the end."""
        while True:
            event = await self.next_event()
            if event is None:
                return None
            if event.data:
                return json.loads(event.data)

    async def rest(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        while (message := await self.next_message()) is not None:
            out.append(message)
        return out

    @property
    def last_event_id(self) -> str | None:
        return self._parser.last_event_id


# -- JSON-RPC builders ---------------------------------------------------------------------------


def request(request_id: Any, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return message


def notification(method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        message["params"] = params
    return message


def initialize(request_id: Any = 1, version: str = LEGACY) -> dict[str, Any]:
    return request(request_id, "initialize", {
        "protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "raw-test", "version": "1"}})


def legacy_headers(session_id: str | None = None, version: str | None = LEGACY,
                   accept: str = ACCEPT_BOTH) -> dict[str, str]:
    headers = {"content-type": "application/json", "accept": accept}
    if version is not None:
        headers["mcp-protocol-version"] = version
    if session_id is not None:
        headers["mcp-session-id"] = session_id
    return headers


def modern_meta(capabilities: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    return {"io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientInfo": {"name": "raw-test", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": capabilities if capabilities is not None else {},
            **extra}


def modern(request_id: Any, method: str, params: dict[str, Any] | None = None, *,
           meta: dict[str, Any] | None = None) -> dict[str, Any]:
    """A 2026-07-28 request: `_meta` with the protocol version and client capabilities."""
    return request(request_id, method, {**(params or {}), "_meta": meta if meta is not None else modern_meta()})


_NAME_PARAM = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}


def modern_headers(message: dict[str, Any] | None = None, *, accept: str = ACCEPT_BOTH,
                   **extra: str) -> dict[str, str]:
    """The routing headers a 2026-07-28 client sends for `message` (plus `extra`)."""
    headers = {"content-type": "application/json", "accept": accept, "mcp-protocol-version": MODERN}
    if message is not None:
        headers["mcp-method"] = message["method"]
        name_param = _NAME_PARAM.get(message["method"])
        if name_param is not None:
            headers["mcp-name"] = str(message["params"][name_param])
    headers.update({key.replace("_", "-"): value for key, value in extra.items()})
    return headers


async def open_session(client: httpx.AsyncClient, url: str = "/mcp", version: str = LEGACY) -> str:
    """initialize + notifications/initialized; returns the session id."""
    response = await client.post(url, json=initialize(version=version), headers=legacy_headers(version=None))
    assert response.status_code == 200, response.text
    session_id = response.headers["mcp-session-id"]
    assert messages_of(response)[0]["result"]["protocolVersion"] == version
    done = await client.post(url, json=notification("notifications/initialized"),
                             headers=legacy_headers(session_id, version))
    assert done.status_code == 202, done.text
    return session_id


# -- the server under test -------------------------------------------------------------------------


class Probe:
    """What the test server's tools saw (create inside the event loop)."""

    def __init__(self) -> None:
        self.started = anyio.Event()
        self.cancelled = anyio.Event()
        self.finished = anyio.Event()
        self.release = anyio.Event()


def build_server(name: str = "http-test") -> Any:
    """An MCPServer with the tools the HTTP tests call; `server.probe` is a fresh `Probe`."""
    import warnings
    from typing import Annotated

    from pydantic import Field

    from mcp.server import MCPServer
    from mcp.server.mcpserver import Context
    from mcp.shared.exceptions import MCPDeprecationWarning

    mcp = MCPServer(name)
    probe = Probe()
    mcp.probe = probe  # type: ignore[attr-defined]

    @mcp.tool()
    def echo(text: str) -> str:
        """Return the text."""
        return text

    @mcp.tool()
    async def async_echo(text: str) -> str:
        """Return the text (served on the event loop: no worker thread)."""
        return text

    @mcp.tool()
    async def progress(steps: int, ctx: Context) -> str:
        """Report progress once per step, then answer."""
        for step in range(1, steps + 1):
            await ctx.report_progress(step, steps, f"step {step}")
        return f"counted {steps}"

    @mcp.tool()
    async def notify(ctx: Context) -> str:
        """Announce that the tool list changed."""
        await ctx.notify_tools_changed()
        return "notified"

    @mcp.tool()
    async def log_info(ctx: Context) -> str:
        """Send one info-level log message (deprecated protocol logging)."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            await ctx.info("hello from the tool")
        return "logged"

    @mcp.tool()
    async def block() -> str:
        """Wait until the test releases it; notes a cancellation."""
        probe.started.set()
        try:
            await probe.release.wait()
        except anyio.get_cancelled_exc_class():
            probe.cancelled.set()
            raise
        finally:
            probe.finished.set()
        return "released"

    @mcp.tool()
    async def reconnect(ctx: Context, pause: float = 0.2, polls: int = 1) -> str:
        """SSE polling: progress, close the response stream, keep working (`polls` times), then
        progress "after" and answer."""
        for poll in range(polls):
            await ctx.report_progress(poll, polls + 1, "before" if poll == 0 else f"poll {poll}")
            assert ctx.request_context.close_sse_stream is not None  # set over streamable HTTP
            await ctx.request_context.close_sse_stream()
            await anyio.sleep(pause)
        await ctx.report_progress(polls, polls + 1, "after")
        return "reconnected"

    @mcp.tool()
    async def end_get_stream(ctx: Context) -> str:
        """Close the session's standalone GET stream, then announce a tool-list change."""
        assert ctx.request_context.close_standalone_sse_stream is not None  # set over streamable HTTP
        await ctx.request_context.close_standalone_sse_stream()
        await ctx.notify_tools_changed()
        return "closed"

    @mcp.tool()
    async def slow_steps(ctx: Context, steps: int = 3, pause: float = 0.1) -> str:
        """Progress with pauses in between (a client may drop the connection meanwhile)."""
        probe.started.set()
        try:
            for step in range(1, steps + 1):
                await ctx.report_progress(step, steps, f"step {step}")
                await anyio.sleep(pause)
        except anyio.get_cancelled_exc_class():
            probe.cancelled.set()
            raise
        finally:
            probe.finished.set()
        return "done slowly"

    @mcp.tool()
    def locate(
        query: str,
        region: Annotated[str, Field(json_schema_extra={"x-mcp-header": "Region"})] = "<none>",
    ) -> str:
        """A tool whose `region` argument is mirrored in the Mcp-Param-Region header."""
        return f"{query}@{region}"

    return mcp


def tool_call(request_id: Any, name: str, arguments: dict[str, Any] | None = None,
              progress_token: Any = None) -> dict[str, Any]:
    params: dict[str, Any] = {"name": name, "arguments": arguments or {}}
    if progress_token is not None:
        params["_meta"] = {"progressToken": progress_token}
    return request(request_id, "tools/call", params)


def modern_tool_call(request_id: Any, name: str, arguments: dict[str, Any] | None = None,
                     progress_token: Any = None, **meta: Any) -> dict[str, Any]:
    extra = dict(meta)
    if progress_token is not None:
        extra["progressToken"] = progress_token
    return modern(request_id, "tools/call", {"name": name, "arguments": arguments or {}}, meta=modern_meta(**extra))


def text_of(message: dict[str, Any]) -> str:
    """The first text content of a tools/call response."""
    return message["result"]["content"][0]["text"]


@asynccontextmanager
async def connect(wire: str, app: ASGIApp, *, lifespan: bool = True) -> AsyncIterator[httpx.AsyncClient]:
    """An httpx client for `app`: in-process (`asgi-*`) or through a real uvicorn (`uvicorn`).
    Base URL `http://127.0.0.1[:port]`; the endpoint is `/mcp`."""
    if wire == "uvicorn":
        async with uvicorn_server(app, lifespan="on" if lifespan else "off") as base, \
                httpx.AsyncClient(base_url=base, timeout=30) as client:
            yield client
    else:
        async with asgi_client(app, lifespan=lifespan) as client:
            yield client


WIRES = ["asgi-asyncio", "asgi-trio", "uvicorn"]
"""`wire` fixture params: in-process on both backends, and a real uvicorn (asyncio)."""


def backend_for(wire: str) -> str:
    return "trio" if wire.endswith("trio") else "asyncio"


@pytest.fixture(params=WIRES)
def wire(request: pytest.FixtureRequest) -> str:
    """Runs a test once per wire (import it, with `anyio_backend`, into a test module or conftest)."""
    return request.param


@pytest.fixture
def anyio_backend(wire: str) -> str:
    """The event loop the test's `wire` needs."""
    return backend_for(wire)


async def raw_http(base_url: str, method: str, path: str, headers: list[tuple[str, str]],
                   body: bytes = b"") -> tuple[int, dict[str, str], bytes]:
    """One HTTP/1.1 exchange written byte for byte over TCP (header names and values exactly as
    given, which httpx/h11 would normalize or refuse); returns (status, headers, body)."""
    url = httpx.URL(base_url)
    lines = [f"{method} {path} HTTP/1.1", f"Host: {url.host}:{url.port}", "Connection: close",
             f"Content-Length: {len(body)}", *(f"{name}: {value}" for name, value in headers)]
    payload = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body
    async with await anyio.connect_tcp(url.host, url.port or 80) as stream:
        await stream.send(payload)
        received = b""
        while True:
            try:
                received += await stream.receive()
            except (anyio.EndOfStream, anyio.BrokenResourceError):
                break
    head, _, content = received.partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    response_headers = {}
    for line in header_lines:
        name, _, value = line.partition(":")
        response_headers[name.strip().lower()] = value.strip()
    if response_headers.get("transfer-encoding") == "chunked":
        content = _dechunk(content)
    return int(status_line.split()[1]), response_headers, content


def _dechunk(data: bytes) -> bytes:
    out = b""
    while data:
        size_line, _, data = data.partition(b"\r\n")
        size = int(size_line.split(b";")[0], 16)
        if size == 0:
            break
        out += data[:size]
        data = data[size + 2:]
    return out
