"""The Streamable HTTP server transport: one ASGI endpoint for both protocol eras.

- 2026-07-28 requests (any `MCP-Protocol-Version` header but a handshake-era one, or, without the
  header, a 2026 version in `_meta`) are self-contained: no session, routing headers checked
  against the body, errors mapped to HTTP statuses, as the official modern entry answers them.
- Handshake-era requests get sessions (`Mcp-Session-Id`), unless `stateless=True`.
  Session-less requests each get their own throwaway `ServerSession`: nothing one request sets
  (log level, ids in flight) is seen by another client's. Requests are checked in the official
  transport's order and answered with its statuses and texts.

Each POST is served in its own ASGI task: the request runs to completion there, and a watcher
(started once the request has run for a moment) notices a client that disconnects. As officially,
a handshake-era request is answered with an SSE stream (`json_response=True`: one JSON body that
carries only the answer); messages related to no request ride the session's GET stream. A
session's call outlives its client's connection (a disconnect is no cancellation); a session-less
one is cancelled. No background task is needed, so the app works mounted inside another app
without wiring its lifespan (the server lifespan is then entered on first use).

With an event store, every event of a session is stored (its GET stream's too) and stamped with
its id; POST streams open with a priming event (clients from 2025-11-25 on), and `GET` +
`Last-Event-ID` (from the same session only) replays what was missed and re-attaches to the live
stream. The store is given `JSONRPCMessage`s (the official contract; ours take wire dicts).

Sessions are bounded: idle ones are evicted after `session_idle_timeout`, and the table never
holds more than `max_sessions` (least recently used idle sessions go first; 503 when every session
has a client connected). Evictions happen as requests arrive; a session is idle when no client is
connected to it, even if a call whose client vanished is still running (eviction cancels it).

With a `session_store` (`mcp.server.session_store`; `MCPServer(state=RedisState...)` provides one),
sessions are shared by every worker: see `mcp.server.streamable_http_shared`.
"""

from __future__ import annotations

import asyncio
import logging
import math
import re
import secrets
import sys
import time
from collections import OrderedDict, deque
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack, asynccontextmanager, suppress
from typing import TYPE_CHECKING, Any, ClassVar, Final, cast

import anyio
import sniffio

from mcp._engine.seam import WireReceiveStream, WireSendStream, WireWriter
from mcp._protocol import http as h
from mcp._protocol import messages as m
from mcp._protocol.codec import ParseError, decode, encode_bytes
from mcp._protocol.sse import encode_event
from mcp.server._host_check import check
from mcp.server.event_store import (
    EventCallback,
    EventId,
    EventMessage,
    EventStore,
    InMemoryEventStore,
    StreamId,
    forget_session,
    message_for_store,
    wire_message,
)
from mcp.server.http_limits import SessionsPerClient, TrustedProxies, too_many_sessions
from mcp.server.param_headers import param_header_mismatch_for_call
from mcp.server.session import ServerSession
from mcp.server.session_store import SessionRecord, SessionStore, StoreUnavailable
from mcp.shared.message import SessionMessage
from mcp.types.jsonrpc import (
    HEADER_MISMATCH,
    INVALID_PARAMS,
    INVALID_REQUEST,
    PARSE_ERROR,
    UNSUPPORTED_PROTOCOL_VERSION,
)
from mcp.types.version import (
    CLIENT_CAPABILITIES_META_KEY,
    DEFAULT_NEGOTIATED_VERSION,
    HANDSHAKE_VERSIONS,
    MODERN_VERSIONS,
    PROTOCOL_VERSION_META_KEY,
    SUPPORTED_PROTOCOL_VERSIONS,
)

if TYPE_CHECKING:
    from mcp.server.lowlevel.server import Server
    from mcp.server.streamable_http_shared import SharedSessions
    from mcp.server.transport_security import TransportSecuritySettings

__all__ = ["CONTENT_TYPE_JSON", "CONTENT_TYPE_SSE", "GET_STREAM_KEY", "LAST_EVENT_ID_HEADER", "MCP_SESSION_ID_HEADER",
           "REQUEST_CANCELLED", "REQUEST_STREAM_BUFFER_SIZE", "SESSION_ID_PATTERN", "EventCallback", "EventId",
           "EventMessage", "EventStore", "InMemoryEventStore", "StreamId", "StreamableHTTPSessionManager",
           "check_accept_headers"]

MCP_SESSION_ID_HEADER: Final = h.SESSION_HEADER
LAST_EVENT_ID_HEADER: Final = h.LAST_EVENT_ID_HEADER
CONTENT_TYPE_JSON: Final = h.JSON
CONTENT_TYPE_SSE: Final = h.SSE
GET_STREAM_KEY: Final = "_GET_stream"
"""The stream id under which an event store keeps a session's standalone GET stream."""
REQUEST_STREAM_BUFFER_SIZE: Final = 16
REQUEST_CANCELLED: Final = -32800
"""The error a cancelled 2025-era request's stream ends with (LSP's `RequestCancelled`)."""
SESSION_ID_PATTERN: Final = re.compile(r"^[\x21-\x7E]+$")
"""What a session id may be made of: visible ASCII (the spec's rule)."""


def check_accept_headers(request: Any) -> tuple[bool, bool]:
    """(accepts JSON, accepts SSE) for a Starlette `Request`'s Accept header, wildcards
    included (`*/*`, `application/*`, `text/*`); a request without one accepts neither."""
    accept = request.headers.get("accept", "")
    return h.accepts(accept) if accept else (False, False)

logger = logging.getLogger("mcp.server.http")

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]

DEFAULT_MAX_BODY = h.DEFAULT_MAX_REQUEST_BODY_SIZE
_SSE_HEADERS = [(b"content-type", b"text/event-stream"), (b"cache-control", b"no-cache, no-transform"),
                (b"x-accel-buffering", b"no"), (b"connection", b"keep-alive")]
_JSON_HEADERS = [(b"content-type", b"application/json")]
_GONE: Final = (OSError, anyio.BrokenResourceError, anyio.ClosedResourceError)
"""What an ASGI server's `send` may raise once the client is gone (servers that raise instead of
dropping the write: sockets raise OSError, in-memory bridges anyio's stream errors)."""
_INVALID_BODY: Final = "Body must be a single JSON-RPC request or notification object"
"""The 2026-07-28 entry's answer to well-formed JSON that is not one request or notification."""
_PRIMING_SINCE: Final = "2025-11-25"
"""The first revision whose clients understand a priming event (an id with empty data)."""
STANDALONE_STREAM_SUFFIX: Final = "/0"
"""A session's GET stream, in the event store, is `<session id>/0` (POST streams get a random hex
suffix): the session prefix lets a resumption be checked against the session asking."""


