"""The asyncio fast path for stdio: pipe callbacks frame and decode lines straight into the
connection's inbox, and outgoing messages are written straight to the pipe transport.

Compared with reader/writer tasks around memory streams this saves several event-loop passes per
message. Backpressure holds both ways: reading pauses while the inbox is over its high-water mark,
and while output the peer has not read yet is over its bound (`max_queued_output`, by default
`MAX_QUEUED_OUTPUT`). Then every writer waits
(loop tasks and worker threads alike) before adding more, so a client that stops reading stdout
holds the server at about that much queued output instead of growing it without bound. The writer
may also be used from worker threads (see `DirectLineWriter`).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import math
import os
import threading
from collections.abc import Callable
from typing import Any

import anyio

from mcp._engine.fdio import read_in_chunks
from mcp._engine.seam import WireReader, WireWriter, model_item, wire_item
from mcp._engine.stdio_pump import DEFAULT_MAX_QUEUED_OUTPUT, frame_to_item
from mcp._protocol.codec import encode_line
from mcp._protocol.framing import LineFramer
from mcp.shared.message import SessionMessage

_INBOX_HIGH = 256
MAX_QUEUED_OUTPUT = DEFAULT_MAX_QUEUED_OUTPUT
"""Bytes written but not yet taken by the pipe (beyond the pipe's own buffer) past which writers
wait and reading pauses, unless the server says otherwise (`stdio_server(max_queued_output=)`)."""


class InboxQueue:
    """The unbounded queue between the read callback and the connection's receive loop (the read
    callback's pause/resume bounds it), on plain asyncio futures. It fails like the anyio memory
    stream it replaces: empty, `anyio.WouldBlock`; empty after `close_input()` (EOF),
    `anyio.EndOfStream`; after `close()` (the reader gave up), `anyio.ClosedResourceError`, and
    whatever arrives later is dropped."""

    __slots__ = ("_waiter", "ended", "items", "shut")

    def __init__(self) -> None:
        self.items: collections.deque[SessionMessage | Exception] = collections.deque()
        self.ended = False
        self.shut = False
        self._waiter: asyncio.Future[None] | None = None

    def put(self, item: SessionMessage | Exception) -> None:
        if self.shut or self.ended:
            return
        self.items.append(item)
        self._wake()

    def close_input(self) -> None:
        self.ended = True
        self._wake()

    def close(self) -> None:
        self.shut = True
        self.items.clear()
        self._wake()

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None:
            self._waiter = None
            if not waiter.done():
                waiter.set_result(None)

    def receive_nowait(self) -> SessionMessage | Exception:
        if self.shut:
            raise anyio.ClosedResourceError
        if self.items:
            return self.items.popleft()
        if self.ended:
            raise anyio.EndOfStream
        raise anyio.WouldBlock

    async def receive(self) -> SessionMessage | Exception:
        await asyncio.sleep(0)  # a checkpoint first, as anyio's `receive()`
        while True:
            try:
                return self.receive_nowait()
            except anyio.WouldBlock:
                waiter = self._waiter
                if waiter is None or waiter.done():
                    waiter = self._waiter = asyncio.get_running_loop().create_future()
                await waiter

    def statistics(self) -> Any:
        """The figures `anyio` memory streams report (`MemoryObjectStreamStatistics`)."""
        from anyio.streams.memory import MemoryObjectStreamStatistics

        waiting = int(self._waiter is not None and not self._waiter.done())
        return MemoryObjectStreamStatistics(len(self.items), math.inf, int(not (self.ended or self.shut)),
                                            int(not self.shut), 0, waiting)


class _InboxProtocol(asyncio.Protocol):
    def __init__(self, sink: InboxQueue, max_line: int) -> None:
        self._sink = sink
        self._framer = LineFramer(max_line)
        self._max_line = max_line
        self._transport: Any = None
        self._paused = False
        self.direct: Callable[[SessionMessage | Exception], bool] | None = None
        """Offered each message first while the backlog is empty; True means it was taken."""
        self.congested: Callable[[], bool] = _never
        """True while the output side is over its bound: reading pauses and nothing is taken
        directly, so a peer that does not read our answers cannot make us start more requests."""
        self.backlog = 0
        """Messages sent through the inbox that its consumer has not reported `processed` yet
        (queued, handed to the waiting receiver, or being handled): while there are any, nothing
        is taken directly, so messages are still handled in the order they arrived."""

    def connection_made(self, transport: Any) -> None:
        self._transport = transport

    def data_received(self, data: bytes) -> None:
        for frame in self._framer.feed(data):
            self._put(frame)
        if not self._paused and (self._queued() > _INBOX_HIGH or self.congested()):
            self._paused = True
            self._transport.pause_reading()
            asyncio.get_running_loop().create_task(self._resume_when_drained())

    def _put(self, frame: Any) -> None:
        item = frame_to_item(frame, self._max_line)
        direct = self.direct
        if direct is not None and not self.backlog and not self.congested() and direct(item):
            return
        self.backlog += 1
        self._sink.put(item)

    def _queued(self) -> int:
        return len(self._sink.items)

    async def _resume_when_drained(self) -> None:
        while self._queued() > _INBOX_HIGH // 2 or self.congested():
            await asyncio.sleep(0.005)
        self._paused = False
        if self._transport is not None and not self._transport.is_closing():
            self._transport.resume_reading()

    def eof_received(self) -> bool:
        tail = self._framer.flush()
        if tail is not None:
            self._put(tail)
        self._sink.close_input()
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self._sink.close_input()


class DirectLineWriter(WireWriter):
    """Quacks like the send half of a memory stream; writes each message as one line, at once,
    straight to the (non-blocking) pipe. Also writable from worker threads (`write_threadsafe`), so
    an offloaded request's worker answers without a hop back to the loop. A lock keeps lines whole;
    what the pipe does not take is buffered and flushed by the loop when the pipe is writable.
    A message that cannot be encoded raises `EncodeError` at the sender (responses never do: see
    `encode_line`)."""

    def __init__(self, loop: asyncio.AbstractEventLoop, fd: int, max_queued: int = MAX_QUEUED_OUTPUT) -> None:
        os.set_blocking(fd, False)
        self._max_queued = max_queued
        self._loop = loop
        self._loop_thread = threading.get_ident()
        self._fd = fd
        self._lock = threading.Lock()
        self._room = threading.Condition(self._lock)
        """Signalled when the queued output drops to the bound (or the pipe is gone), for worker
        threads waiting to write."""
        self._pending = bytearray()
        """Bytes the pipe has not taken yet (only while it is full)."""
        self._watching = False
        self._drain_waiters: list[asyncio.Future[None]] = []
        self._closed = False
        self.lost = False

    def _write(self, data: bytes) -> None:
        """Write or buffer `data`; call with the lock held."""
        if self.lost or self._fd < 0:
            raise anyio.BrokenResourceError
        if not self._pending:
            try:
                written = os.write(self._fd, data)
            except BlockingIOError:
                written = 0
            except OSError:
                self.lost = True
                self._room.notify_all()
                raise anyio.BrokenResourceError from None
            if written == len(data):
                return
            data = data[written:]
        self._pending += data
        if not self._watching:
            self._watching = True
            if threading.get_ident() == self._loop_thread:
                self._loop.add_writer(self._fd, self._on_writable)
            else:
                self._loop.call_soon_threadsafe(self._loop.add_writer, self._fd, self._on_writable)

    def _on_writable(self) -> None:
        with self._lock:
            if self._pending and not self.lost and self._fd >= 0:
                try:
                    written = os.write(self._fd, self._pending)
                except BlockingIOError:
                    written = 0
                except OSError:
                    self.lost = True
                    self._pending.clear()
                    written = 0
                del self._pending[:written]
            if len(self._pending) <= self._max_queued or self.lost:
                self._room.notify_all()
            if self._pending and not self.lost:
                if len(self._pending) <= self._max_queued:
                    self._wake_drain_waiters()
                return
            self._watching = False
            if self._fd >= 0:
                self._loop.remove_writer(self._fd)
        self._wake_drain_waiters()

    def _wake_drain_waiters(self) -> None:
        for waiter in self._drain_waiters:
            if not waiter.done():
                waiter.set_result(None)
        self._drain_waiters.clear()

    def congested(self) -> bool:
        """Is the output not yet taken by the pipe over its bound?"""
        return len(self._pending) > self._max_queued and not self.lost

    async def wait_for_room(self) -> None:
        """Return once the queued output is back within its bound (or the pipe is gone)."""
        while len(self._pending) > self._max_queued and not (self.lost or self._closed or self._fd < 0):
            waiter = self._loop.create_future()
            self._drain_waiters.append(waiter)
            await waiter

    def send_wire_nowait(self, item: SessionMessage) -> None:
        if len(self._pending) > self._max_queued and not (self._closed or self.lost):
            raise anyio.WouldBlock
        self.write_threadsafe(item.message)

    async def send_wire(self, item: SessionMessage) -> None:
        # Wait for room first, then write: every waiting writer adds at most one message.
        if len(self._pending) > self._max_queued:
            await self.wait_for_room()
        self.write_threadsafe(item.message)

    def send_nowait(self, item: SessionMessage) -> None:
        """The official face: `item.message` a `JSONRPCMessage` model (a dict is taken as it is)."""
        self.send_wire_nowait(wire_item(item))

    async def send(self, item: SessionMessage) -> None:
        await self.send_wire(wire_item(item))

    def threadsafe_writer(self) -> Callable[[dict[str, Any]], None]:
        return self.write_threadsafe

    def write_threadsafe(self, message: dict[str, Any]) -> None:
        """Write one message as a line, from any thread. On a worker thread this waits while the
        queued output is over its bound (the loop keeps draining it), so an answer that is written
        but not yet sent still counts against the bound; on the loop, `send` waits instead."""
        if self._closed or self.lost:
            raise anyio.BrokenResourceError
        line = encode_line(message)
        with self._lock:
            if len(self._pending) > self._max_queued and threading.get_ident() != self._loop_thread:
                while len(self._pending) > self._max_queued and not (self.lost or self._fd < 0):
                    self._room.wait()
            self._write(line)

    def close(self) -> None:
        self._closed = True

    async def aclose(self) -> None:
        self._closed = True

    async def __aenter__(self) -> DirectLineWriter:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._closed = True

    async def flush(self, timeout: float = 2.0) -> None:
        """Wait (bounded) until everything written has reached the pipe."""
        with anyio.move_on_after(timeout):
            while self._pending and not self.lost:
                await asyncio.sleep(0.005)

    def shutdown(self) -> None:
        with self._lock:
            self._room.notify_all()
            fd, self._fd = self._fd, -1
            if fd >= 0:
                if self._watching:
                    self._loop.remove_writer(fd)
                with contextlib.suppress(OSError):
                    os.set_blocking(fd, True)  # the pipe (or terminal) is shared with whoever gave it to us
                os.close(fd)


class Inbox(WireReader):
    """The read stream of the fast path: the receive half of the inbox, plus a way for the consumer
    to take messages straight from the read callback (`set_direct_consumer`), skipping the queue
    and the loop pass it costs. `receive()` is the official face (models), `receive_wire()` ours."""

    def __init__(self, receive: InboxQueue, protocol: _InboxProtocol) -> None:
        self._receive = receive
        self._protocol = protocol
        self.statistics = receive.statistics
        # The wire face is the inbox itself: bound once, no call in between on the hot path.
        self.receive_wire_nowait = receive.receive_nowait
        self.receive_wire = receive.receive

    def receive_nowait(self) -> SessionMessage | Exception:
        return model_item(self._receive.receive_nowait())

    async def receive(self) -> SessionMessage | Exception:
        return model_item(await self._receive.receive())

    def close(self) -> None:
        self._receive.close()

    async def aclose(self) -> None:
        self._receive.close()

    def set_direct_consumer(self, consumer: Callable[[SessionMessage | Exception], bool] | None) -> bool:
        """Offer each message to `consumer` first, while the inbox has no backlog. A direct
        consumer must call `processed()` after handling each message it received from the inbox."""
        self._protocol.direct = consumer
        return True

    def processed(self) -> None:
        """One message received from the inbox has been handled (see `set_direct_consumer`)."""
        protocol = self._protocol
        if protocol.backlog:
            protocol.backlog -= 1

    def __aiter__(self) -> Inbox:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        try:
            return model_item(await self._receive.receive())
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def __aenter__(self) -> Inbox:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._receive.close()


async def open_stdio(in_fd: int, out_fd: int, max_line: int,
                     max_queued_output: int = MAX_QUEUED_OUTPUT) -> tuple[Inbox, DirectLineWriter, Any]:
    """(read stream, direct writer, read transport) over two pipe fds, owned from here on."""
    loop = asyncio.get_running_loop()
    queue = InboxQueue()
    protocol = _InboxProtocol(queue, max_line)
    writer = DirectLineWriter(loop, out_fd, max_queued_output)
    protocol.congested = writer.congested
    read_transport, _ = await loop.connect_read_pipe(lambda: protocol, os.fdopen(in_fd, "rb", buffering=0))
    return Inbox(queue, protocol), writer, read_in_chunks(read_transport)


def _never() -> bool:
    return False
