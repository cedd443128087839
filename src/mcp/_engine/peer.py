"""`Peer`: one side of a JSON-RPC connection over a pair of anyio streams.

It owns what both sides share: the receive loop, one task per incoming request, the table of
outgoing requests awaiting responses, cancellation of in-flight requests by
`notifications/cancelled`, and request timeouts. What a request *means* is the owner's business:
`on_request` returns the response envelope, `on_notification` consumes notifications.
"""

from __future__ import annotations

import itertools
import logging
import math
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from typing import Any

import anyio
from anyio.abc import TaskGroup
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from mcp._engine import tap
from mcp._protocol import messages as m
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage
from mcp.types.jsonrpc import CONNECTION_CLOSED, INVALID_REQUEST, PARSE_ERROR, REQUEST_TIMEOUT

logger = logging.getLogger("mcp.engine")

RequestHandler = Callable[[dict[str, Any], Any], Awaitable[None]]
"""Serves one request and sends its response itself (it knows the revision in force)."""
NotificationHandler = Callable[[dict[str, Any], Any], Awaitable[None]]

ReadStream = MemoryObjectReceiveStream[SessionMessage | Exception]
WriteStream = MemoryObjectSendStream[SessionMessage]

current_metadata: ContextVar[Any] = ContextVar("mcp_current_request_metadata", default=None)
current_scope: ContextVar[anyio.CancelScope | None] = ContextVar("mcp_current_request_scope", default=None)
"""The cancel scope of the request being served in this task (read by `Context.cancelled`)."""
"""Transport metadata of the request being served in this task: messages sent while serving it
(progress, logs, server->client requests) follow the request back to where it came from."""


class _Pending:
    __slots__ = ("event", "method", "raised", "response")

    def __init__(self, method: str) -> None:
        self.event = anyio.Event()
        self.method = method
        self.response: dict[str, Any] | None = None
        self.raised: BaseException | None = None


class RaisedException:
    """Response metadata carrying the server-side exception behind an error response, so an
    in-memory client with `raise_exceptions=True` re-raises the original at the call site."""

    __slots__ = ("exception",)

    def __init__(self, exception: BaseException) -> None:
        self.exception = exception


