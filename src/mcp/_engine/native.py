"""Request tasks started natively on asyncio (not in an anyio task group): started eagerly, and
cancelled the way anyio would cancel them.

Eager start: a request task whose handler never waits completes inside the call that starts it,
without ever being scheduled.

A request usually arrives in the pipe's read callback. A plain `create_task` there costs one more
pass of the event loop (a poll of the selector, the task's first step) before the handler even
starts, which is a fair share of a short request's whole cost. An eager task runs its first step at
once, as a real task: `asyncio.current_task()` is the task, so anyio cancel scopes, timeouts and
contextvars behave as in any task, and a handler that does wait simply continues as a scheduled
task from its first suspension.

Python 3.12+ has this built in (`Task(..., eager_start=True)`). Python 3.10 and 3.11 do not; there
the pure-Python `Task` (which asyncio keeps alongside the C one) is started by hand, which is only
possible when no other task is running, i.e. from a callback. Elsewhere, and whenever the machinery
is missing, a task is created the ordinary way.

Cancellation: such a task is cancelled with `task.cancel()` instead of through an anyio cancel
scope entered around every request (entering and leaving one costs a per-task registration in
anyio). What a scope would guarantee still holds: while the task is inside an anyio scope with
`shield=True`, the cancellation waits until it has left it (`shielded`).
"""

from __future__ import annotations

import asyncio
import contextvars
import sys
from collections.abc import Callable, Coroutine
from typing import Any

__all__ = ["asyncio_loop", "run", "shielded", "start_task"]


def run(main: Callable[[], Coroutine[Any, Any, Any]], *, use_uvloop: bool) -> Any:
    """`main()` to completion on a new event loop (uvloop's if asked), as `anyio.run(main,
    backend="asyncio")` runs it (asyncio's `Runner`: Ctrl-C cancels `main`, leftover tasks are
    cancelled, async generators and the default executor shut down), without loading anyio, whose
    primitives still work inside (anyio adopts tasks it did not start). Python 3.10 has no
    `Runner`: there it is `anyio.run`."""
    if sys.version_info < (3, 11):
        import anyio

        return anyio.run(main, backend="asyncio", backend_options={"use_uvloop": use_uvloop})
    factory: Callable[[], asyncio.AbstractEventLoop] | None = None
    if use_uvloop:
        import uvloop  # pyright: ignore[reportMissingImports]

        factory = uvloop.new_event_loop  # pyright: ignore[reportUnknownMemberType]

    async def named() -> Any:
        task = asyncio.current_task()
        if task is not None:  # named as anyio names its root task
            task.set_name(f"{main.__module__}.{main.__qualname__}")
        return await main()

    with asyncio.Runner(loop_factory=factory) as runner:
        return runner.run(named())


def asyncio_loop() -> asyncio.AbstractEventLoop:
    """The running asyncio event loop (for modules that must not import asyncio themselves)."""
    return asyncio.get_running_loop()


_Start = Callable[[Coroutine[Any, Any, Any], asyncio.AbstractEventLoop, contextvars.Context], "asyncio.Task[Any]"]


def _by_hand() -> _Start | None:
    """The pure-Python task class with an eager constructor (3.10/3.11), or None if the
    interpreter's asyncio does not look as expected."""
    tasks: Any = asyncio.tasks
    base: Any = getattr(tasks, "_PyTask", None)
    future: Any = getattr(asyncio.futures, "_PyFuture", None)
    register: Any = getattr(tasks, "_register_task", None)
    if base is None or future is None or register is None:
        return None
    if not callable(getattr(base, "_Task__step", None)):
        return None

    class EagerTask(base):  # type: ignore[misc,valid-type]
        """A pure-Python Task whose first step runs in its constructor (no task may be running)."""

        def __init__(self, coro: Coroutine[Any, Any, Any], loop: asyncio.AbstractEventLoop,
                     context: contextvars.Context) -> None:
            # What Task.__init__ sets up, minus the call_soon of the first step.
            future.__init__(self, loop=loop)
            self._name = f"mcp-request-{id(self):x}"
            self._num_cancels_requested = 0  # 3.11's cancel()/uncancel() bookkeeping
            self._must_cancel = False
            self._fut_waiter = None
            self._coro = coro
            self._context = context
            register(self)
            context.run(self._Task__step)

    return EagerTask


_EAGER_START = sys.version_info >= (3, 12)
_EagerTask = None if _EAGER_START else _by_hand()


def start_task(coro: Coroutine[Any, Any, Any], context: contextvars.Context) -> asyncio.Task[Any]:
    """Start `coro` as a task of the running loop in `context` (used as is: pass a copy). Called
    where no task is running (a read callback), its first step runs now and the returned task may
    already be done; inside a task it is scheduled as usual, on every Python version alike (a
    request never overtakes the messages its reader task is still handling)."""
    loop = asyncio.get_running_loop()
    if asyncio.current_task(loop) is None:
        if _EAGER_START:
            return asyncio.Task(coro, loop=loop, context=context, eager_start=True)  # type: ignore[call-arg]
        if _EagerTask is not None:
            return _EagerTask(coro, loop, context)
    return context.run(loop.create_task, coro)


def _anyio_task_states() -> Any:
    """anyio's asyncio backend's table of each task's innermost cancel scope, or None while the
    backend is not loaded (then no task can be inside an anyio cancel scope). Looked up, never
    imported: a stdio server that uses no anyio feature never loads it."""
    backend = sys.modules.get("anyio._backends._asyncio")
    return getattr(backend, "_task_states", None) if backend is not None else None


def shielded(task: asyncio.Task[Any]) -> bool:
    """Whether `task` is inside an anyio cancel scope with `shield=True` right now: its innermost
    scope and the ones around it in the same task are looked at (anyio keeps them per task)."""
    states = _anyio_task_states()
    state = states.get(task) if states is not None else None
    scope = getattr(state, "cancel_scope", None)
    while scope is not None and getattr(scope, "_host_task", None) is task:
        if scope.shield:
            return True
        scope = getattr(scope, "_parent_scope", None)
    return False
