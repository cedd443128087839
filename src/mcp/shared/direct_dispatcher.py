"""`DirectDispatcher`: two in-process peers joined without a transport.

A request sent on one side awaits the other side's `on_request` in the caller's own task: no
JSON-RPC framing, no streams, no serialization. Cancelling the caller cancels the handler, a
timeout bounds both. It is how a server is embedded in process (`ClientSession(dispatcher=client)`
with `mcp.server.runner.serve_connection(server, server_side, ...)`), and a small substrate for
testing the layers above a dispatcher. Like the wire path, a handler's exception reaches the
caller as `MCPError`.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Mapping
from typing import Any

import anyio
from anyio.abc import TaskStatus

from mcp.shared.dispatcher import (
    CallOptions,
    OnNotify,
    OnNotifyIntercept,
    OnRequest,
    ProgressFnT,
    RequestId,
    coerce_request_id,
    run_notify_intercept,
)
from mcp.shared.exceptions import MCPError, NoBackChannelError, answers_itself, error_fields_for
from mcp.shared.transport_context import TransportContext
from mcp.types.jsonrpc import CONNECTION_CLOSED, REQUEST_TIMEOUT

__all__ = ["DirectDispatcher", "create_direct_dispatcher_pair"]

logger = logging.getLogger("mcp.shared.direct_dispatcher")

DIRECT_TRANSPORT_KIND = "direct"


class _DirectContext:
    """The `DispatchContext` of one inbound message: its back-channel reaches the side that sent
    it; `progress` goes straight to the sender's `on_progress`."""

    def __init__(self, origin: DirectDispatcher, transport: TransportContext, request_id: RequestId | None,
                 on_progress: ProgressFnT | None = None) -> None:
        self._origin = origin
        self._transport = transport
        self._request_id = request_id
        self._on_progress = on_progress
        self._cancel_requested = anyio.Event()

    @property
    def request_id(self) -> RequestId | None:
        return self._request_id

    @property
    def message_metadata(self) -> Any:
        return None

    @property
    def transport(self) -> TransportContext:
        return self._transport

    @property
    def cancel_requested(self) -> anyio.Event:
        """Never set by the peer: cancelling the caller cancels the handler itself."""
        return self._cancel_requested

    @property
    def can_send_request(self) -> bool:
        return self._transport.can_send_request

    async def send_raw_request(self, method: str, params: Mapping[str, Any] | None,
                               opts: CallOptions | None = None) -> dict[str, Any]:
        if not self.can_send_request:
            raise NoBackChannelError(method)
        return await self._origin.dispatch_request(method, params, opts)

    async def notify(self, method: str, params: Mapping[str, Any] | None, opts: CallOptions | None = None) -> None:
        await self._origin.dispatch_notify(method, params)

    async def progress(self, progress: float, total: float | None = None, message: str | None = None) -> None:
        if self._on_progress is None:
            return
        try:
            await self._on_progress(progress, total, message)
        except Exception:
            logger.exception("progress callback raised")


