"""`StreamableHTTPServerTransport`: one Streamable HTTP session as a stream pair.

The documented shape: the host enters `connect()`, runs the server on the streams it yields
(`server.run(read_stream, write_stream, ...)`), and routes each HTTP request of the session to
`handle_request(scope, receive, send)`. The HTTP side is `StreamableHTTPSessionManager`'s own
(header checks, JSON-or-SSE responses, the GET stream, resumption with an event store), holding
one session; instead of serving each message itself it hands it to the server loop on the read
stream. Every inbound request carries its POST's response channel as transport metadata, so the
connection engine routes its answer, and whatever the handler sends meanwhile, back to that POST;
messages not tied to a request come out of the write stream and ride the session's GET stream.
"""

from __future__ import annotations

import logging
import math
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any, cast

import anyio
from anyio.abc import TaskGroup

from mcp._engine.seam import WireReceiveStream, WireSendStream
from mcp.server._http.asgi import Receive, Scope, Send, send_error
from mcp.server._http.channel import ResponseChannel
from mcp.server._http.request_path import StreamableHTTPSessionManager
from mcp.server._http.resumption import STANDALONE_STREAM_SUFFIX, StoringOutbox
from mcp.server._http.sessions import SESSION_ID_PATTERN, HttpSession, SessionTable
from mcp.server.connection import NO_CHANNEL, Connection
from mcp.server.event_store import EventStore, forget_session
from mcp.shared.message import SessionMessage
from mcp.types.jsonrpc import INVALID_REQUEST
from mcp.types.version import LATEST_HANDSHAKE_VERSION

if TYPE_CHECKING:
    from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

    from mcp.server.session import ServerSession
    from mcp.server.transport_security import TransportSecuritySettings

__all__ = ["StreamableHTTPServerTransport"]

logger = logging.getLogger("mcp.server.http")

OUTBOX_SIZE = 256
"""Standalone messages queued for the GET stream; beyond it (no client reading) they are dropped."""


class _LoopBridge:
    """Stands where the manager's per-session `ServerSession` stands: `peer.handle(message,
    metadata)` hands the message to the server loop and, for a request, waits until its POST
    has been answered (or the request was cancelled, or the session ended)."""

    def __init__(self, writer: MemoryObjectSendStream[SessionMessage | Exception]) -> None:
        self.peer = self
        self._writer = writer
        self.connection = Connection(NO_CHANNEL, protocol_version=LATEST_HANDSHAKE_VERSION)
        """Stands for the connection the request path closes after a session-less request: the
        real one is the server loop's, on the transport's streams."""
        self.negotiated_version = ""
        """Never None: a failed `initialize` does not end a transport's one session."""
        self.channels: dict[Any, ResponseChannel] = {}
        """POSTs awaiting their answer, by request id."""
        self._unanswered: dict[Any, anyio.Event] = {}
        self.ended = anyio.Event()

    async def handle(self, message: dict[str, Any], metadata: Any) -> None:
        channel: ResponseChannel | None = getattr(metadata, "channel", None)
        if channel is None or "method" not in message or "id" not in message:
            await self._send(SessionMessage(message, metadata))
            if message.get("method") == "notifications/cancelled":
                params: Any = message.get("params")
                request_id = cast("dict[str, Any]", params).get("requestId") if type(params) is dict else None
                cancelled = self._unanswered.get(request_id)
                if cancelled is not None:
                    cancelled.set()  # the engine answers nothing now: stop waiting for it
            return
        request_id = message["id"]
        stop = anyio.Event()
        self.channels[request_id] = channel
        self._unanswered[request_id] = stop
        try:
            await self._send(SessionMessage(message, metadata))
            async with anyio.create_task_group() as tg:
                async def wait_for(event: Any) -> None:
                    await event.wait()
                    tg.cancel_scope.cancel()

                tg.start_soon(wait_for, stop)
                tg.start_soon(wait_for, self.ended)
                await channel.finished.wait()
                tg.cancel_scope.cancel()
        except anyio.get_cancelled_exc_class():
            # The client went away: tell the server loop, as a client would.
            with anyio.CancelScope(shield=True):
                await self._send(SessionMessage({"jsonrpc": "2.0", "method": "notifications/cancelled",
                                                 "params": {"requestId": request_id, "reason": "disconnected"}}))
            raise
        finally:
            self.channels.pop(request_id, None)
            self._unanswered.pop(request_id, None)

    async def _send(self, item: SessionMessage) -> None:
        try:
            await self._writer.send(item)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            logger.debug("dropping a message for an ended session")

    def close(self) -> None:
        self.ended.set()
        self._writer.close()


