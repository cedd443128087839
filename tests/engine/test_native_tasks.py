"""Eagerly started request tasks (`mcp._engine.native.start_task`) on asyncio."""

from __future__ import annotations

import asyncio
import contextvars
from typing import Any

import anyio

from mcp._engine.native import start_task

VAR: contextvars.ContextVar[str] = contextvars.ContextVar("eager_test_var", default="unset")


def _from_a_callback(make: Any) -> Any:
    """Run `make()` in a plain loop callback (no task running) and return what it returned."""

    async def main() -> Any:
        loop = asyncio.get_running_loop()
        box: asyncio.Future[Any] = loop.create_future()
        loop.call_soon(lambda: box.set_result(make()))
        return await box

    return asyncio.run(main())


def test_a_task_that_never_waits_is_done_before_start_task_returns() -> None:
    seen: dict[str, Any] = {}

    async def handler() -> str:
        seen["task"] = asyncio.current_task()
        seen["var"] = VAR.get()
        with anyio.CancelScope():  # anyio needs a real current task
            pass
        return "done"

    def make() -> Any:
        context = contextvars.copy_context()
        context.run(VAR.set, "connection")
        task = start_task(handler(), context)
        return task, task.done(), task.result() if task.done() else None

    task, done, result = _from_a_callback(make)
    assert (done, result) == (True, "done")
    assert seen == {"task": task, "var": "connection"}


def test_a_task_that_waits_continues_as_a_scheduled_task_with_working_timeouts() -> None:
    async def main() -> tuple[bool, str]:
        loop = asyncio.get_running_loop()
        started: asyncio.Future[asyncio.Task[str]] = loop.create_future()

        async def handler() -> str:
            with anyio.fail_after(5):
                await anyio.sleep(0.01)
            await asyncio.sleep(0)
            return "later"

        loop.call_soon(lambda: started.set_result(start_task(handler(), contextvars.copy_context())))
        task = await started
        was_done = task.done()
        return was_done, await task

    assert asyncio.run(main()) == (False, "later")


def test_a_waiting_eager_task_can_be_cancelled_through_its_cancel_scope() -> None:
    async def main() -> list[str]:
        loop = asyncio.get_running_loop()
        events: list[str] = []
        scope_box: list[anyio.CancelScope] = []
        started: asyncio.Future[asyncio.Task[None]] = loop.create_future()

        async def handler() -> None:
            with anyio.CancelScope() as scope:
                scope_box.append(scope)
                await anyio.sleep(30)
                events.append("not cancelled")
            events.append("after scope")

        loop.call_soon(lambda: started.set_result(start_task(handler(), contextvars.copy_context())))
        task = await started
        await asyncio.sleep(0)
        scope_box[0].cancel()
        await asyncio.wait_for(task, 5)
        return events

    assert asyncio.run(main()) == ["after scope"]


def test_inside_a_running_task_the_task_is_scheduled_not_run_at_once() -> None:
    async def main() -> tuple[bool, str]:
        async def handler() -> str:
            return "ran"

        task = start_task(handler(), contextvars.copy_context())
        return task.done(), await task

    assert asyncio.run(main()) == (False, "ran")
