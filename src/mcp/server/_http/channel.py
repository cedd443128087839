"""What one POST's messages ride: its `ResponseChannel` (one JSON body, or an SSE stream that an
event store makes resumable), and the transport metadata a request carries to its handlers
(`HttpRequestMetadata`: headers, version header, the channel, the session's GET stream)."""

from __future__ import annotations

import logging
import secrets
from collections import deque
from collections.abc import Awaitable, Callable
from contextlib import suppress
from typing import TYPE_CHECKING, Any, Final

import anyio

from mcp._engine.seam import RoutedMetadata
from mcp._protocol import http as h
from mcp._protocol import messages as m
from mcp._protocol.codec import encode_bytes
from mcp._protocol.sse import encode_event
from mcp.server._http.asgi import GONE, JSON_HEADERS, SSE_HEADERS, Scope, Send, send_body
from mcp.server._http.shared_sessions import StoreUnavailable
from mcp.server.event_store import EventId, EventStore, message_for_store

if TYPE_CHECKING:
    from mcp.server._http.sessions import HttpSession

logger = logging.getLogger("mcp.server.http")

REQUEST_CANCELLED: Final = -32800
"""The error a cancelled 2025-era request's stream ends with (LSP's `RequestCancelled`)."""


class HttpRequestMetadata(RoutedMetadata):
    """Transport metadata of one POST: its headers, version header and response channel."""

    __slots__ = ("_request", "channel", "http_session", "protocol_version", "scope")

    def __init__(self, scope: Scope, protocol_version: str | None, channel: ResponseChannel | None,
                 http_session: HttpSession | None = None) -> None:
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


class ListingMetadata(HttpRequestMetadata):
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
        self.finished = Flag()
        """Set once the final response has been produced (sent or stored)."""
        self._lock = SendLock()
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
                        await send_body(self._send, status, data, JSON_HEADERS + self._headers(message))
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
            except GONE:  # the client is gone (servers that raise instead of dropping the write)
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
                          "headers": SSE_HEADERS + self._headers(first)})
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

    async def reattach(self, send: Send, catch_up: Callable[[], Awaitable[bool]], *, priming: bool) -> bool:
        """Continue this stream on a resumed connection (`send`, whose response has started).
        Under the send lock, so that no live event slips in between: `catch_up()` sends what was
        stored since the client's last event and says whether that ended the stream; unless it did
        (or the final response is out), a fresh priming event (`priming`: clients that understand
        one) and the live stream follow on `send`. True when attached."""
        async with self._lock:
            if await catch_up() or self.finished.is_set():
                return False
            if priming:
                event_id = await self._store(None)
                await send({"type": "http.response.body", "more_body": True,
                            "body": encode_event("", event=None, event_id=event_id, retry=self.retry_interval)})
            self._send = send
            self.closed = False
            return True

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
            except GONE:
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
                    await send_body(self._send, 500, body, JSON_HEADERS + self.extra_headers)
            except GONE:
                pass  # the client is gone


class Flag:
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


class SendLock:
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
