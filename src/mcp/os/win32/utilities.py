"""Windows helpers of the stdio client: resolving a command to an executable and ending a server
with its children."""

from __future__ import annotations

import logging
import shutil
import subprocess
import sys
from contextlib import suppress
from typing import Any

import anyio

__all__ = ["get_windows_executable_command", "terminate_windows_process_tree"]

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
