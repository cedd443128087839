"""Async byte I/O on raw file descriptors (the stdio transports), per event loop.

asyncio: pipe transports (epoll, no thread per read). trio: `FdStream`. Anything else (a regular
file, an unknown loop): reads and writes on a worker thread. Each reader returns b"" at EOF.
"""

from __future__ import annotations

import contextlib
import os
import stat
from typing import Any, Protocol

import anyio
import anyio.to_thread
import sniffio

CHUNK = 1 << 16
"""Bytes asked of a pipe per read. Also what asyncio's pipe transports are told to ask for (see
`read_in_chunks`): their default, 256 KiB, is served by the C library by mapping fresh memory and
then shrinking and unmapping it, three system calls and a page fault per read of a short line
(about 15 us a read on the CI machine, against 1 us from the heap)."""


def read_in_chunks(transport: Any) -> Any:
    """Make an asyncio read transport ask for `CHUNK` bytes per read; returns it."""
    if isinstance(getattr(transport, "max_size", None), int):
        transport.max_size = CHUNK
    return transport


class FdReader(Protocol):
    async def read(self) -> bytes: ...
    async def aclose(self) -> None: ...


class FdWriter(Protocol):
    async def write(self, data: bytes) -> None: ...
    async def aclose(self) -> None: ...


def pollable(fd: int) -> bool:
    """Whether an event loop can watch `fd`: pipes, sockets and terminals. Other character
    devices (`/dev/null`) and regular files cannot be registered with epoll."""
    mode = os.fstat(fd).st_mode
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or (stat.S_ISCHR(mode) and os.isatty(fd))


class _ThreadReader:
    def __init__(self, fd: int) -> None:
        self._fd = fd

    async def read(self) -> bytes:
        return await anyio.to_thread.run_sync(os.read, self._fd, CHUNK, abandon_on_cancel=True)

    async def aclose(self) -> None:
        _close(self._fd)


class _ThreadWriter:
    def __init__(self, fd: int) -> None:
        self._fd = fd

    async def write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            written = await anyio.to_thread.run_sync(os.write, self._fd, view)
            view = view[written:]

    async def aclose(self) -> None:
        _close(self._fd)


class _AsyncioReader:
    def __init__(self, reader: Any, transport: Any) -> None:
        self._reader = reader
        self._transport = transport

    async def read(self) -> bytes:
        return await self._reader.read(CHUNK)

    async def aclose(self) -> None:
        self._transport.close()


class _AsyncioWriter:
    def __init__(self, writer: Any) -> None:
        self._writer = writer

    async def write(self, data: bytes) -> None:
        self._writer.write(data)
        await self._writer.drain()

    async def aclose(self) -> None:
        self._writer.close()


class _TrioStream:
    def __init__(self, stream: Any) -> None:
        self._stream = stream

    async def read(self) -> bytes:
        return await self._stream.receive_some(CHUNK)

    async def write(self, data: bytes) -> None:
        await self._stream.send_all(data)

    async def aclose(self) -> None:
        await self._stream.aclose()


def _close(fd: int) -> None:
    with contextlib.suppress(OSError):
        os.close(fd)


async def open_reader(fd: int) -> FdReader:
    """Take ownership of `fd` and read it asynchronously."""
    library = sniffio.current_async_library()
    if pollable(fd):
        if library == "asyncio":
            import asyncio

            loop = asyncio.get_running_loop()
            reader = asyncio.StreamReader(limit=CHUNK)
            transport, _ = await loop.connect_read_pipe(
                lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(fd, "rb", buffering=0)
            )
            return _AsyncioReader(reader, read_in_chunks(transport))
        if library == "trio":
            import trio

            return _TrioStream(trio.lowlevel.FdStream(fd))
    return _ThreadReader(fd)


async def open_writer(fd: int) -> FdWriter:
    """Take ownership of `fd` and write it asynchronously."""
    library = sniffio.current_async_library()
    if pollable(fd):
        if library == "asyncio":
            import asyncio

            loop = asyncio.get_running_loop()
            transport, protocol = await loop.connect_write_pipe(
                lambda: asyncio.streams.FlowControlMixin(), os.fdopen(fd, "wb", buffering=0)  # type: ignore[attr-defined]
            )
            return _AsyncioWriter(asyncio.StreamWriter(transport, protocol, None, loop))
        if library == "trio":
            import trio

            return _TrioStream(trio.lowlevel.FdStream(fd))
    return _ThreadWriter(fd)
