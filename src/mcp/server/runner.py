"""`ServerRunner`: a low-level `Server` served over any `Dispatcher`.

The server's engine is `ServerSession` (handshake, both protocol eras, middleware, result
shaping, cancellation); this module only adapts it to the `Dispatcher` calling convention. Each
`on_request(ctx, method, params)` is handed to the session as one message whose transport
metadata carries a *sink*: the session's answer comes back through it as the returned result (or
raised `MCPError`), and whatever the handler sends while serving it (progress, logs, sampling or
elicitation requests) goes out on that request's dispatch context. Messages not tied to a request
go out on the `Connection`'s own channel. `serve_loop` is the stream-pair form, what
`Server.run()` does.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, Generic, cast

import anyio
from anyio.abc import TaskStatus

from mcp._engine.calls import RaisedException
from mcp._engine.outgoing import PeerOutgoing
from mcp._engine.seam import RoutedMetadata, WireWriter
from mcp._protocol import messages as m
from mcp.server.connection import Connection, aclose_shielded
from mcp.server.context import CallNext, ServerMiddleware
from mcp.server.lowlevel.server import LifespanT
from mcp.server.session import ServerSession
from mcp.shared.dispatcher import (
    CallOptions,
    DispatchContext,
    Dispatcher,
    OnNotify,
    OnRequest,
    as_request_id,
    coerce_request_id,
)
from mcp.shared.exceptions import MCPError, error_fields_for, error_from_wire
from mcp.shared.message import SessionMessage

if TYPE_CHECKING:
    from mcp._engine.peer import ReadStream, WriteStream
    from mcp.server.lowlevel.server import Server
    from mcp.server.models import InitializationOptions

REQUEST_CANCELLED = -32800
"""What a request cancelled by `notifications/cancelled` fails with at an in-process caller still
awaiting it (as `mcp.server.streamable_http.REQUEST_CANCELLED`; a wire dispatcher sends nothing)."""

__all__ = ["CallNext", "ServerMiddleware", "ServerRunner", "aclose_shielded", "modern_on_request",
           "serve_connection", "serve_dual_era_loop", "serve_loop", "serve_one"]


class _DispatchMetadata(RoutedMetadata):
    """Transport metadata of one message handed to the session: the session's sends while serving
    it land in `sink` (the answer is kept, the rest goes out on the dispatch context)."""

    __slots__ = ("answer", "dispatch_context", "request_id", "runner")

    protocol_version = None
    request = None

    def __init__(self, runner: ServerRunner[Any], dctx: DispatchContext[Any], request_id: Any) -> None:
        self.runner = runner
        self.dispatch_context = dctx
        self.request_id = request_id
        self.answer: dict[str, Any] | None = None

    @property
    def headers(self) -> Mapping[str, str] | None:
        return getattr(self.dispatch_context.transport, "headers", None)

    @property
    def can_send_request(self) -> bool:
        return self.dispatch_context.can_send_request

    @property
    def sink(self) -> Callable[[dict[str, Any]], Awaitable[bool]]:
        return self._route

    async def _route(self, message: dict[str, Any]) -> bool:
        if "method" not in message:
            if message.get("id") == self.request_id:
                self.answer = message
                return True
            return False  # not ours: the connection's channel
        if "id" in message and not self.runner.session.peer.awaits(message["id"]):
            return False  # the channel's own request (sent from a handler), seeing this as current
        await self.runner.forward(self.dispatch_context, message)
        return True


class _ConnectionWriter(WireWriter):
    """The session's write stream: messages not tied to a request, sent on the connection's channel."""

    def __init__(self, runner: ServerRunner[Any]) -> None:
        self._runner = runner

    def send_wire_nowait(self, item: SessionMessage) -> None:
        raise anyio.WouldBlock  # always take the awaiting path

    async def send_wire(self, item: SessionMessage) -> None:
        message: dict[str, Any] = item.message
        if "method" in message:
            await self._runner.forward(self._runner.connection, message)

    def close(self) -> None:
        return None

    async def aclose(self) -> None:
        return None


@dataclass
class ServerRunner(Generic[LifespanT]):
    """Serves one connection of `server` for a dispatcher: hand `on_request` and `on_notify` to
    `Dispatcher.run` (as `serve_connection` does). The connection's handshake state lives in the
    runner's session, whose connection is `connection`: `initialize` settles it there. `stateless`: every request
    stands alone (no handshake needed)."""

    server: Server[LifespanT]
    connection: Connection
    lifespan_state: LifespanT
    init_options: InitializationOptions | None = field(default=None, kw_only=True)
    stateless: bool = field(default=False, kw_only=True)

    def __post_init__(self) -> None:
        closed_send, closed_read = anyio.create_memory_object_stream[SessionMessage | Exception](0)
        closed_send.close()
        closed_read.close()  # never read: every message is handed to the session directly
        self.session = ServerSession(server=self.server, read_stream=closed_read,
                                     write_stream=cast("WriteStream", _ConnectionWriter(self)),
                                     lifespan_context=self.lifespan_state, stateless=self.stateless,
                                     connection=self.connection)
        self._in_flight: dict[Any, anyio.CancelScope] = {}
        outbound = self.connection.outbound
        self._one_id_sequence = isinstance(outbound, PeerOutgoing)
        """The connection's channel is an engine (a `JSONRPCDispatcher`): the session mints its
        requests' ids from the connection's counter and they go out under those ids."""
        if isinstance(outbound, PeerOutgoing):
            self.session.peer.share_request_ids(outbound)
        """The scope of each request being served, by the dispatcher's id for it."""

    @cached_property
    def on_request(self) -> OnRequest:
        """The dispatcher's request handler: the server's result for `(method, params)`."""

        async def on_request(dctx: DispatchContext[Any], method: str, params: Mapping[str, Any] | None) -> dict[str, Any]:
            # The request keeps the dispatcher's id (what the handler sees as `ctx.request_id`, as
            # officially); one without (a dispatcher that names none) gets the session's next.
            theirs = dctx.request_id
            request_id = theirs if theirs is not None else self.session.peer.next_request_id()
            metadata = _DispatchMetadata(self, dctx, request_id)
            message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
            if params is not None:
                message["params"] = dict(params)
            if theirs is not None:
                theirs = coerce_request_id(theirs)
            with anyio.CancelScope() as scope:
                if theirs is not None:
                    self._in_flight[theirs] = scope
                try:
                    await self.session.peer.handle(message, metadata)
                finally:
                    if theirs is not None and self._in_flight.get(theirs) is scope:
                        del self._in_flight[theirs]
            answer = metadata.answer
            if answer is None:  # cancelled by the peer's notifications/cancelled: the session said nothing
                raise MCPError(REQUEST_CANCELLED, "Request cancelled")
            error = answer.get("error")
            if error is not None:
                raise error_from_wire(error)
            return cast("dict[str, Any]", answer.get("result") or {})

        return on_request

    @cached_property
    def on_notify(self) -> OnNotify:
        """The dispatcher's notification handler."""

        async def on_notify(dctx: DispatchContext[Any], method: str, params: Mapping[str, Any] | None) -> None:
            message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
            if params is not None:
                message["params"] = dict(params)
            if method == "notifications/cancelled":
                # Applied here: the request it names (by the dispatcher's id) stops, unanswered.
                theirs = as_request_id((params or {}).get("requestId"))
                scope = self._in_flight.get(coerce_request_id(theirs)) if theirs is not None else None
                if scope is not None:
                    scope.cancel()
                return
            await self.session.peer.handle(message, _DispatchMetadata(self, dctx, None))

        return on_notify

    async def forward(self, channel: Any, message: dict[str, Any]) -> None:
        """Send a message of the session's on `channel` (a dispatch context or the connection); the
        answer to a request is handed back to the session, which awaits it."""
        method: str = message["method"]
        params: dict[str, Any] | None = message.get("params")
        request_id = message.get("id")
        # The channel's engine does not take the session's metadata (this request's sink) for its
        # own (`current_metadata` names the engine serving the request): no loop back here.
        try:
            if request_id is None:
                await channel.notify(method, params)
                return
            opts: CallOptions | None = {"request_id": request_id} if self._one_id_sequence else None
            result = await channel.send_raw_request(method, params, opts)
        except MCPError as exc:
            response = m.error_response(request_id, *error_fields_for(exc))
            await self.session.peer.handle(response, RaisedException(exc))  # the caller sees `exc` itself
            return
        await self.session.peer.handle({"jsonrpc": "2.0", "id": request_id, "result": result})


