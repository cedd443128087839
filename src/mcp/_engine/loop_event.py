"""`LoopEvent`: a one-shot event like `anyio.Event` (`set`, `is_set`, `wait`) that loads nothing.

The engine makes a few of these per connection (the peer's `closed`, the connection's
`initialized`, the drain signal at end of input). An `anyio.Event` loads anyio's event-loop backend
the moment it is made, which is a fair share of a stdio server's cold start; this one costs a flag
until someone waits on it. On asyncio a waiter is a plain future of the running loop; on any other
loop (trio) the wait is an `anyio.Event` made at the first wait.
"""

from __future__ import annotations

from typing import Any

__all__ = ["LoopEvent"]


class LoopEvent:
    """Set once, never cleared; `wait()` returns once it is set (at once, after a checkpoint, if it
    already is, as `anyio.Event.wait` does). `set()` belongs on the event loop's thread."""

    __slots__ = ("_anyio", "_flag", "_waiters")

    def __init__(self) -> None:
        self._flag = False
        self._waiters: list[Any] | None = None
        self._anyio: Any = None

    def set(self) -> None:
        if self._flag:
            return
        self._flag = True
        waiters, self._waiters = self._waiters, None
        if waiters:
            for waiter in waiters:
                if not waiter.done():
                    waiter.set_result(None)
        if self._anyio is not None:
            self._anyio.set()

    def is_set(self) -> bool:
        return self._flag

    async def wait(self) -> None:
        import sniffio

        if sniffio.current_async_library() != "asyncio":
            if self._anyio is None:
                import anyio

                self._anyio = anyio.Event()
                if self._flag:
                    self._anyio.set()
            await self._anyio.wait()
            return
        import asyncio

        if self._flag:
            await asyncio.sleep(0)
            return
        waiter = asyncio.get_running_loop().create_future()
        if self._waiters is None:
            self._waiters = []
        self._waiters.append(waiter)
        try:
            await waiter
        finally:
            self._forget(waiter)

    def _forget(self, waiter: Any) -> None:
        """Drop a waiter that stopped waiting (cancelled) before the event was set."""
        if self._waiters is not None and waiter in self._waiters:
            self._waiters.remove(waiter)

    def statistics(self) -> Any:
        """How many tasks wait (`anyio.EventStatistics`, as `anyio.Event.statistics()`)."""
        from anyio import EventStatistics

        anyio_waiting = self._anyio.statistics().tasks_waiting if self._anyio is not None else 0
        return EventStatistics(len(self._waiters or ()) + anyio_waiting)