class _SessionOfOne(StreamableHTTPSessionManager):
    """The manager's HTTP handling for exactly one session whose server runs elsewhere (on the
    transport's streams): no lifespan of its own, no eviction, the session id fixed by the host."""

    def __init__(self, transport: StreamableHTTPServerTransport, bridge: _LoopBridge,
                 outbox: MemoryObjectReceiveStream[SessionMessage], *, event_store: EventStore | None,
                 security_settings: TransportSecuritySettings | None, retry_interval: int | None) -> None:
        super().__init__(cast("Any", None), event_store=event_store, json_response=transport.is_json_response_enabled,
                         stateless=transport.mcp_session_id is None, security_settings=security_settings,
                         retry_interval=retry_interval, session_idle_timeout=None)
        self.bridge = bridge
        self.outbox = outbox
        self._sessions = _TableOfOne(transport, self)
        self.session: HttpSession | None = None
        if transport.mcp_session_id is not None:
            self.session = HttpSession(transport.mcp_session_id, cast("ServerSession", bridge), outbox)
            self._sessions.add(self.session)

    def end_session(self, session: HttpSession) -> None:
        """End the transport's session (`StreamableHTTPServerTransport.terminate`)."""
        self._sessions.terminate(session)

    async def _ensure_lifespan(self) -> Any:
        return None  # the host runs the server, and its lifespan, on the transport's streams

    def _stateless_session(self, lifespan_context: Any) -> ServerSession:
        return cast("ServerSession", self.bridge)

    async def _new_session(self, client: Any = None, principal: Any = None) -> HttpSession | None:
        return self.session


class _TableOfOne(SessionTable):
    """The session table of `_SessionOfOne`: its one session, never evicted, open to whoever the
    host lets through; ending it ends the transport."""

    __slots__ = ("manager", "transport")

    def __init__(self, transport: StreamableHTTPServerTransport, manager: _SessionOfOne) -> None:
        super().__init__(manager.sessions_per_client, max_sessions=None, idle_timeout=None,
                         event_store=manager.event_store)
        self.transport = transport
        self.manager = manager

    def is_foreign(self, session: HttpSession, scope: Scope) -> bool:
        return False  # whoever the host lets through: binding sessions to principals is the manager's (as officially)

    def sweep(self) -> None:
        return None  # idleness is the transport's `idle_timeout`

    async def end(self, session: HttpSession, *, ended: bool = True) -> None:
        self.terminate(session, ended=ended)

    def terminate(self, session: HttpSession, *, ended: bool = True) -> None:
        self.discard(session)
        forget_session(self.event_store, session.id)
        self.transport._terminated = True  # pyright: ignore[reportPrivateUsage]
        session.close_get_stream()
        self.manager.outbox.close()
        self.manager.bridge.close()


