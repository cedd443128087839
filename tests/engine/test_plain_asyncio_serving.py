"""The pieces that let a server serve on plain asyncio without anyio's backend: `LoopEvent`, the
asyncio stdio inbox queue, `native.run`, and the server peer's native group."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from typing import Any

import anyio
import pytest

from mcp._engine.asyncio_stdio import InboxQueue
from mcp._engine.loop_event import LoopEvent
from mcp._engine.native import run
from mcp._engine.peer import NativeGroup, Peer
from mcp.shared.message import SessionMessage


def test_a_loop_event_wakes_every_waiter_once_set_and_stays_set() -> None:
    async def main() -> list[str]:
        event = LoopEvent()
        woken: list[str] = []

        async def wait(name: str) -> None:
            await event.wait()
            woken.append(name)

        tasks = [asyncio.create_task(wait(name)) for name in ("a", "b")]
        await asyncio.sleep(0)
        assert not event.is_set() and event.statistics().tasks_waiting == 2
        event.set()
        await asyncio.gather(*tasks)
        await event.wait()  # already set: returns at once
        return woken

    assert asyncio.run(main()) == ["a", "b"]


def test_a_cancelled_wait_on_a_loop_event_leaves_no_waiter_behind() -> None:
    async def main() -> int:
        event = LoopEvent()
        with anyio.move_on_after(0.01):
            await event.wait()
        return event.statistics().tasks_waiting

    assert asyncio.run(main()) == 0


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["trio"])
async def test_a_loop_event_waits_through_anyio_on_trio(anyio_backend: str) -> None:
    event = LoopEvent()
    async with anyio.create_task_group() as tg:
        tg.start_soon(event.wait)
        await anyio.sleep(0)
        event.set()
    assert event.is_set()


def test_the_inbox_queue_fails_like_the_memory_stream_it_replaces() -> None:
    async def main() -> list[str]:
        queue = InboxQueue()
        seen: list[str] = []
        with pytest.raises(anyio.WouldBlock):
            queue.receive_nowait()
        waiter = asyncio.create_task(queue.receive())
        await asyncio.sleep(0)
        queue.put(SessionMessage({"jsonrpc": "2.0", "method": "a"}))
        item = await waiter
        assert isinstance(item, SessionMessage)
        seen.append(item.message["method"])
        queue.put(SessionMessage({"jsonrpc": "2.0", "method": "b"}))
        queue.close_input()
        queue.put(SessionMessage({"jsonrpc": "2.0", "method": "after EOF"}))  # dropped
        assert queue.statistics().current_buffer_used == 1
        last = queue.receive_nowait()
        assert isinstance(last, SessionMessage)
        seen.append(last.message["method"])
        with pytest.raises(anyio.EndOfStream):
            await queue.receive()
        queue.close()
        with pytest.raises(anyio.ClosedResourceError):
            queue.receive_nowait()
        return seen

    assert asyncio.run(main()) == ["a", "b"]


def test_native_run_returns_the_result_without_loading_anyios_backend() -> None:
    code = (
        "import sys\nfrom mcp._engine.native import run\n"
        "async def main():\n    return 42\n"
        "assert run(main, use_uvloop=False) == 42\n"
        "assert 'anyio._backends._asyncio' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


async def _noop(message: dict[str, Any], metadata: Any) -> None:
    pass


def test_a_server_peer_on_asyncio_spawns_natively_and_stops_what_it_spawned_at_the_end() -> None:
    async def main() -> tuple[bool, bool]:
        feed, read = anyio.create_memory_object_stream[SessionMessage | Exception](1)  # never sent to
        write, written = anyio.create_memory_object_stream[SessionMessage](1)
        peer = Peer(read, write, role="server", on_request=_noop, on_notification=_noop)
        started = asyncio.Event()
        stopped = asyncio.Event()

        async def spawned() -> None:
            started.set()
            try:
                await asyncio.Event().wait()
            finally:
                stopped.set()

        runner = asyncio.create_task(peer.run())
        while peer.task_group is None:
            await asyncio.sleep(0)
        group = peer.task_group
        is_native = isinstance(group, NativeGroup)
        group.start_soon(spawned)
        await started.wait()
        runner.cancel()
        with pytest.raises(asyncio.CancelledError):
            await runner
        for stream in (feed, read, write, written):
            stream.close()
        return is_native, stopped.is_set()

    assert run(main, use_uvloop=False) == (True, True)
