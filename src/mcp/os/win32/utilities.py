"""Windows helpers of the stdio client: resolving a command to an executable, starting a server
without a console window, and ending a server with its children. Importable on every OS (the
official SDK's names, which proxies import unconditionally); off Windows the process helpers start
a plain subprocess and the job helpers do nothing.

This package needs no pywin32: the server's tree is ended with `taskkill /T` rather than a Job
Object, so there is no job handle for `close_process_job` to close."""

from __future__ import annotations

import logging
import shutil
import subprocess
import sys
from contextlib import suppress
from pathlib import Path
from typing import IO, Any, BinaryIO, TextIO, TypeAlias, cast

import anyio
from anyio.abc import Process
from anyio.streams.file import FileReadStream, FileWriteStream

__all__ = [
    "FallbackProcess",
    "ServerProcess",
    "close_process_job",
    "create_windows_process",
    "get_windows_executable_command",
    "terminate_windows_process_tree",
]

logger = logging.getLogger("mcp.os.win32.utilities")


def get_windows_executable_command(command: str) -> str:
    """`command` as Windows can start it: tries the `.cmd`, `.bat` and `.exe` forms on PATH
    (npm and friends install `.cmd` shims), else returns `command` unchanged."""
    try:
        if shutil.which(command):
            return command
        for suffix in (".cmd", ".bat", ".exe", ".ps1"):
            found = shutil.which(command + suffix)
            if found:
                return found
    except OSError:
        pass
    return command


async def terminate_windows_process_tree(process: Any) -> None:
    """End `process` and its descendants (`taskkill /T /F`), falling back to ending the process."""
    pid = getattr(process, "pid", None)
    if sys.platform == "win32" and pid is not None:
        try:
            await anyio.to_thread.run_sync(lambda: subprocess.run(
                ["taskkill", "/T", "/F", "/PID", str(pid)], capture_output=True, check=False))
        except OSError:
            logger.debug("taskkill failed for %s", pid, exc_info=True)
    with suppress(ProcessLookupError, OSError):
        process.kill()


_EXIT_POLL_INTERVAL = 0.01
"""Seconds between `FallbackProcess.wait` polls."""


class FallbackProcess:
    """A `subprocess.Popen` with anyio streams on its pipes, for Windows event loops that cannot
    start subprocesses themselves (asyncio's SelectorEventLoop)."""

    def __init__(self, popen_obj: subprocess.Popen[bytes]) -> None:
        self.popen: subprocess.Popen[bytes] = popen_obj
        stdin, stdout = popen_obj.stdin, popen_obj.stdout
        self.stdin = FileWriteStream(cast("BinaryIO", stdin)) if stdin else None
        self.stdout = FileReadStream(cast("BinaryIO", stdout)) if stdout else None

    async def wait(self) -> int:
        """The exit code, once the process has exited (polled, so a timeout around it works)."""
        while (returncode := self.popen.poll()) is None:
            await anyio.sleep(_EXIT_POLL_INTERVAL)
        return returncode

    def terminate(self) -> None:
        self.popen.terminate()

    def kill(self) -> None:
        self.popen.kill()

    @property
    def pid(self) -> int:
        return self.popen.pid

    @property
    def returncode(self) -> int | None:
        """The exit code, or None while the process runs."""
        return self.popen.poll()


ServerProcess: TypeAlias = Process | FallbackProcess
"""The process handle the stdio client drives: anyio's, or the Popen-backed fallback."""


async def create_windows_process(
    command: str,
    args: list[str],
    env: dict[str, str] | None = None,
    errlog: TextIO | None = sys.stderr,
    cwd: Path | str | None = None,
) -> Process | FallbackProcess:
    """Start `command` with `args`, stdin and stdout piped, stderr to `errlog`, without a console
    window on Windows; falls back to a `FallbackProcess` when the event loop cannot start
    subprocesses."""
    creationflags: int = getattr(subprocess, "CREATE_NO_WINDOW", 0)
    stderr = cast("IO[Any] | None", errlog)
    try:
        return await anyio.open_process([command, *args], env=env, creationflags=creationflags, stderr=stderr, cwd=cwd)
    except NotImplementedError:
        popen = subprocess.Popen(
            [command, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr, env=env, cwd=cwd,
            bufsize=0, creationflags=creationflags,
        )
        return FallbackProcess(popen)


def close_process_job(process: Process | FallbackProcess) -> None:
    """Release the Job Object the official SDK puts a Windows server in. Servers started here are
    in none (their tree is ended by `terminate_windows_process_tree`), so there is nothing to
    release: a no-op on every OS, as the official one is off Windows."""
    del process
