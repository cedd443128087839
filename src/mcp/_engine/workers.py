"""Running synchronous handler code off the event loop: one lean pool of worker threads.

`submit(fn, *args)` runs `fn` on a worker and forgets it (offloaded requests answer from there; see
`Peer`). `run_sync(fn, *args)` awaits a sync function's result: on asyncio through the same pool,
with one `call_soon_threadsafe` back to the loop and the caller's context variables; on other loops
through `anyio.to_thread.run_sync`. A cancelled caller stops waiting at once; the function finishes
on its thread and its result is dropped (handlers that care poll `ctx.cancelled`).

The pool is a queue and up to `MAX_WORKERS` daemon threads, started on demand and kept: no futures,
locks or semaphores per job, which is most of what a `ThreadPoolExecutor` hop costs beyond the
thread switch itself.

On asyncio the workers are also AnyIO worker threads, as `anyio.to_thread.run_sync` would make
them: inside a job, `anyio.from_thread.run_sync`/`run` reach the event loop and
`anyio.from_thread.check_cancelled()` raises once the request (or the awaiting caller) is cancelled.
This uses two anyio internals (its worker-thread claim and the thread's current cancel scope); if a
future anyio lacks them, jobs still run, without `anyio.from_thread`.
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


def worker_scope() -> Any:
    """A fresh cancel scope for one job (asyncio only; create it on the loop thread): the scope
    `anyio.from_thread.check_cancelled()` looks at in the job. Cancel it on the loop to stop the
    job at its next check. None when anyio's internals are not as expected."""
    backend = _anyio_asyncio()
    return backend.CancelScope() if backend is not None else None


def enter_job(loop: Any, scope: Any) -> None:
    """On a worker, before a job of `loop`: make this an AnyIO worker thread of `loop` (claimed
    once per thread and loop, not per job) whose current cancel scope is `scope`."""
    if scope is None:
        return
    state = _worker
    threadlocals = _threadlocals  # set by `_anyio_asyncio`, which made `scope`
    if getattr(state, "anyio_loop", None) is not loop:
        from anyio._core._eventloop import claim_worker_thread

        # What anyio's claim sets (its names vary across versions), kept past the claim itself:
        # a claim left open would be finalised by another thread at exit, and fail there.
        values = cast("dict[str, Any]", threadlocals.__dict__)  # this thread's attributes
        before = dict(values)
        with claim_worker_thread(_anyio_asyncio().AsyncIOBackend, loop):
            claimed = {name: value for name, value in values.items() if before.get(name) is not value}
        for name, value in claimed.items():
            setattr(threadlocals, name, value)
        state.anyio_loop = loop
    threadlocals.current_cancel_scope = scope


def leave_job(scope: Any) -> None:
    """After a job entered with `enter_job`: no cancel scope is current any more."""
    if scope is not None:
        _threadlocals.current_cancel_scope = None


_backend: Any = False
_threadlocals: Any = None
"""anyio's per-thread state (its worker-thread claim, the current cancel scope), once looked up."""


def _anyio_asyncio() -> Any:
    """anyio's asyncio backend module, if it has what `enter_job` needs (else None); imported on
    first use, so that importing the server does not import asyncio."""
    global _backend, _threadlocals
    if _backend is False:
        try:
            from anyio._backends import _asyncio as backend
            from anyio._core import _eventloop
        except ImportError:  # pragma: no cover - an anyio without these internals
            backend = None
        else:
            if not (hasattr(backend, "CancelScope") and hasattr(backend, "AsyncIOBackend")
                    and hasattr(_eventloop, "claim_worker_thread") and hasattr(_eventloop, "threadlocals")):
                backend = None  # pragma: no cover
            else:
                _threadlocals = _eventloop.threadlocals
        _backend = backend
    return _backend


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
        scope = worker_scope()

        def job() -> None:
            enter_job(loop, scope)
            try:
                value = context.run(fn, *args)
            except BaseException as exc:
                outcome: tuple[Any, BaseException | None] = (None, exc)
            else:
                outcome = (value, None)
            finally:
                leave_job(scope)
            with contextlib.suppress(RuntimeError):  # a closed loop: nobody is waiting any more
                loop.call_soon_threadsafe(_settle, future, *outcome)

        submit(job)
        try:
            return cast(T, await future)
        except asyncio.CancelledError:
            if scope is not None:
                scope.cancel()  # the job sees it at its next anyio.from_thread.check_cancelled()
            raise
    import anyio.to_thread

    return await anyio.to_thread.run_sync(fn, *args, abandon_on_cancel=True)


def _settle(future: Any, value: Any, exc: BaseException | None) -> None:
    if future.done():  # the caller was cancelled: nobody wants the outcome
        return
    if exc is None:
        future.set_result(value)
    else:
        future.set_exception(exc)