class HttpRequestMetadata:
    """Transport metadata of one POST: its headers, version header and response channel."""

    __slots__ = ("_request", "channel", "http_session", "protocol_version", "scope")

    def __init__(self, scope: Scope, protocol_version: str | None, channel: ResponseChannel | None,
                 http_session: _HttpSession | None = None) -> None:
        self.scope = scope
        self.protocol_version = protocol_version
        self.channel = channel
        self.http_session = http_session
        self._request: Any = None

    @property
    def sink(self) -> Callable[[dict[str, Any]], Awaitable[bool]] | None:
        return self.channel.deliver if self.channel is not None else None

    @property
    def request(self) -> Any:
        """A Starlette `Request` for handlers that read headers, client address, etc."""
        if self._request is None:
            from starlette.requests import Request

            self._request = Request(self.scope)
        return self._request

    async def close_sse_stream(self) -> None:
        """End this request's SSE response now (SSE polling): the client resumes with
        `Last-Event-ID`. Needs an event store; a no-op without one."""
        if self.channel is not None:
            await self.channel.close_stream()

    async def close_standalone_sse_stream(self) -> None:
        """End the session's GET stream; the client reopens it (messages meanwhile are queued)."""
        if self.http_session is not None:
            self.http_session.close_get_stream()


class _ListingMetadata(HttpRequestMetadata):
    """Metadata of the synthetic `tools/list` behind a `tools/call`'s `Mcp-Param-*` check: the
    request's scope, its answer kept, every other message dropped (nobody reads them)."""

    __slots__ = ("answer", "request_id")

    def __init__(self, scope: Scope, protocol_version: str | None, request_id: Any) -> None:
        super().__init__(scope, protocol_version, None)
        self.request_id = request_id
        self.answer: dict[str, Any] | None = None

    @property
    def sink(self) -> Callable[[dict[str, Any]], Awaitable[bool]] | None:
        return self._keep

    async def _keep(self, message: dict[str, Any]) -> bool:
        if "method" not in message and message.get("id") == self.request_id:
            self.answer = message
        return True


class ResponseChannel:
    """Where the messages for one POST go. Unless `json_only`, the first message decides the
    shape where JSON is allowed (2026-07-28: the answer alone is one JSON body; anything before it
    makes an SSE stream); handshake-era POSTs always stream (`allow_json=False`), as officially.

    With an event store, every event is stored; after `close_stream` (SSE polling) or a dropped
    connection, later events are only stored, and a `GET` with `Last-Event-ID` replays them and
    re-attaches the live stream until the final response."""

    __slots__ = ("_event_store", "_lock", "_send", "allow_json", "before_final", "closed", "extra_headers", "finished",
                 "json_only", "modern", "priming", "request_id", "retry_interval", "started", "stream_id",
                 "unless_error_headers")

    def __init__(self, send: Send, request_id: Any, *, allow_json: bool, json_only: bool, modern: bool,
                 extra_headers: list[tuple[bytes, bytes]], event_store: EventStore | None,
                 retry_interval: int | None, stream_prefix: str = "",
                 unless_error_headers: list[tuple[bytes, bytes]] | None = None, priming: bool = True) -> None:
        self._send = send
        self.request_id = request_id
        self.json_only = json_only
        self.allow_json = json_only or (allow_json and event_store is None)
        self.modern = modern
        self.extra_headers = extra_headers
        self.unless_error_headers = unless_error_headers or []
        """Headers sent unless the response opens with the request's error (a new session's id:
        a failed initialize names no session)."""
        self._event_store = event_store
        self.retry_interval = retry_interval
        self.priming = priming
        """Open a resumable stream with a priming event (not for clients before 2025-11-25)."""
        self.stream_id = f"{stream_prefix}/{secrets.token_hex(8)}" if event_store is not None else ""
        """Event-store stream id; the prefix names the owning session (resumption checks it)."""
        self.started = False
        self.closed = False
        self.finished = _Flag()
        """Set once the final response has been produced (sent or stored)."""
        self._lock = _SendLock()
        self.before_final: Callable[[dict[str, Any]], Awaitable[dict[str, Any]]] | None = None
        """Called with the final response before it goes out; returns the one to send (a shared
        session's record is written here, so that no other worker can see the answer first)."""

    async def deliver(self, message: dict[str, Any]) -> bool:
        """Put `message` on this POST's response; False if it cannot go there (the caller then
        routes it to the session's standalone stream). Raises `EncodeError`, changing nothing,
        for a message JSON cannot carry (the engine then answers the request with -32603)."""
        final = message.get("id") == self.request_id and ("result" in message or "error" in message)
        if self.json_only and not final:
            # A JSON body carries only the answer: a notification about this request has no wire
            # (dropped, as officially); a request goes to the session's GET stream.
            return "id" not in message
        if final and self.before_final is not None:
            message = await self.before_final(message)
        data = encode_bytes(message)
        async with self._lock:
            if self.closed:
                if self._event_store is None or not self.started:
                    # the exchange is over: a request may still reach the client on the GET
                    # stream; the rest about this request has nowhere to go (as officially)
                    return "method" not in message or "id" not in message
                if await self._store(message) is None:  # replayed on resumption
                    return False
                if final:
                    self.finished.set()
                return True
            try:
                if not self.started:
                    if final and self.allow_json:
                        status = 200
                        if self.modern and "error" in message:
                            status = h.status_for_modern_error(message["error"].get("code", 0))
                        self.closed = True
                        self.finished.set()
                        await _send_body(self._send, status, data, _JSON_HEADERS + self._headers(message))
                        return True
                    await self._start_sse(message)
                event_id = None
                if self._event_store is not None:
                    event_id = await self._store(message)
                if final:
                    self.closed = True
                    self.finished.set()
                await self._send({"type": "http.response.body", "body": encode_event(data, event_id=event_id),
                                  "more_body": not final})
            except _GONE:  # the client is gone (servers that raise instead of dropping the write)
                self.closed = True
                if final:
                    self.finished.set()
                return self._event_store is not None and self.started
        return True

    async def _store(self, message: dict[str, Any] | None) -> EventId | None:
        """Store one event; None when a shared store is unreachable (the event then goes out
        without an id: this request is served, only its resumption is lost)."""
        assert self._event_store is not None
        try:
            return await self._event_store.store_event(self.stream_id, message_for_store(self._event_store, message))
        except StoreUnavailable:
            logger.warning("SSE event of stream %s not stored: the event store is unreachable", self.stream_id)
            return None

    def _headers(self, first: dict[str, Any] | None) -> list[tuple[bytes, bytes]]:
        failed = first is not None and "error" in first and first.get("id") == self.request_id
        return self.extra_headers if failed else self.extra_headers + self.unless_error_headers

    async def _start_sse(self, first: dict[str, Any] | None = None) -> None:
        self.started = True
        await self._send({"type": "http.response.start", "status": 200,
                          "headers": _SSE_HEADERS + self._headers(first)})
        if self._event_store is not None and self.priming:
            priming = await self._store(None)
            await self._send({"type": "http.response.body", "more_body": True,
                              "body": encode_event("", event=None, event_id=priming, retry=self.retry_interval)})

    async def open_stream(self) -> None:
        """Start the SSE response now (resumable streams: the priming event gives the client an
        event id to resume from, even if the connection drops before the first message)."""
        async with self._lock:
            if not self.started and not self.closed:
                await self._start_sse()

    def attach(self, send: Send) -> None:
        """Continue the stream on a resumed connection (whose response has already started)."""
        self._send = send
        self.closed = False

    async def close_stream(self) -> None:
        """End the HTTP response early (SSE polling): the client resumes with `Last-Event-ID`.
        A no-op without an event store (nothing to resume from: the request would be lost)."""
        if self._event_store is None:
            return
        async with self._lock:
            try:
                if not self.started and not self.closed:
                    await self._start_sse()
                if not self.closed:
                    self.closed = True
                    await self._send({"type": "http.response.body", "body": b"", "more_body": False})
            except _GONE:
                self.closed = True

    def detach(self, send: Send) -> None:
        """A resumed connection went away: later events are only stored, until the next resume."""
        if self._send is send:
            self.closed = True

    async def finish_unanswered(self) -> None:
        """The handler ended without a response (cancelled). A handshake-era request still ends
        with an answer for its id, as officially: `REQUEST_CANCELLED` (stored like any event, so a
        resumed stream ends too); a 2026-07-28 one is not answered (its client went away)."""
        if not self.finished.is_set() and not self.modern:
            with suppress(Exception):  # nothing to answer on (or store in) any more
                await self.deliver(m.error_response(self.request_id, REQUEST_CANCELLED, "Request cancelled"))
        async with self._lock:
            self.finished.set()
            if self.closed:
                return
            self.closed = True
            try:
                if self.started:
                    await self._send({"type": "http.response.body", "body": b"", "more_body": False})
                else:
                    body = encode_bytes(m.error_response(self.request_id, REQUEST_CANCELLED, "Request cancelled"))
                    await _send_body(self._send, 500, body, _JSON_HEADERS + self.extra_headers)
            except _GONE:
                pass  # the client is gone


