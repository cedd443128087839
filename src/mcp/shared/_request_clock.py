"""The timeout of an outgoing request measures the peer, not a person: while the request's auth
flow waits on someone logging in (an OAuth `redirect_handler` / `callback_handler`), its clock
is stopped.

`Peer.send_request` runs each request's wait inside `request_clock(timeout)` and ties the clock to
the JSON-RPC message it sends (`bind`); the HTTP transport, which sends that message from a task
of its own, puts the clock in its task's context (`running`), where the OAuth provider finds it
(`waiting_on_a_person`). Other requests keep their own clocks: only the challenged request is
off the clock while the person is busy.

Private: not part of the public API.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import anyio


class RequestClock:
    """A request's timeout as a budget of seconds, spent only while the clock runs."""

    __slots__ = ("_budget", "_scope", "_stops", "_timeout")

    def __init__(self, timeout: float | None, scope: anyio.CancelScope) -> None:
        self._timeout = self._budget = math.inf if timeout is None else timeout
        self._scope = scope
        self._stops = 0
        scope.deadline = anyio.current_time() + self._budget

    @property
    def timed_out(self) -> bool:
        """Whether the budget ran out (the request's wait was cancelled by this clock)."""
        return self._scope.cancelled_caught

    def restart(self) -> None:
        """Give the request its whole timeout again, from now (the peer showed it is working on
        it); a stopped clock gets the whole budget back when it goes again."""
        if self._stops:
            self._budget = self._timeout
        else:
            self._scope.deadline = anyio.current_time() + self._timeout

    def stop(self) -> None:
        """Stop the clock (nested stops need as many `go`s)."""
        if self._stops == 0:
            self._budget = self._scope.deadline - anyio.current_time()
            self._scope.deadline = math.inf
        self._stops += 1

    def go(self) -> None:
        """Restart the clock with the budget that was left when it stopped."""
        self._stops -= 1
        if self._stops == 0:
            self._scope.deadline = anyio.current_time() + self._budget


_current: ContextVar[RequestClock | None] = ContextVar("mcp_request_clock", default=None)
_bound: dict[int, tuple[dict[str, Any], RequestClock]] = {}
"""id(message) -> (message, clock) while its request awaits an answer; the message is held, so
its id cannot be reused by another dict meanwhile."""


@contextmanager
def request_clock(timeout: float | None, message: dict[str, Any]) -> Iterator[RequestClock]:
    """The clock of `message`'s request: the block is cancelled once the request has spent
    `timeout` seconds on it; the clock is bound to `message` (see `running`) for as long as the
    block is open. Check the yielded clock's `timed_out` afterwards."""
    with anyio.CancelScope() as scope:
        clock = RequestClock(timeout, scope)
        key = id(message)
        _bound[key] = (message, clock)
        try:
            yield clock
        finally:
            _bound.pop(key, None)


@contextmanager
def running(message: dict[str, Any]) -> Iterator[None]:
    """Make the clock bound to `message` (if any) the current one in this task, for the code
    that sends it (an HTTP auth flow)."""
    entry = _bound.get(id(message))
    clock = entry[1] if entry is not None and entry[0] is message else None
    token = _current.set(clock)
    try:
        yield
    finally:
        _current.reset(token)


@contextmanager
def waiting_on_a_person() -> Iterator[None]:
    """Stop the clock of the request being sent while the block is open; a no-op outside one."""
    clock = _current.get()
    if clock is None:
        yield
        return
    clock.stop()
    try:
        yield
    finally:
        clock.go()
