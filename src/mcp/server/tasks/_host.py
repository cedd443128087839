"""Where the tasks extension's background work runs: the innermost `Tasks.running()` group
entered on this event loop, else a task group of its own, opened lazily inside a task spawned on
the running loop (an asyncio task, or a trio system task) so that it outlives any one request."""

from __future__ import annotations

from typing import Any

import anyio
import sniffio

from mcp.shared.exceptions import MCPError
from mcp.types.jsonrpc import INTERNAL_ERROR


def loop_key() -> Any:
    if sniffio.current_async_library() == "trio":
        import trio

        return trio.lowlevel.current_trio_token()
    import asyncio

    return asyncio.get_running_loop()


class TaskHost:
    """Where the extension's background work runs (see the module docstring): the innermost
    `Tasks.running()` group entered on this event loop, else a lazily spawned group of its own."""

    def __init__(self) -> None:
        self.scoped: list[tuple[Any, Any]] = []
        """(event loop, task group) of each `running()` block, innermost last."""
        self.group: Any = None
        self.loop: Any = None
        self._ready: anyio.Event | None = None
        self._done: anyio.Event | None = None
        self._task: Any = None  # the asyncio task (a strong reference keeps it alive)

    async def task_group(self) -> Any:
        loop = loop_key()
        for scoped_loop, group in reversed(self.scoped):
            if scoped_loop is loop:
                return group
        if self.loop is loop:
            if self.group is not None:
                return self.group
            if self._ready is not None and not self._ready.is_set():
                await self._ready.wait()
                if self.group is not None:
                    return self.group
        self.loop, self.group = loop, None
        ready = self._ready = anyio.Event()
        done = self._done = anyio.Event()
        if sniffio.current_async_library() == "trio":
            import trio

            trio.lowlevel.spawn_system_task(self._serve, ready, done, name="mcp-tasks")
        else:
            import asyncio

            self._task = asyncio.get_running_loop().create_task(self._serve(ready, done), name="mcp-tasks")
        await ready.wait()
        if self.group is None:
            raise MCPError(INTERNAL_ERROR, "The task runner is not available")
        return self.group

    async def _serve(self, ready: anyio.Event, done: anyio.Event) -> None:
        group = None
        try:
            async with anyio.create_task_group() as group:
                self.group = group
                ready.set()
                await anyio.sleep_forever()
        finally:
            if self.group is group:
                self.group = None
            ready.set()
            done.set()

    async def aclose(self) -> None:
        group, done = self.group, self._done
        if group is None or self.loop is not loop_key():
            return
        group.cancel_scope.cancel()
        if done is not None:
            await done.wait()