async def serve_connection(server: Server[LifespanT], dispatcher: Dispatcher[Any], *, connection: Connection,
                           lifespan_state: LifespanT, init_options: InitializationOptions | None = None,
                           task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
    """Serve `server` on `dispatcher` until its `run()` ends, then tear the connection down."""
    from mcp._engine.jsonrpc_dispatcher import JSONRPCDispatcher

    if isinstance(dispatcher, JSONRPCDispatcher):
        dispatcher.role = "server"
    runner = ServerRunner(server, connection, lifespan_state, init_options=init_options)
    try:
        await dispatcher.run(runner.on_request, runner.on_notify, task_status=task_status)
    finally:
        await aclose_shielded(connection)


async def serve_one(server: Server[LifespanT], dctx: DispatchContext[Any], method: str,
                    params: Mapping[str, Any] | None, *, connection: Connection, lifespan_state: LifespanT) -> dict[str, Any]:
    """Serve one self-contained request (no handshake: a 2026-07-28 request, or a stateless one)."""
    runner = ServerRunner(server, connection, lifespan_state, stateless=True)
    try:
        return await runner.on_request(dctx, method, params)
    finally:
        await aclose_shielded(connection)


def modern_on_request(server: Server[LifespanT], lifespan_state: LifespanT) -> OnRequest:
    """An `on_request` serving every request on its own (2026-07-28 requests carry their envelope)."""

    async def on_request(dctx: DispatchContext[Any], method: str, params: Mapping[str, Any] | None) -> dict[str, Any]:
        connection = Connection.for_loop(dctx)
        return await serve_one(server, dctx, method, params, connection=connection, lifespan_state=lifespan_state)

    return on_request


async def serve_loop(server: Server[LifespanT], read_stream: ReadStream, write_stream: WriteStream, *,
                     lifespan_state: LifespanT, session_id: str | None = None,
                     init_options: InitializationOptions | None = None, raise_exceptions: bool = False) -> None:
    """Serve one stream-pair connection until the read stream ends (what `Server.run()` does)."""
    await server.serve_connection(read_stream, write_stream, lifespan_state, raise_exceptions=raise_exceptions)


async def serve_dual_era_loop(server: Server[LifespanT], read_stream: ReadStream, write_stream: WriteStream, *,
                              lifespan_state: LifespanT, session_id: str | None = None,
                              init_options: InitializationOptions | None = None, raise_exceptions: bool = False) -> None:
    """`serve_loop`: one stream-pair connection already serves both protocol eras (handshake-era
    and 2026-07-28 requests)."""
    await serve_loop(server, read_stream, write_stream, lifespan_state=lifespan_state, session_id=session_id,
                     init_options=init_options, raise_exceptions=raise_exceptions)
