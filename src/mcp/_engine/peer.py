"""`Peer`: one side of a JSON-RPC connection over a pair of anyio streams.

It owns what both sides share: the receive loop, one task per incoming request, the table of
outgoing requests awaiting responses, cancellation of in-flight requests by
`notifications/cancelled`, and request timeouts. What a request *means* is the owner's business:
`on_request` returns the response envelope, `on_notification` consumes notifications.

Hardening: no message a peer can send takes the connection down. Malformed envelopes are answered
with -32600, ids that are not strings or integers never reach a table, a failing handler still
answers its request (-32603), and both directions are bounded: at most `max_concurrent_requests`
incoming requests are served at once (beyond that a request is answered at once with -32603 "Too
many concurrent requests", without starting a task), and at most `max_pending_requests` outgoing
requests may await answers (beyond that `send_request` raises `MCPError`).

Offloading: when the owner can turn a request into one synchronous job (`offload`, e.g. a tools/call
of a plain sync function) and the write stream can be written from any thread (`write_threadsafe`,
the asyncio stdio transport), the job runs on a worker thread that also writes the response. No task,
no cancel scope, no hop back to the loop: the thread hop a sync handler needs anyway is the only
one. Completed jobs are settled on the loop lazily (`_settle`), before the next request is admitted.

The sending half lives in `mcp._engine.outgoing` (`PeerOutgoing`), the in-flight records and the
served request's context variables in `mcp._engine.calls`.
"""

from __future__ import annotations

import collections
import contextvars
import itertools
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, ClassVar, Final, cast

import anyio
import sniffio

from mcp._engine import tap, workers
from mcp._engine.calls import CancellationFlag as CancellationFlag
from mcp._engine.calls import NativeCall, OffloadedCall, PendingRequest, reset_request_locals
from mcp._engine.calls import RaisedException as RaisedException
from mcp._engine.calls import current_cancellation as current_cancellation
from mcp._engine.calls import current_metadata as current_metadata
from mcp._engine.loop_event import LoopEvent
from mcp._engine.outgoing import PeerOutgoing
from mcp._engine.seam import WireReader, WireWriter, wire_reader, wire_writer
from mcp._protocol import messages as m
from mcp.shared import _stream_protocols
from mcp.shared._request_clock import RequestClock
from mcp.shared.message import SessionMessage
from mcp.types.jsonrpc import INTERNAL_ERROR, INVALID_REQUEST, PARSE_ERROR

if TYPE_CHECKING:
    from anyio.abc import TaskGroup

logger = logging.getLogger("mcp.engine")

RequestHandler = Callable[[dict[str, Any], Any], Awaitable[None]]
"""Serves one request and sends its response itself (it knows the revision in force)."""
NotificationHandler = Callable[[dict[str, Any], Any], Awaitable[None]]
Offload = Callable[[dict[str, Any]], "Callable[[], dict[str, Any]] | None"]
"""Given a request: a synchronous job returning its whole response, or None to serve it as usual."""

ReadStream = _stream_protocols.ReadStream[SessionMessage | Exception] | WireReader
"""What a session reads: any official read stream; ours are read on their wire face (`seam`)."""
WriteStream = _stream_protocols.WriteStream[SessionMessage] | WireWriter

DEFAULT_MAX_CONCURRENT_REQUESTS: Final = 1024
"""Incoming requests one connection may have in flight at once (each holds a task and its
handler's memory); a well-behaved client is far below it. Beyond it requests are refused."""
DEFAULT_MAX_PENDING_REQUESTS: Final = 1024
"""Outgoing requests that may await answers at once (a peer that never answers cannot make the
table grow without bound)."""
TOO_MANY_REQUESTS_MESSAGE: Final = "Too many concurrent requests"

_ID_TYPES = (str, int)


