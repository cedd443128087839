"""The stdio client transport: start a server subprocess and talk to it over its stdin/stdout.

The child gets only an allow-list of environment variables (plus what `env` adds). On exit the
child's stdin is closed, then it is given 2 s to leave before it is terminated and, if need be,
killed: no zombies, and no hang when the server dies or never answers.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Literal, TextIO

import anyio
from pydantic import BaseModel, Field

from mcp._engine.fdio import read_in_chunks
from mcp._engine.seam import WireReceiveStream, WireSendStream
from mcp._engine.stdio_pump import pump_in, pump_out
from mcp._protocol.framing import DEFAULT_MAX_LINE
from mcp.os.win32.utilities import ServerProcess as ServerProcess
from mcp.os.win32.utilities import close_process_job as close_process_job
from mcp.os.win32.utilities import create_windows_process as create_windows_process
from mcp.os.win32.utilities import get_windows_executable_command as get_windows_executable_command
from mcp.os.win32.utilities import terminate_windows_process_tree as terminate_windows_process_tree
from mcp.shared.message import SessionMessage

DEFAULT_INHERITED_ENV_VARS = (
    ["APPDATA", "HOMEDRIVE", "HOMEPATH", "LOCALAPPDATA", "PATH", "PROCESSOR_ARCHITECTURE", "SYSTEMDRIVE",
     "SYSTEMROOT", "TEMP", "USERNAME", "USERPROFILE"]
    if sys.platform == "win32"
    else ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"]
)


PROCESS_TERMINATION_TIMEOUT = 2.0
"""Seconds the server is given to leave after its stdin closes, before it is terminated."""

FORCE_KILL_TIMEOUT = 2.0
"""Seconds a terminated server is given to leave before it is killed."""


def get_default_environment() -> dict[str, str]:
    env: dict[str, str] = {}
    for key in DEFAULT_INHERITED_ENV_VARS:
        value = os.environ.get(key)
        if value is not None and not value.startswith("()"):
            env[key] = value
    return env


class StdioServerParameters(BaseModel):
    """How to start a stdio server."""

    command: str
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] | None = None
    cwd: str | Path | None = None
    encoding: str = "utf-8"
    encoding_error_handler: Literal["strict", "ignore", "replace"] = "strict"


def _read_stdout_in_chunks(process: Any) -> None:
    """On asyncio, have the server's stdout pipe read 64 KiB at a time (`fdio.read_in_chunks`):
    anyio wraps asyncio's process, whose pipe transport is reachable only through private names,
    so anything unexpected leaves the default."""
    inner = getattr(process, "_process", None)
    get_pipe = getattr(getattr(inner, "_transport", None), "get_pipe_transport", None)
    if callable(get_pipe):
        pipe = get_pipe(1)
        if pipe is not None:
            read_in_chunks(pipe)


@asynccontextmanager
async def stdio_client(
    server: StdioServerParameters, errlog: TextIO | None = sys.stderr, *, max_message_size: int = DEFAULT_MAX_LINE
) -> AsyncIterator[tuple[Any, Any]]:
    """Start the server process and yield `(read_stream, write_stream)` speaking to it; its
    stderr goes to `errlog` (None: this process's current `sys.stderr`)."""
    env = {**get_default_environment(), **(server.env or {})}
    stderr: Any = None
    log: TextIO = sys.stderr if errlog is None else errlog
    try:
        stderr = log.fileno()
    except (AttributeError, OSError, ValueError):
        stderr = subprocess.DEVNULL
    process = await anyio.open_process(
        [server.command, *server.args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr,
        env=env, cwd=server.cwd, start_new_session=sys.platform != "win32",
        creationflags=getattr(subprocess, "CREATE_NO_WINDOW", 0),  # Windows: no console window per server
    )
    assert process.stdin is not None and process.stdout is not None
    _read_stdout_in_chunks(process)
    stdout, stdin = process.stdout, process.stdin
    read_send, read_recv = anyio.create_memory_object_stream[SessionMessage | Exception](64)
    write_send, write_recv = anyio.create_memory_object_stream[SessionMessage](64)

    async def read_chunk() -> bytes:
        try:
            return await stdout.receive(1 << 16)
        except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
            return b""

    async def write(data: bytes) -> None:
        await stdin.send(data)

    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(pump_in, read_chunk, read_send, max_message_size)
            tg.start_soon(pump_out, write_recv, write)
            try:
                yield WireReceiveStream(read_recv), WireSendStream(write_send)
            finally:
                await write_send.aclose()
                await _stop(process)
                tg.cancel_scope.cancel()
    finally:
        with anyio.CancelScope(shield=True):
            if process.returncode is None:
                await _stop(process)
            await read_recv.aclose()


async def _stop(process: Any) -> None:
    """Close stdin, wait briefly, then terminate, then kill; always reap."""
    with anyio.CancelScope(shield=True):
        with contextlib.suppress(Exception):
            await process.stdin.aclose()
        with anyio.move_on_after(PROCESS_TERMINATION_TIMEOUT):
            await process.wait()
            return
        for signal_step in (process.terminate, process.kill):
            try:
                signal_step()
            except ProcessLookupError:
                return
            with anyio.move_on_after(FORCE_KILL_TIMEOUT):
                await process.wait()
                return