class Peer:
    """Runs a connection; see the module docstring. Use `run()` inside a task group."""

    def __init__(
        self,
        read_stream: ReadStream,
        write_stream: WriteStream,
        *,
        role: tap.Role,
        on_request: RequestHandler,
        on_notification: NotificationHandler,
        drop_when_full: bool = False,
        track_ids: bool = True,
    ) -> None:
        self._read = read_stream
        self._write = write_stream
        self._role: tap.Role = role
        self._on_request = on_request
        self._on_notification = on_notification
        self._ids = itertools.count(1)
        self._pending: dict[Any, _Pending] = {}
        self._in_flight: dict[Any, anyio.CancelScope] = {}
        self._drop_when_full = drop_when_full
        self._track_ids = track_ids
        """False for a connection shared by many independent clients (stateless HTTP): their
        request ids may collide and nobody can cancel by id."""
        self._drained: anyio.Event | None = None
        self.drain_timeout = 10.0
        """At end of input, how long requests already received may take to finish."""
        self.closed = anyio.Event()
        self.protocol_version: str | None = None
        """The revision in force, for wire taps; owners update it."""

    # -- outgoing -----------------------------------------------------------------------------

    async def send(self, message: dict[str, Any], metadata: Any = None, *, answers: str | None = None,
                   version: str | None = None) -> None:
        """Put one message on the wire (after the test-time taps, when any are installed)."""
        if tap.TAPS:
            for observer in tap.TAPS:
                observer(self._role, message, version or self.protocol_version, answers)
        if metadata is None:
            metadata = current_metadata.get()
        sink = getattr(metadata, "sink", None) if metadata is not None else None
        if sink is not None and await sink(message):
            return
        try:
            try:
                # No checkpoint when the buffer has room: one event-loop pass less per message.
                self._write.send_nowait(SessionMessage(message, metadata))
            except anyio.WouldBlock:
                if self._drop_when_full:
                    raise
                await self._write.send(SessionMessage(message, metadata))
        except anyio.WouldBlock:
            logger.warning("dropping %s: the peer's stream is full", message.get("method") or "a response")
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            logger.debug("dropping a message for a closed connection: %s", message.get("method") or message.get("id"))

    async def send_notification(self, method: str, params: dict[str, Any] | None = None, metadata: Any = None) -> None:
        await self.send(m.notification(method, params), metadata)

    async def send_request(
        self, method: str, params: dict[str, Any] | None = None, *, timeout: float | None = None, metadata: Any = None,
        request_id: Any = None,
    ) -> dict[str, Any]:
        """Send a request and wait for its result; raises `MCPError` for an error response,
        on timeout and when the connection closes. A timed-out or cancelled wait tells the peer
        with `notifications/cancelled`."""
        if self.closed.is_set():
            raise MCPError(CONNECTION_CLOSED, "Connection closed")
        if request_id is None:
            request_id = next(self._ids)
        pending = _Pending(method)
        self._pending[request_id] = pending
        try:
            await self.send(m.request(request_id, method, params), metadata)
            try:
                with anyio.move_on_after(math.inf if timeout is None else timeout) as scope:
                    await pending.event.wait()
            except anyio.get_cancelled_exc_class():
                if pending.response is None and not self.closed.is_set():
                    with anyio.move_on_after(1, shield=True):
                        await self.send_notification("notifications/cancelled",
                                                     {"requestId": request_id, "reason": "cancelled"}, metadata)
                raise
            if scope.cancelled_caught:
                await self.send_notification(
                    "notifications/cancelled", {"requestId": request_id, "reason": "timed out"}, metadata
                )
                raise MCPError(REQUEST_TIMEOUT, f"Timed out after {timeout} seconds waiting for a response to {method}")
        finally:
            self._pending.pop(request_id, None)
        response = pending.response
        if response is None:
            raise MCPError(CONNECTION_CLOSED, "Connection closed")
        if pending.raised is not None:
            raise pending.raised
        if "error" in response:
            raise MCPError.from_jsonrpc_error(response["error"])
        result = response.get("result")
        return result if type(result) is dict else {}

    # -- incoming -----------------------------------------------------------------------------

    async def run(self) -> None:
        """Receive until the read stream ends; in-flight handlers are cancelled at the end."""
        try:
            async with anyio.create_task_group() as tg:
                read = self._read
                try:
                    while True:
                        try:
                            # Take what is already buffered without a checkpoint; wait otherwise.
                            item = read.receive_nowait()
                        except anyio.WouldBlock:
                            try:
                                item = await read.receive()
                            except anyio.EndOfStream:
                                break
                        except anyio.EndOfStream:
                            break
                        if isinstance(item, Exception):
                            await self._reject_unparsable(item)
                            continue
                        await self._receive(item, tg)
                    # End of input: nothing can answer our own requests any more, but requests
                    # already received still deserve their answers (bounded by drain_timeout).
                    self._close()
                    with anyio.move_on_after(self.drain_timeout):
                        while self._in_flight:
                            self._drained = anyio.Event()
                            await self._drained.wait()
                finally:
                    tg.cancel_scope.cancel()
        finally:
            self._read.close()
            self._close()

    async def handle(self, message: Any, metadata: Any = None) -> None:
        """Handle one message in the calling task (HTTP serves each POST this way): a request is
        served to completion before this returns."""
        await self._receive(SessionMessage(message, metadata), None)

    def close(self) -> None:
        """Fail every pending outgoing request (the transport is gone)."""
        self._close()

    def _close(self) -> None:
        self.closed.set()
        for pending in self._pending.values():
            pending.event.set()

    async def _reject_unparsable(self, exc: Exception) -> None:
        code = getattr(exc, "code", PARSE_ERROR)
        await self.send(m.error_response(None, code, str(exc)))

    async def _receive(self, item: SessionMessage, tg: TaskGroup | None) -> None:
        message = item.message
        try:
            kind = m.classify(message)
        except m.InvalidMessage as exc:
            await self.send(m.invalid_message_response(exc))
            return
        if kind is m.REQUEST:
            if tg is None:
                await self._serve(message, item.metadata)
            else:
                tg.start_soon(self._serve, message, item.metadata)
        elif kind is m.NOTIFICATION:
            if message["method"] == "notifications/cancelled":
                self._cancel_in_flight(message.get("params"))
            try:
                await self._on_notification(message, item.metadata)
            except Exception:
                logger.exception("notification handler failed for %s", message["method"])
        else:
            pending = self._pending.get(message.get("id"))
            if pending is None:
                logger.debug("ignoring a response to unknown request id %r", message.get("id"))
                return
            pending.response = message
            if type(item.metadata) is RaisedException:
                pending.raised = item.metadata.exception
            pending.event.set()

    def _cancel_in_flight(self, params: Any) -> None:
        if type(params) is dict:
            scope = self._in_flight.get(params.get("requestId"))  # pyright: ignore[reportUnknownMemberType]
            if scope is not None:
                scope.cancel()

    async def _serve(self, message: dict[str, Any], metadata: Any) -> None:
        request_id = message["id"]
        track = self._track_ids
        if track and request_id in self._in_flight:
            await self.send(m.error_response(request_id, INVALID_REQUEST, "Invalid Request: duplicate request id in flight"))
            return
        token = current_metadata.set(metadata)
        with anyio.CancelScope() as scope:
            scope_token = current_scope.set(scope)
            if track:
                self._in_flight[request_id] = scope
            try:
                await self._on_request(message, metadata)
            finally:
                if track and self._in_flight.get(request_id) is scope:
                    del self._in_flight[request_id]
                    if not self._in_flight and self._drained is not None:
                        self._drained.set()
                current_scope.reset(scope_token)
                current_metadata.reset(token)