class Peer(PeerOutgoing):
    """Runs a connection; see the module docstring. Use `run()` inside a task group."""

    native_group: ClassVar[bool] = True
    """Whether a server on asyncio serves without an anyio task group (see `run`). Off for owners
    that stop the whole group on a failure (its cancel scope)."""

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
        max_concurrent_requests: int = DEFAULT_MAX_CONCURRENT_REQUESTS,
        max_pending_requests: int = DEFAULT_MAX_PENDING_REQUESTS,
        offload: Offload | None = None,
        on_unparsable: Callable[[Exception], Awaitable[None]] | None = None,
    ) -> None:
        if max_concurrent_requests < 1 or max_pending_requests < 1:
            raise ValueError("max_concurrent_requests and max_pending_requests must be at least 1")
        self._read = wire_reader(read_stream)
        self._write = wire_writer(write_stream)
        self._role: tap.Role = role
        self._on_request = on_request
        self._on_notification = on_notification
        self._ids = itertools.count(1)
        self._pending: dict[Any, PendingRequest] = {}
        self._in_flight: dict[Any, anyio.CancelScope | OffloadedCall | NativeCall] = {}
        write_threadsafe = self._write.threadsafe_writer()
        self._offload = offload if write_threadsafe is not None else None
        self._on_unparsable = on_unparsable
        """Given a read-stream fault (undecodable input, a dropped stream), instead of answering it
        with a parse error: a client has no request to answer, it tells its user."""
        self._write_threadsafe: Callable[[dict[str, Any]], None] | None = write_threadsafe
        self._offloaded = 0
        """Offloaded requests submitted and not yet settled (part of `_active`)."""
        self._completed: collections.deque[tuple[Any, OffloadedCall]] = collections.deque()
        """Offloaded requests finished by their worker, appended there, settled on the loop."""
        self._run_context: contextvars.Context | None = None
        """The context a request starts in (a copy of it): `run()`'s, or on a connection whose
        messages carry their sender's context (in memory) that of the message just received."""
        self._tg: TaskGroup | NativeGroup | None = None
        self._start_native: Callable[..., Any] = _not_on_asyncio
        self._loop: Any = None
        """The asyncio event loop running `run()` (offloaded jobs are AnyIO worker threads of it)."""
        self._native: dict[NativeCall, Any] | None = None
        """On asyncio: each request task started natively (`native.start_task`, eagerly and
        cheaper than a task group's), by its in-flight entry; stopped like the group's at the end.
        No anyio call is made to start one, so this also works from a read callback outside
        `anyio.run` (where anyio cannot tell which event loop runs)."""
        self._drop_when_full = drop_when_full
        self._track_ids = track_ids
        """False for a connection shared by many independent clients (stateless HTTP): their
        request ids may collide and nobody can cancel by id."""
        self.max_concurrent_requests = max_concurrent_requests
        self.max_pending_requests = max_pending_requests
        self._active = 0
        """Incoming requests admitted and not finished (tracked by id or not)."""
        self._drained: LoopEvent | None = None
        self.drain_timeout = 10.0
        """At end of input, how long requests already received may take to finish."""
        self.closed = LoopEvent()
        self.protocol_version: str | None = None
        """The revision in force, for wire taps; owners update it."""

    # -- incoming -----------------------------------------------------------------------------

    async def run(self) -> None:
        """Receive until the read stream ends; in-flight handlers are cancelled at the end."""
        self._run_context = contextvars.copy_context()
        read = self._read
        direct = self._offload is not None and read.set_direct_consumer(self._offer)
        processed: Callable[[], None] | None = read.processed if direct else None
        carried = read.set_context_consumer(self._adopt_sender_context)
        try:
            if self.native_group and self._role == "server" and sniffio.current_async_library() == "asyncio":
                # A server on asyncio needs no anyio task group: its request tasks are native, and
                # so is what it spawns (`task_group.start_soon`: notification handlers, which answer
                # their own failures); all of them are stopped together at the end. Serving stdio
                # then never loads anyio's backend unless a handler uses anyio.
                await self._serve_native(read, processed)
            else:
                async with anyio.create_task_group() as tg:
                    self._tg = tg
                    if sniffio.current_async_library() == "asyncio":
                        self._go_native()
                    try:
                        await self._receive_all(read, processed, tg)
                    finally:
                        tg.cancel_scope.cancel()
                        await self._stop_native_tasks()
        finally:
            if direct:
                read.set_direct_consumer(None)
            if carried:
                read.set_context_consumer(None)
            self._tg = None
            self._native = None
            self._read.close()
            self._close()
            self._in_flight.clear()  # a task cancelled before its first step never unregisters

    def _adopt_sender_context(self, context: contextvars.Context) -> None:
        """The next message comes with its sender's context (in memory): a request it makes is
        served in it, as officially, less the sender's own request-local variables."""
        context.run(reset_request_locals)
        self._run_context = context

    def _go_native(self) -> None:
        from mcp._engine.native import asyncio_loop, start_task

        self._native = {}
        self._start_native = start_task
        self._loop = asyncio_loop()

    async def _serve_native(self, read: WireReader, processed: Callable[[], None] | None) -> None:
        self._go_native()
        group = self._tg = NativeGroup(self)
        try:
            await self._receive_all(read, processed, group)
        except BaseException as exc:
            if isinstance(exc, _cancelled()):
                raise
            # Raised as the task group this stands in for raised it (wrapped), for whoever awaits run().
            raise _ExceptionGroup("unhandled errors in a TaskGroup", [exc]) from None
        finally:
            await self._stop_native_tasks()

    async def _receive_all(self, read: WireReader, processed: Callable[[], None] | None,
                           tg: TaskGroup | NativeGroup) -> None:
        """The receive loop of `run()`, then the drain at end of input."""
        receive_nowait, receive = read.receive_wire_nowait, read.receive_wire
        wait_for_room, congested = self._write.wait_for_room, self._write.congested
        while True:
            try:
                # Take what is already buffered without a checkpoint; wait otherwise.
                item = receive_nowait()
            except anyio.WouldBlock:
                try:
                    item = await receive()
                except anyio.EndOfStream:
                    break
            except anyio.EndOfStream:
                break
            if isinstance(item, Exception):
                await self._reject_unparsable(item)
            else:
                if congested():
                    # The peer is not reading our output: start nothing more until it does.
                    await wait_for_room()
                await self._receive(item, tg)
            if processed is not None:
                processed()
        # End of input: nothing can answer our own requests any more, but requests already
        # received still deserve their answers (bounded by drain_timeout).
        self._close()
        with anyio.move_on_after(self.drain_timeout):
            while True:
                self._settle()
                if not self._active:
                    break
                if self._offloaded:  # workers do not wake the loop: poll
                    await anyio.sleep(0.002)
                    continue
                self._drained = LoopEvent()
                await self._drained.wait()

    async def handle(self, message: Any, metadata: Any = None) -> None:
        """Handle one message in the calling task (HTTP serves each POST this way): a request is
        served to completion before this returns."""
        await self._receive(SessionMessage(message, metadata), None)

    def close(self) -> None:
        """Fail every pending outgoing request (the transport is gone)."""
        self._close()

    def cancel_all(self) -> None:
        """Cancel every request being served (its owner ended the connection: an HTTP session
        terminated or evicted)."""
        for call in list(self._in_flight.values()):
            call.cancel()

    def clock(self, request_id: Any) -> RequestClock | None:
        """The clock of the outgoing request `request_id` while it awaits its answer: its owner may
        restart it (the peer showed it is working on it) or stop it (the wait is on us)."""
        pending = self._pending.get(request_id)
        return pending.clock if pending is not None else None

    def fail_pending(self, request_id: Any, code: int, message: str) -> bool:
        """Answer the outgoing request `request_id` with this error, as if the peer had sent it
        (an answer its owner could not parse but could tell the id of). False when no such request
        awaits an answer."""
        pending = self._pending.get(request_id) if type(request_id) in _ID_TYPES else None
        if pending is None or pending.event.is_set():
            return False
        pending.response = m.error_response(request_id, code, message)
        pending.event.set()
        return True

    def close_output(self) -> None:
        """Close the write stream: nothing more will be sent (idempotent). A client session does
        this when it ends, as the official one does, so the other end sees the end of input."""
        self._write.close()

    def _close(self) -> None:
        self.closed.set()
        for pending in self._pending.values():
            pending.event.set()

    @property
    def task_group(self) -> TaskGroup | NativeGroup | None:
        """The group `run()` serves the connection in, while it runs."""
        return self._tg

    async def _reject_unparsable(self, exc: Exception) -> None:
        if self._on_unparsable is not None:
            await self._on_unparsable(exc)
            return
        code = getattr(exc, "code", PARSE_ERROR)
        await self.send(m.error_response(None, code, str(exc)))

    async def _receive(self, item: SessionMessage, tg: TaskGroup | NativeGroup | None) -> None:
        message = item.message
        try:
            kind = m.classify(message)
        except m.InvalidMessage as exc:
            await self.send(m.invalid_message_response(exc), item.metadata)
            return
        if kind is m.REQUEST:
            # Admission is decided here, synchronously, before any task starts: the count and the
            # id table are exact, and a refused request costs no task.
            if self._completed:
                self._settle()
            request_id = message["id"]
            if self._active >= self.max_concurrent_requests:
                await self.send(m.error_response(request_id, INTERNAL_ERROR, TOO_MANY_REQUESTS_MESSAGE,
                                                 {"limit": self.max_concurrent_requests}), item.metadata)
                return
            if self._track_ids and request_id in self._in_flight:
                await self.send(m.error_response(request_id, INVALID_REQUEST,
                                                 "Invalid Request: duplicate request id in flight"), item.metadata)
                return
            if tg is not None:
                self._start(message, item.metadata, tg)
                return
            scope = anyio.CancelScope()
            if self._track_ids:
                self._in_flight[request_id] = scope
            self._active += 1
            await self._serve(message, item.metadata, scope)
        elif kind is m.NOTIFICATION:
            if message["method"] == "notifications/cancelled":
                self._cancel_in_flight(message.get("params"))
            try:
                await self._on_notification(message, item.metadata)
            except Exception:
                logger.exception("notification handler failed for %s", message["method"])
        else:
            pending = self._pending.get(message.get("id"))
            if pending is None or pending.event.is_set():
                logger.debug("ignoring a response to unknown (or already answered) request id %r", message.get("id"))
                return
            pending.response = message
            if type(item.metadata) is RaisedException:
                pending.raised = item.metadata.exception
            pending.event.set()

    def _cancel_in_flight(self, params: Any) -> None:
        if not isinstance(params, dict):
            return
        request_id: Any = cast("dict[str, Any]", params).get("requestId")
        if type(request_id) not in _ID_TYPES:  # bool, null, arrays and objects name no request
            return
        scope = self._in_flight.get(request_id)
        if scope is not None:
            scope.cancel()

    async def _serve(self, message: dict[str, Any], metadata: Any, scope: anyio.CancelScope | NativeCall) -> None:
        """Serve one admitted request inside its cancel scope (which `notifications/cancelled`
        may have cancelled already: then the handler never runs and nothing is answered)."""
        request_id = message["id"]
        token = current_metadata.set((self, metadata))
        flag = CancellationFlag()
        scope_token = current_cancellation.set(flag)
        try:
            with scope:
                try:
                    await self._on_request(message, metadata)
                except anyio.get_cancelled_exc_class():
                    flag.cancelled = True
                    raise
                except Exception:
                    # The owner normally answers every failure itself; this is the last line, so
                    # that a bug there still answers the request and never ends the connection.
                    logger.exception("request handler failed for %r", message.get("method"))
                    await self._answer_internal_error(request_id, metadata)
        finally:
            if self._native is not None and type(scope) is NativeCall:
                self._native.pop(scope, None)
            self._active -= 1
            if self._track_ids and self._in_flight.get(request_id) is scope:
                del self._in_flight[request_id]
            if not self._active and self._drained is not None:
                self._drained.set()
            current_cancellation.reset(scope_token)
            current_metadata.reset(token)

    def _start(self, message: dict[str, Any], metadata: Any, tg: TaskGroup | NativeGroup) -> None:
        """Start serving an admitted request: offloaded to a worker, or in a task of its own."""
        if self._offload is not None and metadata is None and self._try_offload(message):
            return
        native = self._native
        context = self._run_context
        assert context is not None
        if native is None:
            assert not isinstance(tg, NativeGroup)  # a native group comes with native tasks
            scope = anyio.CancelScope()
            if self._track_ids:
                self._in_flight[message["id"]] = scope
            self._active += 1
            context.run(tg.start_soon, self._serve, message, metadata, scope)
            return
        call = NativeCall()
        if self._track_ids:
            self._in_flight[message["id"]] = call
        self._active += 1
        # In a copy of the connection's context (lifespan variables), even from a read callback;
        # started eagerly: a handler that never waits is done before this returns.
        task = self._start_native(self._serve(message, metadata, call), context.copy())
        if not task.done():
            call.task = task
            native[call] = task  # `_serve` removes it when done

    async def _stop_native_tasks(self) -> None:
        """Cancel the natively started request tasks (shields hold) and wait for them."""
        native = self._native
        if not native:
            return
        import asyncio

        for scope in native:
            scope.cancel()
        with anyio.CancelScope(shield=True):
            await asyncio.wait(list(native.values()), timeout=self.drain_timeout)

    def _offer(self, item: SessionMessage | Exception) -> bool:
        """From the transport's read callback: start a request at once when it is admissible (id
        not in flight, under the limit), saving the inbox's loop pass; anything else (refusals,
        notifications, responses, garbage) goes through the inbox as usual."""
        if type(item) is not SessionMessage or item.metadata is not None:
            return False
        message: dict[str, Any] = item.message
        if type(message) is not dict or "id" not in message:
            return False
        try:
            if m.classify(message) is not m.REQUEST:
                return False
        except m.InvalidMessage:
            return False
        if self._completed:
            self._settle()
        tg = self._tg
        if tg is None or self._active >= self.max_concurrent_requests or (
                self._track_ids and message["id"] in self._in_flight):
            return False
        self._start(message, None, tg)
        return True

    def _try_offload(self, message: dict[str, Any]) -> bool:
        """Submit an admitted request to a worker when the owner can make it one job."""
        assert self._offload is not None
        try:
            job = self._offload(message)
        except Exception:  # a planner's bug must not cost the request: serve it the usual way
            logger.exception("planning %r failed", message.get("method"))
            return False
        if job is None:
            return False
        request_id = message["id"]
        call = OffloadedCall(workers.worker_scope())
        if self._track_ids:
            self._in_flight[request_id] = call
        self._active += 1
        self._offloaded += 1
        workers.submit(self._run_offloaded, request_id, message["method"], call, job)
        return True

    def _run_offloaded(self, request_id: Any, method: str, call: OffloadedCall,
                       job: Callable[[], dict[str, Any]]) -> None:
        """On a worker thread: run an offloaded request and write its response (unless cancelled).
        The request counts as finished before its response is written, so a client may reuse its
        id as soon as it has the answer."""
        workers.enter_job(self._loop, call.scope)
        try:
            context = self._run_context
            response = context.copy().run(job) if context is not None else job()
        except BaseException:  # the job answers its own failures; this is the last line
            if not call.cancelled:  # else: stopped by its cancellation (anyio.from_thread.check_cancelled)
                logger.exception("offloaded request %r failed", method)
            response = m.error_response(request_id, INTERNAL_ERROR, "Internal error")
        finally:
            workers.leave_job(call.scope)
        self._completed.append((request_id, call))
        if call.cancelled:
            return
        if tap.TAPS:
            for observer in tap.TAPS:
                observer(self._role, response, self.protocol_version, method)
        write = self._write_threadsafe
        assert write is not None
        workers.finishing()
        try:
            write(response)
        except Exception:
            logger.debug("dropping the response to %r: the connection is gone", request_id)

    def _settle(self) -> None:
        """Account for offloaded requests their workers have finished (on the loop)."""
        done = self._completed
        while done:
            request_id, call = done.popleft()
            self._active -= 1
            self._offloaded -= 1
            if self._track_ids and self._in_flight.get(request_id) is call:
                del self._in_flight[request_id]
        if not self._active and self._drained is not None:
            self._drained.set()

    async def _answer_internal_error(self, request_id: Any, metadata: Any) -> None:
        try:
            await self.send(m.error_response(request_id, INTERNAL_ERROR, "Internal error"), metadata)
        except Exception:
            logger.exception("could not answer request %r", request_id)


