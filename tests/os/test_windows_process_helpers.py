"""The official Windows process helpers import and work on every OS (proxies import them
unconditionally): `create_windows_process` starts a piped server, `close_process_job` is safe to
call, and `mcp.client.stdio` offers the same objects."""

from __future__ import annotations

import subprocess
import sys

import anyio
import pytest

import mcp.client.stdio as stdio
from mcp.os.win32 import utilities
from mcp.os.win32.utilities import FallbackProcess, close_process_job, create_windows_process

pytestmark = pytest.mark.anyio

ECHO = "import sys; sys.stdout.write(sys.stdin.readline()); sys.stdout.flush()"


def test_the_stdio_client_module_offers_the_same_helpers() -> None:
    for name in ("create_windows_process", "close_process_job", "terminate_windows_process_tree",
                 "get_windows_executable_command", "ServerProcess"):
        assert getattr(stdio, name) is getattr(utilities, name)


async def test_create_windows_process_starts_a_server_with_piped_stdin_and_stdout() -> None:
    with anyio.fail_after(20):
        process = await create_windows_process(sys.executable, ["-c", ECHO], errlog=None)
        assert process.stdin is not None and process.stdout is not None
        await process.stdin.send(b"ping\n")
        assert await process.stdout.receive() == b"ping\n"
        assert await process.wait() == 0
        close_process_job(process)  # nothing to release: no error, and again
        close_process_job(process)
        if not isinstance(process, FallbackProcess):
            await process.aclose()


async def test_the_popen_fallback_waits_and_reports_the_exit_code() -> None:
    popen = subprocess.Popen([sys.executable, "-c", ECHO], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    process = FallbackProcess(popen)
    assert process.stdin is not None and process.stdout is not None
    assert process.pid == popen.pid
    with anyio.fail_after(20):
        await process.stdin.send(b"pong\n")
        assert await process.stdout.receive() == b"pong\n"
        assert await process.wait() == 0
    assert process.returncode == 0
    await process.stdin.aclose()
    await process.stdout.aclose()
