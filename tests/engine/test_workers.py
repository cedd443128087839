"""The worker pool behind sync handlers: results, errors, context, cancellation, bounded threads."""

from __future__ import annotations

import contextvars
import threading

import anyio
import pytest

from mcp._engine import workers

pytestmark = pytest.mark.anyio

_request: contextvars.ContextVar[str] = contextvars.ContextVar("request", default="none")


async def test_run_sync_returns_the_functions_value_computed_on_a_worker_thread() -> None:
    loop_thread = threading.get_ident()
    value, thread = await workers.run_sync(lambda a, b: (a + b, threading.get_ident()), 2, 3)
    assert value == 5
    assert thread != loop_thread


async def test_run_sync_raises_the_functions_exception_at_the_caller() -> None:
    def boom() -> None:
        raise LookupError("missing")

    with pytest.raises(LookupError, match="missing"):
        await workers.run_sync(boom)


async def test_run_sync_carries_the_callers_context_variables() -> None:
    _request.set("r-42")
    assert await workers.run_sync(_request.get) == "r-42"


async def test_a_cancelled_caller_stops_waiting_and_the_result_is_dropped() -> None:
    finished = threading.Event()
    release = threading.Event()

    def slow() -> str:
        assert release.wait(5)  # still running when its caller gives up, however slow the machine
        finished.set()
        return "late"

    with anyio.move_on_after(0.05) as scope:  # the caller's timeout: the behaviour under test
        await workers.run_sync(slow)
    assert scope.cancelled_caught
    release.set()
    assert await workers.run_sync(lambda: "next") == "next"
    assert await anyio.to_thread.run_sync(finished.wait, 5)


def test_submitted_jobs_all_run_and_a_failing_job_does_not_stop_the_pool() -> None:
    done = threading.Semaphore(0)

    def fail() -> None:
        raise RuntimeError("job failed")

    workers.submit(fail)
    for _ in range(100):
        workers.submit(done.release)
    assert all(done.acquire(timeout=5) for _ in range(100))


def test_blocking_jobs_get_their_own_threads_up_to_the_limit() -> None:
    """Jobs that wait on each other still finish: each claims an idle worker or starts one."""
    gate = threading.Event()
    arrived = threading.Semaphore(0)

    def wait_for_gate() -> None:
        arrived.release()
        gate.wait(5)

    for _ in range(8):
        workers.submit(wait_for_gate)
    try:
        assert all(arrived.acquire(timeout=5) for _ in range(8))
    finally:
        gate.set()
    assert workers._threads <= workers.MAX_WORKERS