class DirectDispatcher:
    """A `Dispatcher` calling its peer's handlers directly (pair two with
    `create_direct_dispatcher_pair`). `run()` marks this side ready and parks until `close()`;
    sending before `run()` raises `RuntimeError`, after the end `MCPError(CONNECTION_CLOSED)`.
    A request to a peer whose `run()` has not started yet waits for it (within its timeout)."""

    def __init__(self, transport_ctx: TransportContext, *, raise_handler_exceptions: bool = True) -> None:
        self._transport = transport_ctx
        self._raise_handler_exceptions = raise_handler_exceptions
        self._peer: DirectDispatcher | None = None
        self._on_request: OnRequest | None = None
        self._on_notify: OnNotify | None = None
        self._intercept: OnNotifyIntercept | None = None
        self._ready = anyio.Event()
        self._closed_event = anyio.Event()
        self._running = False
        self._closed = False
        self._ids = itertools.count(1)
        self._in_flight: set[RequestId] = set()

    def connect_to(self, peer: DirectDispatcher) -> None:
        """Send this side's requests and notifications to `peer`."""
        self._peer = peer

    async def send_raw_request(self, method: str, params: Mapping[str, Any] | None,
                               opts: CallOptions | None = None) -> dict[str, Any]:
        """Await the peer's `on_request` for this request and return its result."""
        if self._peer is None:
            raise RuntimeError("DirectDispatcher has no peer; use create_direct_dispatcher_pair()")
        if self._closed:
            raise MCPError(CONNECTION_CLOSED, "Connection closed")
        if not self._running:
            raise RuntimeError("DirectDispatcher.send_raw_request called before run()")
        return await self._peer.dispatch_request(method, params, opts, origin=self)

    async def notify(self, method: str, params: Mapping[str, Any] | None, opts: CallOptions | None = None) -> None:
        """Hand a notification to the peer's `on_notify` (dropped once either side closed)."""
        if self._peer is None:
            raise RuntimeError("DirectDispatcher has no peer; use create_direct_dispatcher_pair()")
        if self._closed:
            logger.debug("dropped notification %r: this DirectDispatcher is closed", method)
            return
        await self._peer.dispatch_notify(method, params)

    async def run(self, on_request: OnRequest, on_notify: OnNotify, on_notify_intercept: OnNotifyIntercept | None = None,
                  *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        """Serve the peer's messages until `close()` (once only)."""
        if self._closed:
            raise RuntimeError("DirectDispatcher.run() may be called only once")
        self._on_request, self._on_notify, self._intercept = on_request, on_notify, on_notify_intercept
        self._running = True
        self._ready.set()
        task_status.started()
        try:
            await self._closed_event.wait()
        finally:
            self._running = False
            self._closed = True
            self._closed_event.set()  # wakes senders waiting for this side to be ready

    def close(self) -> None:
        """End `run()`; later sends fail with `CONNECTION_CLOSED`."""
        self._closed = True
        self._closed_event.set()

    async def _wait_ready(self) -> None:
        if not self._ready.is_set():
            async with anyio.create_task_group() as tg:
                async def wake_on_close() -> None:
                    await self._closed_event.wait()
                    tg.cancel_scope.cancel()

                tg.start_soon(wake_on_close)
                await self._ready.wait()
                tg.cancel_scope.cancel()
        if self._closed:
            raise MCPError(CONNECTION_CLOSED, "Connection closed")

    async def dispatch_request(self, method: str, params: Mapping[str, Any] | None, opts: CallOptions | None,
                               *, origin: DirectDispatcher | None = None) -> dict[str, Any]:
        """Serve one request from the peer (`origin`, whose side a back-channel reaches)."""
        opts = opts or {}
        timeout = opts.get("timeout")
        supplied = opts.get("request_id")
        if supplied is not None:
            request_id: RequestId = supplied
            if coerce_request_id(supplied) in self._in_flight:
                raise ValueError(f"request id {supplied!r} is already in flight")
        else:
            request_id = next(self._ids)
            while request_id in self._in_flight:
                request_id = next(self._ids)
        key = coerce_request_id(request_id)
        back = origin if origin is not None else self._peer
        assert back is not None
        ctx = _DirectContext(back, self._transport, request_id, opts.get("on_progress"))
        self._in_flight.add(key)
        try:
            with anyio.fail_after(timeout):
                await self._wait_ready()
                assert self._on_request is not None
                return await self._on_request(ctx, method, params)
        except TimeoutError:
            raise MCPError(REQUEST_TIMEOUT, f"Timed out after {timeout}s waiting for {method!r}") from None  # official text
        except MCPError:
            raise
        except Exception as exc:
            if answers_itself(exc) or self._raise_handler_exceptions:
                raise MCPError(*error_fields_for(exc, "internal_text")) from exc
            logger.exception("handler for %s raised", method)
            raise MCPError(*error_fields_for(exc, "opaque")) from None
        finally:
            self._in_flight.discard(key)

    async def dispatch_notify(self, method: str, params: Mapping[str, Any] | None) -> None:
        """Serve one notification from the peer (dropped when this side has closed)."""
        try:
            await self._wait_ready()
        except MCPError:
            logger.debug("dropped notification %r: the DirectDispatcher is closed", method)
            return
        if run_notify_intercept(self._intercept, method, params):
            return
        assert self._on_notify is not None and self._peer is not None
        await self._on_notify(_DirectContext(self._peer, self._transport, None), method, params)


def create_direct_dispatcher_pair(*, can_send_request: bool = True, headers: Mapping[str, str] | None = None,
                                  raise_handler_exceptions: bool = True) -> tuple[DirectDispatcher, DirectDispatcher]:
    """`(client, server)`: two dispatchers wired to each other, sharing one `TransportContext`
    (`kind="direct"`, with `can_send_request` and `headers` as given). With
    `raise_handler_exceptions` (the default) an unmapped handler exception reaches the caller as
    `MCPError` chained to the original; without, as an opaque `INTERNAL_ERROR` as on the wire."""
    transport = TransportContext(kind=DIRECT_TRANSPORT_KIND, can_send_request=can_send_request, headers=headers)
    client = DirectDispatcher(transport, raise_handler_exceptions=raise_handler_exceptions)
    server = DirectDispatcher(transport, raise_handler_exceptions=raise_handler_exceptions)
    client.connect_to(server)
    server.connect_to(client)
    return client, server