class StreamableHTTPServerTransport:
    """One Streamable HTTP session (see the module docstring).

    `mcp_session_id` names the session (visible ASCII only; None: no session header, no GET
    stream); `is_json_response_enabled` answers each POST with one JSON body (no request-scoped
    back-channel); `event_store` makes POST streams resumable; `retry_interval` (ms) is the SSE
    retry hint; `idle_timeout` (seconds) arms `idle_scope` once `connect()` is entered, cancelled
    when no request has been in flight for that long (the host puts its message loop inside it).
    """

    def __init__(self, mcp_session_id: str | None, is_json_response_enabled: bool = False,
                 event_store: EventStore | None = None, security_settings: TransportSecuritySettings | None = None,
                 retry_interval: int | None = None, idle_timeout: float | None = None) -> None:
        if mcp_session_id is not None and not SESSION_ID_PATTERN.fullmatch(mcp_session_id):
            raise ValueError("Session ID must only contain visible ASCII characters (0x21-0x7E)")
        if idle_timeout is not None and not (math.isfinite(idle_timeout) and idle_timeout > 0):
            raise ValueError("idle_timeout must be a positive, finite number of seconds")
        self.mcp_session_id = mcp_session_id
        self.is_json_response_enabled = is_json_response_enabled
        self._event_store = event_store
        self._security_settings = security_settings
        self._retry_interval = retry_interval
        self._idle_timeout = idle_timeout
        self._terminated = False
        self._in_flight = 0
        self._manager: _SessionOfOne | None = None
        self._tg: TaskGroup | None = None
        self.idle_scope: anyio.CancelScope | None = None
        """Made by `connect()` when `idle_timeout` is set; cancelled once the session has had no
        request in flight for `idle_timeout` seconds."""

    @property
    def is_terminated(self) -> bool:
        """Whether the session was terminated (DELETE or `terminate()`): requests then get 404."""
        return self._terminated

    @asynccontextmanager
    async def connect(self) -> AsyncIterator[tuple[Any, Any]]:
        """Yield `(read_stream, write_stream)` for the server loop of this session."""
        if self._idle_timeout is not None:
            self.idle_scope = anyio.CancelScope()
        read_send, read_recv = anyio.create_memory_object_stream[SessionMessage | Exception](0)
        write_send, write_recv = anyio.create_memory_object_stream[SessionMessage](0)
        outbox_send, outbox_recv = anyio.create_memory_object_stream[SessionMessage](OUTBOX_SIZE)
        bridge = _LoopBridge(read_send)
        self._manager = _SessionOfOne(self, bridge, outbox_recv, event_store=self._event_store,
                                      security_settings=self._security_settings, retry_interval=self._retry_interval)
        try:
            async with anyio.create_task_group() as tg:
                self._tg = tg
                store = self._event_store
                outbox: Any = outbox_send
                if store is not None and self.mcp_session_id is not None:
                    outbox = StoringOutbox(outbox_send, store, self.mcp_session_id + STANDALONE_STREAM_SUFFIX)
                tg.start_soon(_route_standalone, write_recv, outbox)
                try:
                    yield WireReceiveStream(read_recv), WireSendStream(write_send)
                finally:
                    tg.cancel_scope.cancel()
        finally:
            self._tg = None
            bridge.close()
            for stream in (read_recv, write_send, write_recv, outbox_send, outbox_recv):
                stream.close()

    async def handle_request(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve one ASGI HTTP request of this session (inside `connect()`)."""
        if self.idle_scope is not None and self._idle_timeout is not None:
            if self.idle_scope.cancel_called:
                if not self._terminated:
                    await self.terminate()  # the host is ending the session: answer as terminated
            else:
                self._in_flight += 1
                self.idle_scope.deadline = math.inf
                try:
                    await self._handle(scope, receive, send)
                finally:
                    self._in_flight -= 1
                    if not self._in_flight:
                        self.idle_scope.deadline = anyio.current_time() + self._idle_timeout
                return
        await self._handle(scope, receive, send)

    async def _handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        manager = self._manager
        if self._terminated or manager is None:
            if scope.get("type") == "http":
                reason = "Session has been terminated" if self._terminated else "the transport is not connected"
                await send_error(send, 404, None, INVALID_REQUEST, f"Not Found: {reason}")
            return
        await manager(scope, receive, send)

    async def terminate(self) -> None:
        """End the session: its streams close (the server loop ends) and later requests get 404."""
        self._terminated = True
        manager = self._manager
        if manager is None:
            return
        if manager.session is not None:
            manager.end_session(manager.session)
        else:
            manager.bridge.close()
            manager.outbox.close()

    def close_sse_stream(self, request_id: Any) -> None:
        """End the SSE response of request `request_id` now (SSE polling): with an event store the
        client resumes with `Last-Event-ID`; without one, or for no such request, a no-op."""
        manager = self._manager
        channel = manager.bridge.channels.get(request_id) if manager is not None else None
        if channel is not None and self._tg is not None:
            self._tg.start_soon(channel.close_stream)

    def close_standalone_sse_stream(self) -> None:
        """End the session's GET stream; the client reopens it (messages meanwhile are queued)."""
        manager = self._manager
        if manager is not None and manager.session is not None:
            manager.session.close_get_stream()


async def _route_standalone(write_recv: MemoryObjectReceiveStream[SessionMessage],
                            outbox: MemoryObjectSendStream[SessionMessage] | StoringOutbox) -> None:
    """Move what the server writes outside any request to the GET stream's queue, dropping (with
    a warning) what no client reads, so that the server never blocks on an absent GET stream
    (with an event store, each is stored on the way)."""
    async for item in write_recv:
        try:
            if isinstance(outbox, StoringOutbox):
                await outbox.send_wire(item)
                continue
            outbox.send_nowait(item)
        except anyio.WouldBlock:
            logger.warning("dropping %s: no client is reading the session's GET stream",
                           cast("dict[str, Any]", item.message).get("method") or "a message")
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            return
    outbox.close()