class _HttpSession:
    """A handshake-era session: its ServerSession and the queue feeding its GET stream."""

    __slots__ = ("client", "connections", "get_scope", "get_stream_open", "headers", "id", "last_active", "outbox",
                 "principal", "record", "server_session")

    def __init__(self, session_id: str, server_session: ServerSession, outbox: Any, client: Any = None,
                 principal: Any = None) -> None:
        self.id = session_id
        self.headers = [(b"mcp-session-id", session_id.encode())]
        """What every response of this session carries (as officially)."""
        self.client = client
        """Who opened it, as `SessionsPerClient` counts clients."""
        self.principal = principal
        """Who opened it, as `_principal_of` names a request's principal: the session answers no one else."""
        self.server_session = server_session
        self.outbox = outbox
        self.last_active = time.monotonic()
        self.get_stream_open = False
        self.get_scope: anyio.CancelScope | None = None
        self.connections = 0
        """HTTP exchanges of this session whose client is still connected."""
        self.record: SessionRecord | None = None
        """The shared record this replica was last brought up to date with (with a session store)."""

    @property
    def busy(self) -> bool:
        """A client is connected (a POST being answered, the GET stream, a resumed stream).
        In-flight requests whose client went away do not keep the session alive."""
        return self.connections > 0

    def close_get_stream(self) -> None:
        if self.get_scope is not None:
            self.get_scope.cancel()


class _Stamp:
    """A standalone message's event id, riding to the GET stream as its `SessionMessage` metadata."""

    __slots__ = ("event_id",)

    def __init__(self, event_id: EventId | None) -> None:
        self.event_id = event_id


class StoringOutbox(WireWriter):
    """The queue of a session's GET stream, with an event store: every message outside a request
    is stored as it is produced (so event ids follow production order, as officially, whether or
    not a GET stream is open) and carries its event id to the GET stream. Beyond the queue's room
    (no client reading) a message is dropped, with a warning, after being stored."""

    __slots__ = ("_queue", "_store", "stream_id")

    def __init__(self, queue: Any, store: EventStore, stream_id: StreamId) -> None:
        self._queue = queue
        self._store = store
        self.stream_id = stream_id

    def send_wire_nowait(self, item: SessionMessage) -> None:
        raise anyio.WouldBlock  # storing takes an await: the sender takes `send_wire`

    async def send_wire(self, item: SessionMessage) -> None:
        message: Any = item.message
        event_id: EventId | None = None
        try:
            event_id = await self._store.store_event(self.stream_id, message_for_store(self._store, message))
        except StoreUnavailable:
            logger.warning("SSE event of stream %s not stored: the event store is unreachable", self.stream_id)
        try:
            self._queue.send_nowait(SessionMessage(message, _Stamp(event_id)))
        except anyio.WouldBlock:
            logger.warning("dropping %s: no client is reading the session's GET stream",
                           cast("dict[str, Any]", message).get("method") if type(message) is dict else "a message")

    def close(self) -> None:
        self._queue.close()


class _SessionEnd:
    """One live session as the official manager's private `_server_instances` map holds it: what
    FastMCP awaits (`terminate()`) at shutdown to end every session before the task group stops."""

    __slots__ = ("manager", "session")

    def __init__(self, manager: StreamableHTTPSessionManager, session: _HttpSession) -> None:
        self.manager = manager
        self.session = session

    async def terminate(self) -> None:
        self.manager._terminate(self.session)


