"""The sending half of `Peer`: messages put on the wire (through the test-time taps and a request's
own sink), and requests sent with their answers awaited under the request clock, bounded, timed
out and cancelled with `notifications/cancelled` as the spec asks."""

from __future__ import annotations

import itertools
import logging
from typing import Any, cast

import anyio

from mcp._engine import tap
from mcp._engine.calls import PendingRequest, abandon_reason, current_metadata
from mcp._engine.loop_event import LoopEvent
from mcp._engine.seam import RoutedMetadata, WireWriter
from mcp._protocol import messages as m
from mcp._telemetry import enabled
from mcp.shared._request_clock import request_clock
from mcp.shared.exceptions import MCPError, error_from_wire
from mcp.shared.message import ClientMessageMetadata, SessionMessage
from mcp.types.jsonrpc import CONNECTION_CLOSED, INTERNAL_ERROR, REQUEST_TIMEOUT

logger = logging.getLogger("mcp.engine")


class PeerOutgoing:
    """What `Peer` sends (its state is set up by `Peer.__init__`)."""

    _write: WireWriter
    _role: tap.Role
    _drop_when_full: bool
    _ids: itertools.count[int]
    _pending: dict[Any, PendingRequest]
    closed: LoopEvent
    protocol_version: str | None
    max_pending_requests: int

    async def send(self, message: dict[str, Any], metadata: Any = None, *, answers: str | None = None,
                   version: str | None = None) -> None:
        """Put one message on the wire (after the test-time taps, when any are installed)."""
        if tap.TAPS:
            for observer in tap.TAPS:
                observer(self._role, message, version or self.protocol_version, answers)
        if metadata is None:
            serving = current_metadata.get()
            if serving is not None and serving[0] is self:  # another engine's request is not ours to follow
                metadata = serving[1]
        if isinstance(metadata, RoutedMetadata):
            sink = metadata.sink
            if sink is not None and await sink(message):
                return
        try:
            try:
                # No checkpoint when the buffer has room: one event-loop pass less per message.
                self._write.send_wire_nowait(SessionMessage(message, metadata))
            except anyio.WouldBlock:
                if self._drop_when_full:
                    raise
                await self._write.send_wire(SessionMessage(message, metadata))
        except anyio.WouldBlock:
            logger.warning("dropping %s: the peer's stream is full", message.get("method") or "a response")
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            logger.debug("dropping a message for a closed connection: %s", message.get("method") or message.get("id"))

    async def send_notification(self, method: str, params: dict[str, Any] | None = None, metadata: Any = None) -> None:
        await self.send(m.notification(method, params), metadata)

    def share_request_ids(self, other: PeerOutgoing) -> None:
        """Mint request ids from `other`'s counter from now on: an engine speaking for the same
        connection (a server runner's session over a `JSONRPCDispatcher`) sends under the
        connection's one id sequence, so the ids it names (progress tokens) are the wire's."""
        self._ids = other._ids

    def awaits(self, request_id: Any) -> bool:
        """Whether this engine sent the request `request_id` and awaits its answer (it may still be
        on its way out)."""
        return request_id in self._pending

    def next_request_id(self) -> int:
        """Reserve the id of a request about to be sent (`send_request(request_id=...)`): what a
        progress token names, as officially (the request's own id)."""
        return next(self._ids)

    async def send_request(
        self, method: str, params: dict[str, Any] | None = None, *, timeout: float | None = None, metadata: Any = None,
        request_id: Any = None,
    ) -> dict[str, Any]:
        """Send a request and wait for its result; raises `MCPError` for an error response,
        on timeout and when the connection closes. A timed-out or cancelled wait tells the peer
        with `notifications/cancelled`."""
        if enabled():  # an OpenTelemetry SDK is installed: a CLIENT span, trace context in `_meta`
            from mcp._telemetry.runtime import send

            if request_id is None:
                request_id = next(self._ids)
            return await send(self._send_request, method, params, request_id, timeout=timeout, metadata=metadata)
        return await self._send_request(method, params, timeout=timeout, metadata=metadata, request_id=request_id)

    async def _send_request(
        self, method: str, params: dict[str, Any] | None = None, *, timeout: float | None = None, metadata: Any = None,
        request_id: Any = None,
    ) -> dict[str, Any]:
        if self.closed.is_set():
            raise MCPError(CONNECTION_CLOSED, "Connection closed")
        if len(self._pending) >= self.max_pending_requests:
            raise MCPError(INTERNAL_ERROR, f"Too many pending requests: at most {self.max_pending_requests} may "
                                           "await answers at once")
        if request_id is None:
            request_id = next(self._ids)
        elif request_id in self._pending:
            raise ValueError(f"request id {request_id!r} is already awaiting a response")
        pending = PendingRequest(method)
        self._pending[request_id] = pending
        request = m.request(request_id, method, params)
        try:
            await self.send(request, metadata)
            try:
                # the clock stops while the request's auth flow waits on a person (an OAuth login)
                with request_clock(timeout, request) as clock:
                    pending.clock = clock
                    await pending.event.wait()
            except anyio.get_cancelled_exc_class():
                if (pending.response is None and not self.closed.is_set() and method != "initialize"
                        and not _resumable(metadata)):
                    with anyio.move_on_after(1, shield=True):
                        await self.send_notification("notifications/cancelled",
                                                     {"requestId": request_id, "reason": abandon_reason.get()}, metadata)
                raise
            if clock.timed_out:
                if method == "initialize" or _resumable(metadata):  # the spec forbids cancelling the handshake
                    raise MCPError(REQUEST_TIMEOUT, f"Request '{method}' timed out")
                await self.send_notification(
                    "notifications/cancelled", {"requestId": request_id, "reason": f"timed out after {timeout}s"}, metadata
                )
                raise MCPError(REQUEST_TIMEOUT, f"Request '{method}' timed out")
        finally:
            self._pending.pop(request_id, None)
        response = pending.response
        if response is None:
            raise MCPError(CONNECTION_CLOSED, "Connection closed")
        if pending.raised is not None:
            raise pending.raised
        if "error" in response:
            raise error_from_wire(response["error"])
        result: Any = response.get("result")
        return cast("dict[str, Any]", result) if type(result) is dict else {}


def _resumable(metadata: Any) -> bool:
    """Whether a request carries Streamable HTTP resumption hints (`ClientMessageMetadata`'s token
    or token callback): abandoning it sends no courtesy `notifications/cancelled`, as officially,
    so the server keeps working and the stream can be resumed later."""
    return isinstance(metadata, ClientMessageMetadata) and (
        metadata.resumption_token is not None or metadata.on_resumption_token_update is not None)
