"""The asyncio fast path for stdio: pipe callbacks frame and decode lines straight into the
connection's inbox, and outgoing messages are written straight to the pipe transport.

Compared with reader/writer tasks around memory streams this saves several event-loop passes per
message. Backpressure holds both ways: reading pauses while the inbox is over its high-water mark,
and writers wait for the pipe to drain when its buffer is over its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
from typing import Any

import anyio
from anyio.streams.memory import MemoryObjectSendStream

from mcp._engine.stdio_pump import frame_to_item
from mcp._protocol.codec import encode_line
from mcp._protocol.framing import LineFramer
from mcp.shared.message import SessionMessage

_INBOX_HIGH = 256
_WRITE_HIGH = 1 << 20


class _InboxProtocol(asyncio.Protocol):
    def __init__(self, sink: MemoryObjectSendStream[SessionMessage | Exception], max_line: int) -> None:
        self._sink = sink
        self._framer = LineFramer(max_line)
        self._max_line = max_line
        self._transport: Any = None
        self._paused = False

    def connection_made(self, transport: Any) -> None:
        self._transport = transport

    def data_received(self, data: bytes) -> None:
        for frame in self._framer.feed(data):
            self._put(frame)
        if not self._paused and self._sink.statistics().current_buffer_used > _INBOX_HIGH:
            self._paused = True
            self._transport.pause_reading()
            asyncio.get_running_loop().create_task(self._resume_when_drained())

    def _put(self, frame: Any) -> None:
        with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
            self._sink.send_nowait(frame_to_item(frame, self._max_line))

    async def _resume_when_drained(self) -> None:
        while self._sink.statistics().current_buffer_used > _INBOX_HIGH // 2:
            await asyncio.sleep(0.005)
        self._paused = False
        if self._transport is not None and not self._transport.is_closing():
            self._transport.resume_reading()

    def eof_received(self) -> bool:
        tail = self._framer.flush()
        if tail is not None:
            self._put(tail)
        self._sink.close()
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self._sink.close()


class _DrainProtocol(asyncio.Protocol):
    def __init__(self) -> None:
        self._waiters: list[asyncio.Future[None]] = []
        self._paused = False
        self.lost = False

    def pause_writing(self) -> None:
        self._paused = True

    def resume_writing(self) -> None:
        self._paused = False
        for waiter in self._waiters:
            if not waiter.done():
                waiter.set_result(None)
        self._waiters.clear()

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost = True
        self.resume_writing()

    async def drain(self) -> None:
        if self._paused and not self.lost:
            waiter = asyncio.get_running_loop().create_future()
            self._waiters.append(waiter)
            await waiter


class DirectLineWriter:
    """Quacks like the send half of a memory stream; writes each message as one line, at once.
    A message that cannot be encoded raises `EncodeError` at the sender (responses never do: see
    `encode_line`)."""

    def __init__(self, transport: Any, protocol: _DrainProtocol) -> None:
        self._transport = transport
        self._protocol = protocol
        self._closed = False

    def send_nowait(self, item: SessionMessage) -> None:
        if self._closed or self._protocol.lost:
            raise anyio.BrokenResourceError
        if self._transport.get_write_buffer_size() > _WRITE_HIGH:
            raise anyio.WouldBlock
        self._transport.write(encode_line(item.message))

    async def send(self, item: SessionMessage) -> None:
        if self._closed or self._protocol.lost:
            raise anyio.BrokenResourceError
        self._transport.write(encode_line(item.message))
        await self._protocol.drain()

    def close(self) -> None:
        self._closed = True

    async def aclose(self) -> None:
        self._closed = True

    async def flush(self, timeout: float = 2.0) -> None:
        """Wait (bounded) until everything written has reached the pipe."""
        with anyio.move_on_after(timeout):
            while self._transport.get_write_buffer_size() and not self._protocol.lost:
                await asyncio.sleep(0.005)

    def shutdown(self) -> None:
        self._transport.close()


async def open_stdio(in_fd: int, out_fd: int, max_line: int) -> tuple[Any, DirectLineWriter, Any]:
    """(read stream, direct writer, read transport) over two pipe fds, owned from here on."""
    loop = asyncio.get_running_loop()
    send, receive = anyio.create_memory_object_stream[SessionMessage | Exception](math.inf)
    read_transport, _ = await loop.connect_read_pipe(lambda: _InboxProtocol(send, max_line),
                                                     os.fdopen(in_fd, "rb", buffering=0))
    write_transport, protocol = await loop.connect_write_pipe(_DrainProtocol, os.fdopen(out_fd, "wb", buffering=0))
    return receive, DirectLineWriter(write_transport, protocol), read_transport
