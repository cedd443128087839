"""Running synchronous handler code off the event loop: one lean pool of worker threads.

`submit(fn, *args)` runs `fn` on a worker and forgets it (offloaded requests answer from there; see
`Peer`). `run_sync(fn, *args)` awaits a sync function's result: on asyncio through the same pool,
with one `call_soon_threadsafe` back to the loop and the caller's context variables; on other loops
through `anyio.to_thread.run_sync`. A cancelled caller stops waiting at once; the function finishes
on its thread and its result is dropped (handlers that care poll `ctx.cancelled`).

The pool is a queue and up to `MAX_WORKERS` daemon threads, started on demand and kept: no futures,
locks or semaphores per job, which is most of what a `ThreadPoolExecutor` hop costs beyond the
thread switch itself.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import queue
import threading
from collections.abc import Callable
from typing import Any, TypeVar, cast

import sniffio

T = TypeVar("T")

logger = logging.getLogger("mcp.engine")

MAX_WORKERS = 40

_jobs: queue.SimpleQueue[tuple[Callable[..., Any], tuple[Any, ...]]] = queue.SimpleQueue()
_lock = threading.Lock()
_threads = 0
_idle = 0
"""Workers waiting for a job and not yet claimed by one (exact: changed under `_lock` only)."""


_worker = threading.local()


def _work() -> None:
    global _idle
    get = _jobs.get
    state = _worker
    while True:
        fn, args = get()
        state.available = False
        try:
            fn(*args)
        except BaseException:  # jobs report their own outcome; never let one kill the worker
            logger.exception("worker job failed")
        del fn, args
        if not state.available:
            with _lock:
                _idle += 1


def finishing() -> None:
    """Called by a job about to do its last, short step (writing its answer): count this worker as
    idle already, so a request that arrives meanwhile waits for this warm thread instead of
    starting another one. No-op outside the pool."""
    global _idle
    state = _worker
    if getattr(state, "available", True):
        return
    state.available = True
    with _lock:
        _idle += 1


def submit(fn: Callable[..., Any], *args: Any) -> None:
    """Run `fn(*args)` on a worker thread and forget it: `fn` reports its own outcome. Each job
    claims an idle worker or starts one (up to `MAX_WORKERS`; beyond that jobs queue)."""
    global _threads, _idle
    with _lock:
        if _idle:
            _idle -= 1
            spawn = False
        else:
            spawn = _threads < MAX_WORKERS
            if spawn:
                _threads += 1
    _jobs.put((fn, args))
    if spawn:
        threading.Thread(target=_work, name=f"mcp-worker-{_threads}", daemon=True).start()


async def run_sync(fn: Callable[..., T], *args: Any) -> T:
    if sniffio.current_async_library() == "asyncio":
        import asyncio

        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        context = contextvars.copy_context()

        def job() -> None:
            try:
                value = context.run(fn, *args)
            except BaseException as exc:
                outcome: tuple[Any, BaseException | None] = (None, exc)
            else:
                outcome = (value, None)
            with contextlib.suppress(RuntimeError):  # a closed loop: nobody is waiting any more
                loop.call_soon_threadsafe(_settle, future, *outcome)

        submit(job)
        return cast(T, await future)
    import anyio.to_thread

    return await anyio.to_thread.run_sync(fn, *args, abandon_on_cancel=True)


def _settle(future: Any, value: Any, exc: BaseException | None) -> None:
    if future.done():  # the caller was cancelled: nobody wants the outcome
        return
    if exc is None:
        future.set_result(value)
    else:
        future.set_exception(exc)
