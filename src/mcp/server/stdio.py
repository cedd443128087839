"""The stdio server transport: newline-delimited JSON on stdin/stdout.

While serving, the protocol owns private duplicates of fds 0 and 1; fd 1 and `sys.stdout` point to
stderr and fd 0 to /dev/null, so a stray `print()` (or a child process) cannot corrupt the wire or
steal its input. Everything is restored on exit. EOF on stdin ends the server.
"""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import sniffio

from mcp._engine.fdio import open_reader, open_writer, pollable
from mcp._engine.seam import WireReceiveStream
from mcp._engine.stdio_pump import DEFAULT_MAX_QUEUED_OUTPUT, BoundedOutput, pump_in
from mcp._protocol.framing import DEFAULT_MAX_LINE
from mcp.shared.message import SessionMessage


@asynccontextmanager
async def stdio_server(stdin: anyio.AsyncFile[str] | None = None, stdout: anyio.AsyncFile[str] | None = None, *,
                       max_message_size: int = DEFAULT_MAX_LINE,
                       max_queued_output: int = DEFAULT_MAX_QUEUED_OUTPUT) -> AsyncIterator[tuple[Any, Any]]:
    """Yield `(read_stream, write_stream)` connected to this process's stdin/stdout, or to the
    given text files (`anyio.wrap_file(...)`: lines in, lines out; their descriptors are left
    alone). Lines over `max_message_size` bytes are refused; while more than `max_queued_output`
    bytes of output wait for the client to read them, writers wait and no new request starts."""
    if max_queued_output <= 0:
        raise ValueError("max_queued_output must be positive")
    if stdin is not None or stdout is not None:
        async with _over_files(stdin or anyio.wrap_file(sys.stdin), stdout or anyio.wrap_file(sys.stdout),
                               max_message_size, max_queued_output) as streams:
            yield streams
        return
    if _claimed:
        raise RuntimeError("another stdio_server() in this process has already claimed fd 0")
    _claimed.add(0)
    try:
        async with _over_process_streams(max_message_size, max_queued_output) as streams:
            yield streams
    finally:
        _claimed.discard(0)


_claimed: set[int] = set()
"""The process's own stdin/stdout are served by at most one `stdio_server()` at a time."""


@asynccontextmanager
async def _over_process_streams(max_message_size: int, max_queued_output: int) -> AsyncIterator[tuple[Any, Any]]:
    """The transport over fds 0 and 1 (see the module docstring)."""
    sys.stdout.flush()
    in_fd, out_fd = os.dup(0), os.dup(1)
    saved_in, saved_out = os.dup(0), os.dup(1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(2, 1)
    saved_stdout = sys.stdout
    sys.stdout = sys.stderr
    if sniffio.current_async_library() == "asyncio" and pollable(in_fd) and pollable(out_fd):
        from mcp._engine.asyncio_stdio import open_stdio

        fast_read, fast_write, read_transport = await open_stdio(in_fd, out_fd, max_message_size, max_queued_output)
        try:
            yield fast_read, fast_write
        finally:
            await fast_write.flush()
            read_transport.close()
            fast_write.shutdown()
            fast_read.close()
            sys.stdout = saved_stdout
            os.dup2(saved_in, 0)
            os.dup2(saved_out, 1)
            os.close(saved_in)
            os.close(saved_out)
        return
    reader = await open_reader(in_fd)
    writer = await open_writer(out_fd)
    read_send, read_recv = anyio.create_memory_object_stream[SessionMessage | Exception](64)
    write_send = BoundedOutput(max_queued_output)
    flushed = anyio.Event()

    async def write_all() -> None:
        try:
            await write_send.pump(writer.write)
        finally:
            flushed.set()

    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(pump_in, reader.read, read_send, max_message_size)
            tg.start_soon(write_all)
            try:
                yield WireReceiveStream(read_recv), write_send
            finally:
                await write_send.aclose()
                with anyio.move_on_after(2, shield=True):
                    await flushed.wait()
                tg.cancel_scope.cancel()
    finally:
        with anyio.CancelScope(shield=True):
            await reader.aclose()
            await writer.aclose()
        sys.stdout = saved_stdout
        os.dup2(saved_in, 0)
        os.dup2(saved_out, 1)
        os.close(saved_in)
        os.close(saved_out)


@asynccontextmanager
async def _over_files(stdin: anyio.AsyncFile[str], stdout: anyio.AsyncFile[str],
                      max_message_size: int, max_queued_output: int) -> AsyncIterator[tuple[Any, Any]]:
    """The transport over caller-supplied text files: the same framing and limits, no fd moves."""
    read_send, read_recv = anyio.create_memory_object_stream[SessionMessage | Exception](64)
    write_send = BoundedOutput(max_queued_output)
    flushed = anyio.Event()

    async def read() -> bytes:
        return (await stdin.readline()).encode("utf-8", "surrogateescape")

    async def write(data: bytes) -> None:
        await stdout.write(data.decode("utf-8", "surrogateescape"))
        await stdout.flush()

    async def write_all() -> None:
        try:
            await write_send.pump(write)
        finally:
            flushed.set()

    async with anyio.create_task_group() as tg:
        tg.start_soon(pump_in, read, read_send, max_message_size)
        tg.start_soon(write_all)
        try:
            yield WireReceiveStream(read_recv), write_send
        finally:
            await write_send.aclose()
            with anyio.move_on_after(2, shield=True):
                await flushed.wait()
            tg.cancel_scope.cancel()
