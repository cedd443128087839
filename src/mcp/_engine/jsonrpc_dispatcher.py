"""`JSONRPCDispatcher`: the `Dispatcher` protocol over a JSON-RPC stream pair.

It *is* the connection engine (`mcp._engine.peer.Peer`, which owns the receive loop, the table of
requests awaiting answers, the request ids, timeouts and `notifications/cancelled`) with the
official calling convention on top: inbound requests become `on_request(ctx, method, params)` calls
whose returned result (or raised error) is written back as the response, notifications become
`on_notify`, and `send_raw_request`/`notify` go out through the engine under its one id counter.
Pass it to `ClientSession(dispatcher=...)`, or serve a low-level server over it with
`mcp.server.runner.serve_connection`.

This is the dispatcher's home; `mcp.shared.jsonrpc_dispatcher` is its official path (and the home
of the helpers it shares with `DirectDispatcher`).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Generic, cast

import anyio
from anyio.abc import TaskStatus

from mcp._engine import tap
from mcp._engine.peer import NativeGroup, Peer, ReadStream, WriteStream
from mcp._protocol import messages as m
from mcp.shared.dispatcher import (
    CallOptions,
    Dispatcher,
    OnNotify,
    OnNotifyIntercept,
    OnRequest,
    RequestId,
    coerce_request_id,
    run_notify_intercept,
)
from mcp.shared.exceptions import MCPError, answers_itself, error_fields_for
from mcp.shared.jsonrpc_dispatcher import (
    TRANSPORT_KIND,
    PeerCancelMode,
    TransportT,
    cancelled_request_id_from_params,
    progress_token_from_params,
)
from mcp.shared.transport_context import TransportContext
from mcp.types.jsonrpc import CONNECTION_CLOSED

logger = logging.getLogger("mcp.shared.jsonrpc_dispatcher")


class _RequestContext(Generic[TransportT]):
    """The `DispatchContext` of one inbound message: what is sent on it follows that message back
    (the engine routes by the message's transport metadata)."""

    def __init__(self, dispatcher: JSONRPCDispatcher[TransportT], request_id: RequestId | None, metadata: Any,
                 params: Mapping[str, Any] | None) -> None:
        self._dispatcher = dispatcher
        self._request_id = request_id
        self._metadata = metadata
        self._progress_token = progress_token_from_params(params)
        self._transport: TransportT | None = None
        self._cancel_requested = anyio.Event()

    @property
    def request_id(self) -> RequestId | None:
        return self._request_id

    @property
    def message_metadata(self) -> Any:
        return self._metadata

    @property
    def transport(self) -> TransportT:
        if self._transport is None:
            self._transport = self._dispatcher.build_transport(self._metadata)
        return self._transport

    @property
    def cancel_requested(self) -> anyio.Event:
        return self._cancel_requested

    @property
    def can_send_request(self) -> bool:
        transport: Any = self.transport  # a `TransportContext` (the type's default and contract)
        return bool(transport.can_send_request)

    async def send_raw_request(self, method: str, params: Mapping[str, Any] | None,
                               opts: CallOptions | None = None) -> dict[str, Any]:
        return await self._dispatcher.send_on(self._metadata, method, params, opts)

    async def notify(self, method: str, params: Mapping[str, Any] | None, opts: CallOptions | None = None) -> None:
        await self._dispatcher.notify_on(self._metadata, method, params)

    async def progress(self, progress: float, total: float | None = None, message: str | None = None) -> None:
        if self._progress_token is None:
            return
        update: dict[str, Any] = {"progressToken": self._progress_token, "progress": progress}
        if total is not None:
            update["total"] = total
        if message is not None:
            update["message"] = message
        await self.notify("notifications/progress", update)


class JSONRPCDispatcher(Peer, Dispatcher[TransportT]):
    """A `Dispatcher` over `(read_stream, write_stream)` of `SessionMessage`s (see the module
    docstring): a `Peer` whose `run(on_request, on_notify)` serves inbound messages until the read
    stream ends; sending before `run()` raises `RuntimeError`, after the end
    `MCPError(CONNECTION_CLOSED)`."""

    native_group = False  # a handler's failure with raise_handler_exceptions stops the group

    def __init__(
        self,
        read_stream: ReadStream,
        write_stream: WriteStream,
        *,
        transport_builder: Callable[[Any], TransportT] | None = None,
        peer_cancel_mode: PeerCancelMode = "interrupt",
        raise_handler_exceptions: bool = False,
        inline_methods: frozenset[str] = frozenset(),
        on_stream_exception: Callable[[Exception], Awaitable[None]] | None = None,
        role: tap.Role = "client",
    ) -> None:
        self._transport_builder = transport_builder
        self._peer_cancel_mode: PeerCancelMode = peer_cancel_mode
        self._raise_handler_exceptions = raise_handler_exceptions
        self.inline_methods = inline_methods
        """Accepted for the official signature; the engine starts every request in arrival order."""
        self.on_stream_exception = on_stream_exception
        """Observer of `Exception` items on the read stream (else they are debug-logged and dropped);
        read when `run()` meets one, so it may be set after construction."""
        super().__init__(read_stream, write_stream, role=role, on_request=self._serve_request,
                         on_notification=self._serve_notification, on_unparsable=self._stream_fault)
        self._progress: dict[RequestId, Any] = {}
        self._contexts: dict[RequestId, _RequestContext[TransportT]] = {}
        """The dispatch context of each inbound request being served, by its (coerced) id."""
        self._request_handler: OnRequest | None = None
        self._notify_handler: OnNotify | None = None
        self._intercept: OnNotifyIntercept | None = None
        self._failure: BaseException | None = None
        self._running = False
        self._ended = False

    @property
    def role(self) -> tap.Role:
        """Which side of the connection this dispatcher speaks for (seen by test-time wire taps)."""
        return self._role

    @role.setter
    def role(self, value: tap.Role) -> None:
        self._role = value

    def build_transport(self, metadata: Any) -> TransportT:
        """The `TransportContext` of a message with this transport metadata (`transport_builder`'s,
        else kind `"jsonrpc"`, able to send requests unless the metadata's `can_send_request` is False)."""
        if self._transport_builder is not None:
            return self._transport_builder(metadata)
        verdict = getattr(metadata, "can_send_request", True)  # a transport may say it has no back-channel
        return cast("TransportT", TransportContext(kind=TRANSPORT_KIND, can_send_request=verdict is not False))

    # -- outbound ---------------------------------------------------------------------------

    async def send_raw_request(self, method: str, params: Mapping[str, Any] | None, opts: CallOptions | None = None,
                               *, _related_request_id: RequestId | None = None) -> dict[str, Any]:
        """Send a request and return its raw result (`MCPError` for an error answer, a timeout
        or a closed connection)."""
        return await self.send_on(self._metadata_of(_related_request_id), method, params, opts)

    async def notify(self, method: str, params: Mapping[str, Any] | None, opts: CallOptions | None = None, *,
                     _related_request_id: RequestId | None = None) -> None:
        """Send a notification (dropped, debug-logged, once the connection is gone)."""
        await self.notify_on(self._metadata_of(_related_request_id), method, params)

    def _metadata_of(self, related_request_id: RequestId | None) -> Any:
        if related_request_id is None:
            return None
        ctx = self._contexts.get(coerce_request_id(related_request_id))
        return None if ctx is None else ctx.message_metadata

    async def send_on(self, metadata: Any, method: str, params: Mapping[str, Any] | None,
                      opts: CallOptions | None) -> dict[str, Any]:
        if self._ended:
            raise MCPError(CONNECTION_CLOSED, "Connection closed")
        if not self._running:
            raise RuntimeError("JSONRPCDispatcher.send_raw_request called before run()")
        opts = opts or {}
        supplied = opts.get("request_id")
        request_id: RequestId = self.next_request_id() if supplied is None else supplied
        wire = dict(params) if params is not None else None
        on_progress = opts.get("on_progress")
        if on_progress is not None:
            wire = wire or {}
            wire["_meta"] = {**(wire.get("_meta") or {}), "progressToken": request_id}
            self._progress[request_id] = on_progress
        try:
            return await self.send_request(method, wire, timeout=opts.get("timeout"), metadata=metadata,
                                           request_id=request_id)
        finally:
            if on_progress is not None:
                self._progress.pop(request_id, None)

    async def notify_on(self, metadata: Any, method: str, params: Mapping[str, Any] | None) -> None:
        await self.send_notification(method, dict(params) if params is not None else None, metadata)

    # -- inbound ----------------------------------------------------------------------------

    async def run(self, on_request: OnRequest | None = None, on_notify: OnNotify | None = None,
                  on_notify_intercept: OnNotifyIntercept | None = None,
                  *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        """Serve inbound messages until the read stream ends (the engine's loop: `Peer.run`); in-flight
        handlers are then given the engine's drain time. With `raise_handler_exceptions`, a handler's
        exception ends the loop and is re-raised here (after its error answer was written). The
        handlers are required; they default only so that this stays a `Peer.run`."""
        if on_request is None or on_notify is None:
            raise TypeError("JSONRPCDispatcher.run() needs on_request and on_notify")
        if self._running or self._ended:
            raise RuntimeError("JSONRPCDispatcher.run() may be called only once")
        self._request_handler, self._notify_handler, self._intercept = on_request, on_notify, on_notify_intercept
        self._running = True
        try:
            task_status.started()
            await super().run()
        finally:
            self._ended = True
            self._running = False
            self.close()
        if self._failure is not None:
            raise self._failure

    async def _serve_request(self, message: dict[str, Any], metadata: Any) -> None:
        method: str = message["method"]
        params: Mapping[str, Any] | None = message.get("params")
        request_id = message["id"]
        ctx = _RequestContext(self, request_id, metadata, params)
        key = coerce_request_id(request_id)
        self._contexts[key] = ctx
        failure: BaseException | None = None
        response: dict[str, Any] = {}
        try:
            if self._peer_cancel_mode == "signal":
                with anyio.CancelScope(shield=True):  # the cancellation only sets `cancel_requested`
                    response, failure = await self._answer(ctx, method, params)
            else:
                response, failure = await self._answer(ctx, method, params)
        finally:
            if self._contexts.get(key) is ctx:
                del self._contexts[key]
        if ctx.cancel_requested.is_set() or not response:
            return  # a cancelled request is never answered
        await self.send(m.error_response(request_id, **response) if "code" in response
                              else m.result_response(request_id, response["result"]), metadata, answers=method)
        if failure is not None and self._raise_handler_exceptions:
            self._failure = failure
            group = self.task_group
            if group is not None and not isinstance(group, NativeGroup):  # never one here (`native_group`)
                group.cancel_scope.cancel()

    async def _answer(self, ctx: _RequestContext[TransportT], method: str,
                      params: Mapping[str, Any] | None) -> tuple[dict[str, Any], BaseException | None]:
        """`({"result": ...} or the error's fields, the exception behind an error)`."""
        assert self._request_handler is not None
        try:
            return {"result": await self._request_handler(ctx, method, params)}, None
        except Exception as exc:
            if not answers_itself(exc):
                logger.exception("handler for %s raised", method)
            code, message, data = error_fields_for(exc, "text")
            return {"code": code, "message": message, "data": data}, exc

    async def _serve_notification(self, message: dict[str, Any], metadata: Any) -> None:
        method: str = message["method"]
        params: Mapping[str, Any] | None = message.get("params")
        if method == "notifications/cancelled":
            request_id = cancelled_request_id_from_params(params)
            ctx = self._contexts.get(coerce_request_id(request_id)) if request_id is not None else None
            if ctx is not None:
                ctx.cancel_requested.set()
            return  # applied here (the engine cancels the handler), never surfaced
        if method == "notifications/progress" and self._progress:
            token = progress_token_from_params({"_meta": params}) if params is not None else None
            callback = self._progress.get(token) if token is not None else None
            if callback is not None:
                assert params is not None
                await callback(params.get("progress", 0), params.get("total"), params.get("message"))
                return
        if run_notify_intercept(self._intercept, method, params):
            return
        assert self._notify_handler is not None
        await self._notify_handler(_RequestContext(self, None, metadata, params), method, params)

    async def _stream_fault(self, exc: Exception) -> None:
        if self.on_stream_exception is not None:
            await self.on_stream_exception(exc)
        else:
            logger.debug("dropping a read-stream fault: %r", exc)