def _cancelled() -> type[BaseException]:
    import asyncio

    return asyncio.CancelledError


try:
    _ExceptionGroup: Any = BaseExceptionGroup  # type: ignore[name-defined]
except NameError:  # pragma: no cover - Python 3.10
    from exceptiongroup import BaseExceptionGroup as _ExceptionGroup  # type: ignore[no-redef]  # pyright: ignore


class NativeGroup:
    """What a server's peer on asyncio offers as its `task_group`: `start_soon` starts a native
    task (scheduled, in a copy of the caller's context, as an anyio group's would be), kept with the
    request tasks and stopped with them when `run()` ends (shields hold). Nothing of anyio is
    loaded for it."""

    __slots__ = ("_peer",)

    def __init__(self, peer: Peer) -> None:
        self._peer = peer

    def start_soon(self, func: Callable[..., Awaitable[Any]], *args: Any, name: object = None) -> None:
        native = self._peer._native  # pyright: ignore[reportPrivateUsage]
        if native is None:
            raise RuntimeError("the connection is not running")
        call = NativeCall()
        task = self._peer._loop.create_task(_spawned(native, call, func, args))  # pyright: ignore[reportPrivateUsage]
        if not task.done():
            call.task = task
            native[call] = task


async def _spawned(native: dict[NativeCall, Any], call: NativeCall, func: Callable[..., Awaitable[Any]],
                   args: tuple[Any, ...]) -> None:
    try:
        with call:
            await func(*args)
    finally:
        native.pop(call, None)


def _not_on_asyncio(*args: Any) -> Any:
    raise RuntimeError("native request tasks exist only while the peer runs on asyncio")