class StreamableHTTPSessionManager:
    """The ASGI endpoint serving MCP over Streamable HTTP (see the module docstring)."""

    def __init__(
        self,
        app: Server[Any],
        event_store: EventStore | None = None,
        json_response: bool = False,
        stateless: bool = False,
        security_settings: TransportSecuritySettings | None = None,
        retry_interval: int | None = None,
        session_idle_timeout: float | None = h.DEFAULT_SESSION_IDLE_TIMEOUT,
        max_request_body_size: int = DEFAULT_MAX_BODY,
        max_sessions: int | None = h.DEFAULT_MAX_SESSIONS,
        max_sessions_per_client: int | None = h.DEFAULT_MAX_SESSIONS_PER_CLIENT,
        *,
        session_store: SessionStore | None = None,
        trusted_proxies: TrustedProxies = None,
    ) -> None:
        self.app = self.server = app
        """The low-level `Server` whose connections this manager serves."""
        self.json_response = json_response
        self.stateless = stateless
        self.event_store = event_store
        self.retry_interval = retry_interval
        self.max_request_body_size = max_request_body_size
        self.security_settings = security_settings
        self.session_idle_timeout = math.inf if session_idle_timeout is None else session_idle_timeout
        self.max_sessions = sys.maxsize if max_sessions is None else max_sessions
        self._sessions: OrderedDict[str, _HttpSession] = OrderedDict()
        """Handshake-era sessions, least recently used first."""
        self.sessions_per_client = SessionsPerClient(max_sessions_per_client, trusted_proxies)
        self._sweep_interval = min(60.0, self.session_idle_timeout / 4)
        self._last_sweep = time.monotonic()
        self._lifespan_stack: AsyncExitStack | None = None
        self._lifespan_context: Any = None
        self._lifespan_lock = anyio.Lock()
        self._live: dict[str, ResponseChannel] = {}
        """Resumable POST streams still waiting for their final response, by stream id."""
        # Streams closed at both ends: a session-less ServerSession never reads its input and
        # drops what it cannot put on a response (there is no connection to send it to).
        write_send, write_recv = anyio.create_memory_object_stream[SessionMessage](0)
        read_send, read_recv = anyio.create_memory_object_stream[Any](0)
        for stream in (write_send, write_recv, read_send, read_recv):
            stream.close()
        self._closed_read = WireReceiveStream(read_recv)
        self._closed_write = WireSendStream(write_send)
        shared: Any = getattr(app, "shared_state", None)
        """`MCPServer(state=...)`: the stores shared by every worker (sessions, events, bus)."""
        if shared is not None:
            session_store = session_store if session_store is not None else shared.session_store()
            if self.event_store is None and shared.resumable:
                self.event_store = shared.event_store()
        self.session_store = session_store
        self._shared: SharedSessions | None = None
        if session_store is not None:
            from mcp.server.streamable_http_shared import SharedSessions

            self._shared = SharedSessions(self, session_store, shared)
        from mcp._telemetry import watch_sessions

        watch_sessions(self)  # the sessions-open metric reads `session_count` when collected

    # -- lifespan -----------------------------------------------------------------------------

    @asynccontextmanager
    async def run(self) -> AsyncIterator[None]:
        """Enter the server's lifespan for the life of the app (the app's lifespan does this)."""
        await self._ensure_lifespan()
        try:
            yield
        finally:
            await self.close()

    async def _ensure_lifespan(self) -> Any:
        """The server lifespan's context, entered on first use when the host did not run the
        app's lifespan (mounted apps)."""
        if self._lifespan_stack is None:
            async with self._lifespan_lock:
                if self._lifespan_stack is None:
                    stack = AsyncExitStack()
                    self._lifespan_context = await stack.enter_async_context(self.server.lifespan(self.server))
                    self._lifespan_stack = stack
        return self._lifespan_context

    async def close(self) -> None:
        """End every session and leave the server lifespan."""
        for session in list(self._sessions.values()):
            self._terminate(session)
        if self._shared is not None:
            self._shared.close()
        stack, self._lifespan_stack = self._lifespan_stack, None
        if stack is not None:
            await stack.aclose()

    @property
    def session_count(self) -> int:
        return len(self._sessions)

    @property
    def _server_instances(self) -> dict[str, _SessionEnd]:
        """Live handshake-era sessions by id, each ended by `await value.terminate()` (the official
        private name, which FastMCP's app lifespan walks at shutdown)."""
        return {sid: _SessionEnd(self, session) for sid, session in self._sessions.items()}

    # -- ASGI ---------------------------------------------------------------------------------

    async def handle_request(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve one ASGI HTTP request (the manager itself is also the ASGI app)."""
        await self(scope, receive, send)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        headers = _headers(scope)
        self._sweep()
        method = scope["method"]
        if method == "POST":
            await self._post(scope, receive, send, headers)  # (its checks come after the body's size)
            return
        rejected = check(self.security_settings, headers.get("host"), headers.get("origin"))
        if rejected is not None:
            await _send_refusal(send, rejected[0], rejected[1])
            return
        version = headers.get(h.VERSION_HEADER)
        if version is not None and version not in HANDSHAKE_VERSIONS:
            # the 2026-07-28 entry serves POST only (nothing but the Allow header, as officially)
            await _send_body(send, 405, b"", [(b"allow", b"POST")])
        elif method == "GET":
            await self._get(scope, receive, send, headers)
        elif method == "DELETE":
            await self._delete(scope, send, headers)
        else:
            await _send_error(send, 405, None, INVALID_REQUEST, "Method Not Allowed",
                              headers=[(b"allow", b"GET, POST, DELETE")])

    async def _post(self, scope: Scope, receive: Receive, send: Send, headers: dict[str, str]) -> None:
        # As officially: the size limit first (413 whatever the headers), then the Content-Type
        # (400 before anything else: a cross-site form post is refused), then Host and Origin.
        body = await _read_body(receive, headers, self.max_request_body_size)
        if body is _DISCONNECTED:
            return
        if body is None:
            await _send_error(send, 413, None, INVALID_REQUEST,
                              f"Payload Too Large: the request body exceeds {self.max_request_body_size} bytes")
            return
        content_type = headers.get("content-type")
        if content_type != h.JSON and not (content_type or "").lower().startswith(h.JSON):
            await _send_refusal(send, 400, "Invalid Content-Type header")
            return
        rejected = check(self.security_settings, headers.get("host"), headers.get("origin"))
        if rejected is not None:
            await _send_refusal(send, rejected[0], rejected[1])
            return
        version = headers.get(h.VERSION_HEADER)
        try:
            message: Any = decode(body)
        except ParseError as exc:
            message, parse_error = None, exc
        else:
            parse_error = None
        if version is not None:
            modern = version not in HANDSHAKE_VERSIONS
            """Any header value but a handshake-era version is the 2026-07-28 entry's to answer
            (unknown versions included: its validation rejects them)."""
        else:  # no header: a request may still name its revision in `_meta`
            params: Any = cast("dict[str, Any]", message).get("params") if type(message) is dict else None
            meta: Any = cast("dict[str, Any]", params).get("_meta") if type(params) is dict else None
            meta_version: Any = cast("dict[str, Any]", meta).get(PROTOCOL_VERSION_META_KEY) if type(meta) is dict else None
            modern = meta_version is not None and meta_version not in HANDSHAKE_VERSIONS
        if modern:
            await self._post_modern(scope, receive, send, headers, message, parse_error, version)
        else:
            await self._post_legacy(scope, receive, send, headers, message, parse_error, version)

    async def _post_modern(self, scope: Scope, receive: Receive, send: Send, headers: dict[str, str], message: Any,
                           parse_error: ParseError | None, version: str | None) -> None:
        """A self-contained 2026-07-28 POST: no session; rejections as the official modern entry."""
        accept = headers.get("accept")
        allow_json, allow_sse = h.accepts(accept) if accept else (False, False)
        if not allow_json or (not self.json_response and not allow_sse):
            await _send_body(send, 406, b"", [])
            return
        if parse_error is not None:
            await _send_error(send, 400, None, PARSE_ERROR, "Parse error")
            return
        shaped: dict[str, Any] | None = cast("dict[str, Any]", message) if type(message) is dict else None
        if shaped is not None and "id" not in shaped:  # notification-shaped
            method: Any = shaped.get("method")
            params: Any = shaped.get("params")
            if shaped.get("jsonrpc") != "2.0" or type(method) is not str or not (params is None or type(params) is dict):
                await _send_error(send, 400, None, INVALID_REQUEST, _INVALID_BODY)
                return
            if version is not None and version not in SUPPORTED_PROTOCOL_VERSIONS:
                await _send_error(send, 400, None, UNSUPPORTED_PROTOCOL_VERSION,
                                  f"Unsupported protocol version: {version}",
                                  {"supported": list(MODERN_VERSIONS), "requested": version})
                return
            # Acknowledged and dropped, as officially: a self-contained exchange has no state a
            # client notification could act on (a client cancels by closing the response).
            await _send_body(send, 202, b"", [])
            return
        try:
            kind = m.classify(message)
        except m.InvalidMessage:
            kind = None
        if kind is not m.REQUEST or shaped is None:  # a batch, a posted response, a malformed envelope
            await _send_error(send, 400, None, INVALID_REQUEST, _INVALID_BODY)
            return
        message = shaped
        request_id = message.get("id")
        streams = message.get("method") == "subscriptions/listen"
        if streams and not allow_sse:
            await _send_body(send, 406, b"", [])
            return
        params = message.get("params")
        meta: Any = cast("dict[str, Any]", params).get("_meta") if type(params) is dict else None
        reason = None
        if type(meta) is dict and PROTOCOL_VERSION_META_KEY in meta and CLIENT_CAPABILITIES_META_KEY in meta:
            # (without the envelope the request fails the ladder's first rung, answered by the session)
            reason = h.header_mismatch(message, headers)
            requested: Any = cast("dict[str, Any]", meta)[PROTOCOL_VERSION_META_KEY]
            if (reason is None and message.get("method") == "tools/call" and requested in MODERN_VERSIONS
                    and version in (None, requested)):  # (else the session answers the version)
                # every raw line (a repeated Mcp-Param-* is refused), trimmed as HTTP servers hand
                # values over (RFC 9110 §5.5; an ASGI app called directly may not)
                lines = ((k.decode("latin-1").lower(), v.decode("latin-1").strip()) for k, v in scope["headers"])
                mismatch = await param_header_mismatch_for_call(
                    self.server, params, headers, lines,
                    lambda list_params: self._list_tools_as_caller(scope, version, request_id, list_params))
                if mismatch is not None:  # as officially: the reason alone
                    await _send_error(send, 400, request_id, HEADER_MISMATCH, mismatch)
                    return
        if reason is not None:
            await _send_error(send, 400, request_id, HEADER_MISMATCH, f"Header mismatch: {reason}")
            return
        session = self._stateless_session(await self._ensure_lifespan())
        json_only = (self.json_response and not streams) or not allow_sse
        channel = ResponseChannel(send, request_id, allow_json=allow_json, json_only=json_only, modern=True,
                                  extra_headers=[], event_store=None, retry_interval=None)
        await self._serve_request(session, message, HttpRequestMetadata(scope, version, channel, None), channel,
                                  receive, send, owner=None, new_session=None)

    async def _post_legacy(self, scope: Scope, receive: Receive, send: Send, headers: dict[str, str], message: Any,
                           parse_error: ParseError | None, version: str | None) -> None:
        """A handshake-era POST, checked in the official transport's order."""
        owner: _HttpSession | None = None
        session_id = None if self.stateless else headers.get(h.SESSION_HEADER)
        if session_id is not None:
            owner = self._sessions.get(session_id)
            if self._shared is not None:
                try:
                    owner = await self._shared.session(session_id, owner)
                except StoreUnavailable as exc:
                    await _send_error(send, 503, None, exc.code, exc.message)
                    return
            if owner is None:
                await _unknown_session(send, session_id)
                return
            if self._foreign(owner, scope):
                await _foreign_session(send, session_id)
                return
            self._touch(owner)
        session_headers = owner.headers if owner is not None else []
        accept = headers.get("accept")
        allow_json, allow_sse = h.accepts(accept) if accept else (False, False)
        if self.json_response:
            if not allow_json:
                await _send_error(send, 406, None, INVALID_REQUEST, "Not Acceptable: Client must accept application/json",
                                  headers=session_headers)
                return
        elif not (allow_json and allow_sse):
            await _send_error(send, 406, None, INVALID_REQUEST,
                              "Not Acceptable: Client must accept both application/json and text/event-stream",
                              headers=session_headers)
            return
        if not h.is_json_content_type(headers.get("content-type")):
            await _send_error(send, 415, None, INVALID_REQUEST,
                              "Unsupported Media Type: Content-Type must be application/json", headers=session_headers)
            return
        if parse_error is not None:
            await _send_error(send, 400, None, PARSE_ERROR, f"Parse error: {parse_error}", headers=session_headers)
            return
        try:
            kind = m.classify(message)
        except m.InvalidMessage as exc:
            await _send_error(send, 400, None, INVALID_PARAMS, f"Validation error: {exc.reason}", headers=session_headers)
            return
        new_session: _HttpSession | None = None
        initialize = kind is m.REQUEST and message["method"] == "initialize"
        if self.stateless:
            entered = self._lifespan_stack is not None  # no coroutine to await once entered
            session = self._stateless_session(self._lifespan_context if entered else await self._ensure_lifespan())
        else:
            if owner is None:
                if not initialize:
                    await _send_error(send, 400, None, INVALID_REQUEST, "Bad Request: Missing session ID")
                    return
                request_id = message.get("id")
                client = self.sessions_per_client.client_of(scope)
                limit = self.sessions_per_client.limit
                if self._shared is not None and self._shared.counts_clients:  # one count for every worker
                    try:
                        admitted = await self._shared.admits(client, limit)
                    except StoreUnavailable as exc:
                        await _send_error(send, 503, None, exc.code, exc.message)
                        return
                else:
                    admitted = self.sessions_per_client.admit(client)
                if not admitted:
                    assert limit is not None
                    await _send_error(send, 429, request_id, INVALID_REQUEST, too_many_sessions(limit), {"limit": limit})
                    return
                new_session = await self._new_session(client, _principal_of(scope))
                if new_session is None:
                    await _send_error(send, 503, request_id, INVALID_REQUEST, "Service Unavailable: too many sessions")
                    return
                owner = new_session
            session = owner.server_session
        if kind is not m.REQUEST:
            await session.peer.handle(message, HttpRequestMetadata(scope, version, None, owner))
            await _send_body(send, 202, b"", _JSON_HEADERS + session_headers)
            return
        request_id = message.get("id")
        streams = message.get("method") == "subscriptions/listen"
        """A listen request is a stream by nature: answered over SSE even in JSON-response mode (a
        JSON body would wait for the stream's end, so the client saw nothing, acknowledgement included)."""
        if streams and not allow_sse:
            await _send_error(send, 406, request_id, INVALID_REQUEST,
                              "Not Acceptable: subscriptions/listen is answered as text/event-stream")
            return
        json_only = self.json_response and not streams
        # resumable: the SSE streams of a session (an initialize's too, as officially)
        store = self.event_store if owner is not None and not json_only else None
        priming = False
        if store is not None:
            negotiating: Any = message.get("params") if initialize else None
            revision: Any = (cast("dict[str, Any]", negotiating).get("protocolVersion") if type(negotiating) is dict
                             else version) or DEFAULT_NEGOTIATED_VERSION
            priming = str(revision) >= _PRIMING_SINCE  # older clients cannot parse an empty-data event
        channel = ResponseChannel(send, request_id, allow_json=json_only, json_only=json_only, modern=False,
                                  extra_headers=session_headers, event_store=store, retry_interval=self.retry_interval,
                                  stream_prefix=owner.id if owner is not None else "",
                                  unless_error_headers=new_session.headers if new_session is not None else None,
                                  priming=priming)
        metadata = HttpRequestMetadata(scope, version, channel, owner)
        if owner is not None and self._shared is not None:
            channel.before_final = self._shared.committer(owner, new_session is not None, request_id)
        await self._serve_request(session, message, metadata, channel, receive, send, owner=owner,
                                  new_session=new_session)

    async def _serve_request(self, session: ServerSession, message: dict[str, Any], metadata: HttpRequestMetadata,
                             channel: ResponseChannel, receive: Receive, send: Send, *, owner: _HttpSession | None,
                             new_session: _HttpSession | None) -> None:
        """Run one request to its answer on `channel`. A session's call outlives its client's
        connection (as officially: a disconnect is no cancellation; with an event store the client
        resumes); a session-less one is cancelled when its client goes away."""
        resumable = channel.stream_id != ""
        if resumable:
            self._live[channel.stream_id] = channel
        if owner is not None:
            owner.connections += 1
        connected = True

        def disconnected(cancel_scope: anyio.CancelScope) -> None:
            nonlocal connected
            connected = False
            if owner is not None:
                owner.connections -= 1
                owner.last_active = time.monotonic()
                channel.detach(send)  # keep serving: the call's answer is stored, or dropped
            else:
                cancel_scope.cancel()

        try:
            async with _DisconnectWatch(receive, disconnected):
                if resumable and new_session is None:
                    # (an initialize's stream starts with its answer: a failed one names no session)
                    await channel.open_stream()
                await session.peer.handle(message, metadata)
                if new_session is not None and (session._protocol_version is None or new_session.id not in self._sessions):
                    self._terminate(new_session)  # initialize failed: no session (before anyone sees the answer)
        finally:
            if resumable:
                self._live.pop(channel.stream_id, None)
            if owner is not None:
                owner.last_active = time.monotonic()
                if connected:
                    owner.connections -= 1
            if channel.finished.is_set() and not resumable and new_session is None:
                pass  # answered: nothing to clean up (and no shielded scope to pay for)
            else:
                with anyio.CancelScope(shield=True):
                    if new_session is not None and session._protocol_version is None:
                        self._terminate(new_session)  # initialize failed: no session
                    await channel.finish_unanswered()
                    if owner is not None and self._shared is None and self._sessions.get(owner.id) is not owner:
                        forget_session(self.event_store, owner.id)  # what the session's end left unanswered

    async def _list_tools_as_caller(self, scope: Scope, version: str | None, request_id: Any,
                                    params: dict[str, Any]) -> Any:
        """One `tools/list` page served as the caller of a 2026-07-28 `tools/call` (the `Mcp-Param-*`
        schema lookup): a fresh stateless session, the answer kept, anything else dropped."""
        session = self._stateless_session(await self._ensure_lifespan())
        metadata = _ListingMetadata(scope, version, request_id)
        await session.peer.handle({"jsonrpc": "2.0", "id": request_id, "method": "tools/list", "params": params},
                                  metadata)
        answer = metadata.answer
        if answer is None or "error" in answer:
            raise RuntimeError(f"tools/list was answered {answer!r}")
        return answer.get("result")

    async def _session_for(self, scope: Scope, send: Send, headers: dict[str, str], *,
                           deleting: bool = False) -> _HttpSession | None:
        """The session a GET or DELETE names, or None after answering with the error."""
        if self.stateless:
            if deleting:  # as officially
                await _send_error(send, 405, None, INVALID_REQUEST, "Method Not Allowed: Session termination not supported")
                return None
            # no sessions, no standalone stream
            await _send_body(send, 405, b"Method Not Allowed", [(b"content-type", b"text/plain"), (b"allow", b"POST")])
            return None
        session_id = headers.get(h.SESSION_HEADER)
        if session_id is None:
            await _send_error(send, 400, None, INVALID_REQUEST, "Bad Request: Missing session ID")
            return None
        session = self._sessions.get(session_id)
        if self._shared is not None:
            try:
                session = await self._shared.session(session_id, session)
            except StoreUnavailable as exc:
                await _send_error(send, 503, None, exc.code, exc.message)
                return None
        if session is None:
            await _unknown_session(send, session_id)
            return None
        if self._foreign(session, scope):
            await _foreign_session(send, session_id)
            return None
        return session

    async def _get(self, scope: Scope, receive: Receive, send: Send, headers: dict[str, str]) -> None:
        session = await self._session_for(scope, send, headers)
        if session is None:
            return
        accept = headers.get("accept")
        if not accept or not h.accepts(accept)[1]:
            await _send_error(send, 406, None, INVALID_REQUEST, "Not Acceptable: Client must accept text/event-stream",
                              headers=session.headers)
            return
        self._touch(session)
        last_event_id = headers.get(h.LAST_EVENT_ID_HEADER)
        if last_event_id and self.event_store is not None:
            revision = headers.get(h.VERSION_HEADER) or DEFAULT_NEGOTIATED_VERSION
            await self._replay(session, send, receive, last_event_id, priming=revision >= _PRIMING_SINCE)
            return
        if session.get_stream_open:
            await _send_error(send, 409, None, INVALID_REQUEST, "Conflict: Only one SSE stream is allowed per session",
                              headers=session.headers)
            return
        session.get_stream_open = True
        session.connections += 1
        try:
            await send({"type": "http.response.start", "status": 200, "headers": _SSE_HEADERS + session.headers})
            await send({"type": "http.response.body", "body": b": stream open\n\n", "more_body": True})
            async with anyio.create_task_group() as tg:
                session.get_scope = tg.cancel_scope
                tg.start_soon(_cancel_on_disconnect, receive, tg.cancel_scope)
                if self._shared is not None:
                    tg.start_soon(self._shared.keep_alive, session, tg.cancel_scope)
                outbox = session.outbox
                while True:
                    try:
                        item = await outbox.receive()
                    except (anyio.EndOfStream, anyio.ClosedResourceError):
                        break  # the session ended
                    stamp: Any = item.metadata
                    event_id = stamp.event_id if type(stamp) is _Stamp else None
                    await send({"type": "http.response.body", "more_body": True,
                                "body": encode_event(encode_bytes(item.message), event_id=event_id)})
                tg.cancel_scope.cancel()
            with anyio.CancelScope(shield=True):
                await send({"type": "http.response.body", "body": b"", "more_body": False})
        except _GONE:
            pass  # the client went away
        finally:
            session.get_scope = None
            session.get_stream_open = False
            session.connections -= 1
            session.last_active = time.monotonic()

    async def _replay(self, session: _HttpSession, send: Send, receive: Receive, last_event_id: str, *,
                      priming: bool) -> None:
        """Resume a POST stream of `session`: replay what the client missed, then stay attached to
        the live request until its final response (or end at once when it is already finished).
        An event id the store does not know, or one of another session's stream, gets an empty
        stream (as officially for the former). Re-attaching to a live request opens with a fresh
        priming event for clients that understand one."""
        assert self.event_store is not None
        store = self.event_store
        missed: list[EventMessage] = []

        async def collect(event: EventMessage) -> None:
            missed.append(event)

        try:
            stream = await store.replay_events_after(last_event_id, collect)
        except StoreUnavailable as exc:
            await _send_error(send, 503, None, exc.code, exc.message)
            return
        if stream is None or not stream.startswith(session.id + "/"):
            with suppress(*_GONE):
                await send({"type": "http.response.start", "status": 200, "headers": _SSE_HEADERS + session.headers})
                await send({"type": "http.response.body", "body": b"", "more_body": False})
            return
        ended = False
        last_seen = last_event_id

        async def emit() -> None:
            nonlocal ended, last_seen
            events, missed[:] = list(missed), []
            for event in events:
                if ended:
                    return
                last_seen = event.event_id
                message = wire_message(event.message)
                ended = "result" in message or "error" in message
                await send({"type": "http.response.body", "more_body": not ended,
                            "body": encode_event(encode_bytes(message), event_id=event.event_id)})

        session.connections += 1
        try:
            await send({"type": "http.response.start", "status": 200, "headers": _SSE_HEADERS + session.headers})
            await emit()
            channel = self._live.get(stream)
            attached = False
            if not ended:
                if channel is not None:
                    async with channel._lock:
                        # events stored since the first replay, then the live stream
                        await store.replay_events_after(last_seen, collect)
                        await emit()
                        if not ended and not channel.finished.is_set():
                            if priming:
                                event_id = await channel._store(None)
                                await send({"type": "http.response.body", "more_body": True, "body": encode_event(
                                    "", event=None, event_id=event_id, retry=channel.retry_interval)})
                            channel.attach(send)
                            attached = True
                else:
                    await store.replay_events_after(last_seen, collect)  # the request ended meanwhile
                    await emit()
                    follow: Any = getattr(store, "follow", None)
                    """A shared store (Redis Streams) can follow a stream another worker is writing."""
                    if not ended and follow is not None:

                        async def live(event: EventMessage) -> None:
                            missed.append(event)
                            await emit()

                        async with anyio.create_task_group() as tg:
                            tg.start_soon(_cancel_on_disconnect, receive, tg.cancel_scope)
                            await follow(last_seen, live)
                            tg.cancel_scope.cancel()
            if attached:
                assert channel is not None
                try:
                    async with anyio.create_task_group() as tg:
                        tg.start_soon(_cancel_on_disconnect, receive, tg.cancel_scope)
                        await channel.finished.wait()
                        tg.cancel_scope.cancel()
                finally:
                    channel.detach(send)
                return
            if not ended:
                await send({"type": "http.response.body", "body": b"", "more_body": False})
        except _GONE:
            pass
        except StoreUnavailable:  # the stream ends; the client resumes once the store is back
            logger.warning("resumed stream %s ended: the event store is unreachable", stream)
            with anyio.CancelScope(shield=True):
                with suppress(*_GONE):
                    await send({"type": "http.response.body", "body": b"", "more_body": False})
        finally:
            session.connections -= 1
            session.last_active = time.monotonic()

    async def _delete(self, scope: Scope, send: Send, headers: dict[str, str]) -> None:
        session = await self._session_for(scope, send, headers, deleting=True)
        if session is None:
            return
        if self._shared is not None:
            try:
                await self._shared.delete(session.id)
            except StoreUnavailable as exc:
                await _send_error(send, 503, None, exc.code, exc.message)
                return
        self._terminate(session)
        await _send_body(send, 200, b"", _JSON_HEADERS + session.headers)  # (as officially)

    # -- sessions -----------------------------------------------------------------------------

    def _stateless_session(self, lifespan_context: Any) -> ServerSession:
        """A session-less ServerSession for one self-contained request: nothing a request sets
        (log level, negotiated version, request ids in flight) is seen by another client's."""
        return ServerSession(server=self.server, read_stream=self._closed_read, write_stream=self._closed_write, lifespan_context=lifespan_context,
                             stateless=True, drop_when_full=True)

    async def _new_session(self, client: Any = None, principal: Any = None) -> _HttpSession | None:
        return await self._make_session(secrets.token_urlsafe(24), client, principal)

    async def _make_session(self, session_id: str, client: Any = None, principal: Any = None) -> _HttpSession | None:
        """A session of `principal` (or a shared session's replica, counted under no client) under
        `session_id`; None when the table is full."""
        context = await self._ensure_lifespan()
        if len(self._sessions) >= self.max_sessions and not self._evict_one():
            return None
        outbox_send, outbox_recv = anyio.create_memory_object_stream[SessionMessage](256)
        store = self.event_store
        write: Any = WireSendStream(outbox_send) if store is None else StoringOutbox(outbox_send, store, session_id + STANDALONE_STREAM_SUFFIX)
        server_session = ServerSession(server=self.server, read_stream=self._closed_read, write_stream=write, lifespan_context=context,
                                       drop_when_full=store is None)
        session = _HttpSession(session_id, server_session, outbox_recv, client, principal)
        self._sessions[session_id] = session
        self.sessions_per_client.opened(client)
        return session

    def _foreign(self, session: _HttpSession, scope: Scope) -> bool:
        """Whether `scope`'s request acts for another principal than the one that opened `session`."""
        return session.principal != _principal_of(scope)

    def _touch(self, session: _HttpSession) -> None:
        session.last_active = time.monotonic()
        self._sessions.move_to_end(session.id)

    def _sweep(self) -> None:
        """Evict sessions idle for `session_idle_timeout` (checked at most every quarter of it)."""
        now = time.monotonic()
        if now - self._last_sweep < self._sweep_interval:
            return
        self._last_sweep = now
        deadline = now - self.session_idle_timeout
        for session in list(self._sessions.values()):
            if session.last_active < deadline and not session.busy:
                self._terminate(session, ended=self._shared is None)

    def _evict_one(self) -> bool:
        for session in self._sessions.values():  # least recently used first
            if not session.busy:
                self._terminate(session, ended=self._shared is None)
                return True
        return False

    def _terminate(self, session: _HttpSession, *, ended: bool = True) -> None:
        """Stop serving `session` here. `ended`: the session is over (not only this process's
        replica of a shared one), so its resumable streams are freed too."""
        if self._sessions.pop(session.id, None) is not None:
            self.sessions_per_client.closed(session.client)
        if ended:
            forget_session(self.event_store, session.id)
        peer = session.server_session.peer
        for scope in list(peer._in_flight.values()):
            scope.cancel()
        peer.close()
        peer._write.close()
        session.outbox.close()
        session.close_get_stream()


# -- ASGI helpers -------------------------------------------------------------------------------

_DISCONNECTED: Any = object()


def _headers(scope: Scope) -> dict[str, str]:
    return {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}


async def _read_body(receive: Receive, headers: dict[str, str], limit: int) -> Any:
    """The request body; None as soon as it is known to exceed `limit` (nothing more is read);
    `_DISCONNECTED` when the client went away first."""
    declared = headers.get("content-length")
    if declared is not None and declared.isdigit() and (len(declared) > 18 or int(declared) > limit):
        return None  # (a length past int's 4300-digit parsing limit is no ValueError here)
    chunks: list[bytes] = []
    size = 0
    while True:
        event = await receive()
        if event["type"] == "http.disconnect":
            return _DISCONNECTED
        chunk = event.get("body", b"")
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
        if not event.get("more_body", False):
            return b"".join(chunks) if len(chunks) != 1 else chunks[0]


class _Flag:
    """A one-way event whose `anyio.Event` is made only if someone waits (most never do: creating
    one per request is a measurable share of a small JSON response's cost)."""

    __slots__ = ("_event", "_set")

    def __init__(self) -> None:
        self._set = False
        self._event: anyio.Event | None = None

    def set(self) -> None:
        self._set = True
        if self._event is not None:
            self._event.set()

    def is_set(self) -> bool:
        return self._set

    async def wait(self) -> None:
        if self._event is None:
            self._event = anyio.Event()
            if self._set:
                self._event.set()
        await self._event.wait()


class _SendLock:
    """A lock for the writers of one HTTP response; taking it free costs no event-loop pass (an
    `anyio.Lock` checkpoints on every acquire, which is most of a small response's cost)."""

    __slots__ = ("_locked", "_waiters")

    def __init__(self) -> None:
        self._locked = False
        self._waiters: deque[anyio.Event] = deque()

    async def __aenter__(self) -> None:
        if not self._locked:
            self._locked = True
            return
        turn = anyio.Event()
        self._waiters.append(turn)
        try:
            await turn.wait()
        except BaseException:
            if turn.is_set():
                self._release()  # handed the lock while being cancelled: pass it on
            else:
                self._waiters.remove(turn)
            raise

    async def __aexit__(self, *exc: object) -> None:
        self._release()

    def _release(self) -> None:
        if self._waiters:
            self._waiters.popleft().set()  # ownership passes straight to the next writer
        else:
            self._locked = False


class _DisconnectWatch:
    """`async with _DisconnectWatch(receive, on_disconnect):` runs its body while a watcher waits
    for the client to disconnect, then calls `on_disconnect(scope)` (which may cancel the body
    through `scope`). Nothing is called once the body has ended.

    On asyncio the watcher is a bare task (a task group per request costs several event-loop
    passes and most of the per-request overhead), started only once the body has run for
    `WATCH_AFTER` seconds: most requests are answered sooner and need no watcher at all (a
    disconnect is noticed that much later). Elsewhere, a task group. Being a context manager, it
    adds no frame to the request's await chain (every resumption walks that chain)."""

    WATCH_AFTER: ClassVar[float] = 0.05

    __slots__ = ("_on_disconnect", "_receive", "_scope", "_task_group", "_timer", "_watcher")

    def __init__(self, receive: Receive, on_disconnect: Callable[[anyio.CancelScope], None]) -> None:
        self._receive = receive
        self._on_disconnect = on_disconnect
        self._scope: anyio.CancelScope | None = None
        self._task_group: Any = None
        self._timer: asyncio.TimerHandle | None = None
        self._watcher: asyncio.Task[None] | None = None

    async def __aenter__(self) -> None:
        if sniffio.current_async_library() == "asyncio":
            self._scope = anyio.CancelScope()
            self._scope.__enter__()
            self._timer = asyncio.get_running_loop().call_later(self.WATCH_AFTER, self._start_watching)
            return
        self._task_group = anyio.create_task_group()
        await self._task_group.__aenter__()
        self._scope = self._task_group.cancel_scope
        self._task_group.start_soon(self._watch)

    async def __aexit__(self, *exc_info: Any) -> bool | None:
        assert self._scope is not None
        if self._task_group is None:
            if self._timer is not None:
                self._timer.cancel()
            if self._watcher is not None:
                self._watcher.cancel()
            return self._scope.__exit__(*exc_info)
        self._scope.cancel()
        return await self._task_group.__aexit__(*exc_info)

    def _start_watching(self) -> None:
        self._timer = None
        self._watcher = asyncio.get_running_loop().create_task(self._watch())

    async def _watch(self) -> None:
        try:
            await _wait_disconnect(self._receive)
        except Exception:  # the exchange is over; nothing to cancel
            logger.debug("disconnect watcher ended", exc_info=True)
            return
        assert self._scope is not None
        self._on_disconnect(self._scope)


async def _wait_disconnect(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


async def _cancel_on_disconnect(receive: Receive, scope: anyio.CancelScope) -> None:
    await _wait_disconnect(receive)
    scope.cancel()


async def _send_body(send: Send, status: int, body: bytes, headers: list[tuple[bytes, bytes]]) -> None:
    """A whole response; with its length, so that the server need not frame it in chunks."""
    headers = [*headers, (b"content-length", b"%d" % len(body))]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _send_text(send: Send, status: int, text: str) -> None:  # pyright: ignore[reportUnusedFunction]  # mcp.server.sse
    await _send_body(send, status, text.encode(), [(b"content-type", b"text/plain; charset=utf-8")])


async def _unknown_session(send: Send, session_id: str) -> None:
    """404 for a session id this process never issued (or evicted): a JSON-RPC body with a null id
    and an INFO log line, both as officially (the troubleshooting page quotes them). A server
    restart makes these in bursts, hence INFO, not WARNING."""
    logger.info("Rejected request with unknown or expired session ID: %s", session_id[:64])
    await _send_error(send, 404, None, INVALID_REQUEST, "Session not found")


async def _foreign_session(send: Send, session_id: str) -> None:
    """404 for a session another principal opened: answered exactly as an unknown one (a session
    belongs to the credential that created it; as officially, with a WARNING saying so)."""
    logger.warning("Rejecting request for session %s: credential does not match the one that created the session",
                   session_id[:64])
    await _send_error(send, 404, None, INVALID_REQUEST, "Session not found")


def _principal_of(scope: Scope) -> Any:
    """Who an authenticated request acts for (`authorization_context` of its `AuthenticatedUser`:
    client id, issuer, subject), for comparing with who opened a session; None without a bearer
    token."""
    user = scope.get("user")
    if user is None or getattr(user, "access_token", None) is None:
        return None
    from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser, authorization_context

    return authorization_context(user) if isinstance(user, AuthenticatedUser) else None


async def _send_refusal(send: Send, status: int, text: str) -> None:
    """The DNS-rebinding refusal (421 Invalid Host header / 403 Invalid Origin header) with no
    Content-Type, as officially: the troubleshooting page tells users the body is not JSON-RPC."""
    await _send_body(send, status, text.encode(), [])


async def _send_error(send: Send, status: int, request_id: Any, code: int, message: str, data: Any = None, *,
                      headers: list[tuple[bytes, bytes]] | None = None) -> None:
    body = encode_bytes(m.error_response(request_id, code, message, data))
    await _send_body(send, status, body, _JSON_HEADERS + headers if headers else _JSON_HEADERS)


def __getattr__(name: str) -> Any:
    """`StreamableHTTPServerTransport` (one session as a stream pair) loads on first use."""
    if name == "StreamableHTTPServerTransport":
        from mcp.server.streamable_http_transport import StreamableHTTPServerTransport

        return StreamableHTTPServerTransport
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
