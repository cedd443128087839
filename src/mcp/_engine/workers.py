"""Running synchronous handler code off the event loop.

On asyncio a sync function goes to a shared thread pool through `run_in_executor` (one future and
one loop wake-up, about a third cheaper than `anyio.to_thread`), with the caller's context
variables; on other loops `anyio.to_thread.run_sync`. A cancelled caller stops waiting at once;
the function finishes on its thread and its result is dropped (handlers that care poll
`ctx.cancelled`).
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar, cast

import sniffio

T = TypeVar("T")

MAX_WORKERS = 40
_executor: ThreadPoolExecutor | None = None


def _pool() -> ThreadPoolExecutor:
    global _executor
    if _executor is None:
        _executor = ThreadPoolExecutor(max_workers=MAX_WORKERS, thread_name_prefix="mcp-worker")
    return _executor


async def run_sync(fn: Callable[..., T], *args: Any) -> T:
    if sniffio.current_async_library() == "asyncio":
        import asyncio

        context = contextvars.copy_context()
        result: Any = await asyncio.get_running_loop().run_in_executor(_pool(), context.run, fn, *args)  # pyright: ignore[reportArgumentType]
        return cast(T, result)
    import anyio.to_thread

    return await anyio.to_thread.run_sync(fn, *args, abandon_on_cancel=True)
