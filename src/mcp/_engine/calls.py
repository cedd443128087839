"""The records of one connection's requests in flight, in both directions: the context of the
request being served (its transport metadata, its cancellation flag), how an incoming request is
cancelled (a task's cancel scope, a natively started asyncio task, an offloaded job), and an
outgoing request awaiting its response."""

from __future__ import annotations

from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, TypeVar

import anyio

if TYPE_CHECKING:
    from mcp.shared._request_clock import RequestClock

T = TypeVar("T")

_request_locals: list[tuple[ContextVar[Any], Any]] = []


def request_local(var: ContextVar[T], default: T) -> ContextVar[T]:
    """Register `var` (whose default is `default`) as describing the request being served or sent
    in this task, and return it. A request that arrives with its sender's context (in memory, see
    `mcp._engine.memory`) starts with every such variable back at its default: the sender's
    request is not the one this connection serves."""
    _request_locals.append((var, default))
    return var


def reset_request_locals() -> None:
    """Set every `request_local` variable to its default in the current context."""
    for var, default in _request_locals:
        var.set(default)


current_metadata: ContextVar[tuple[object, Any] | None] = request_local(
    ContextVar("mcp_current_request_metadata", default=None), None)
"""(the engine serving it, transport metadata) of the request being served in this task: messages
that engine sends while serving it (progress, logs, server->client requests) follow the request
back to where it came from. Keyed by the engine because the context is inherited: a client a
handler opens (a proxy's connection to its backend) runs its own engine in this context, and its
messages must go to its own transport, not down the request's response stream."""

abandon_reason: ContextVar[str] = request_local(
    ContextVar("mcp_outgoing_abandon_reason", default="caller cancelled"), "caller cancelled")
"""The `reason` of the `notifications/cancelled` sent when the caller's task stops waiting for an
outgoing request; a deadline that cancels the wait (`max_total_timeout`) sets it to say so."""


class CancellationFlag:
    """Set once the request being served was cancelled; plain data, so a worker thread may read it."""

    __slots__ = ("cancelled",)

    def __init__(self) -> None:
        self.cancelled = False


current_cancellation: ContextVar[CancellationFlag | None] = request_local(
    ContextVar("mcp_request_cancellation", default=None), None)
"""The cancellation flag of the request being served in this task (read by `Context.cancelled`)."""


class OffloadedCall:
    """An offloaded request in the in-flight table; `cancel()` stops its response and cancels the
    scope its job sees through `anyio.from_thread.check_cancelled()`."""

    __slots__ = ("cancelled", "scope")

    def __init__(self, scope: Any) -> None:
        self.cancelled = False
        self.scope = scope

    def cancel(self) -> None:
        self.cancelled = True
        if self.scope is not None:
            self.scope.cancel()


class NativeCall:
    """A request served in a natively started asyncio task, in the in-flight table: `cancel()`
    cancels the task (once it has left any anyio shield, as a cancel scope would), and, used as
    the request's scope in `_serve`, it ends that cancellation quietly. A request cancelled before
    its task first ran never runs its handler."""

    __slots__ = ("cancelled", "entered", "task")

    def __init__(self) -> None:
        self.cancelled = False
        self.entered = False
        self.task: Any = None

    def cancel(self) -> None:
        if not self.cancelled:
            self.cancelled = True
            self._deliver()

    def _deliver(self) -> None:
        task = self.task
        if task is None or not self.entered or task.done():
            return  # not started yet: `__enter__` sees the flag
        from mcp._engine.native import shielded

        if shielded(task):
            task.get_loop().call_later(SHIELD_RETRY, self._deliver)
            return
        task.cancel()

    def __enter__(self) -> None:
        if self.cancelled:
            import asyncio

            raise asyncio.CancelledError
        self.entered = True

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: Any) -> bool:
        if exc is None or not self.cancelled:
            return False
        import asyncio

        if not isinstance(exc, asyncio.CancelledError):
            return False
        uncancel = getattr(self.task, "uncancel", None)  # 3.11+: the task is no longer cancelling
        if uncancel is not None:
            uncancel()
        return True


SHIELD_RETRY = 0.01
"""Seconds between attempts to cancel a request task that is inside an anyio shield."""


class PendingRequest:
    """An outgoing request awaiting its response (or the connection's end)."""

    __slots__ = ("clock", "event", "method", "raised", "response")

    def __init__(self, method: str) -> None:
        self.event = anyio.Event()
        self.method = method
        self.response: dict[str, Any] | None = None
        self.raised: BaseException | None = None
        self.clock: RequestClock | None = None
        """The request's timeout clock while it waits (its owner may restart or stop it)."""


class RaisedException:
    """Response metadata carrying the server-side exception behind an error response, so an
    in-memory client with `raise_exceptions=True` re-raises the original at the call site."""

    __slots__ = ("exception",)

    def __init__(self, exception: BaseException) -> None:
        self.exception = exception
