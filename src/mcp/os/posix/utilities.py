"""Ending a stdio server together with everything it started (POSIX).

The server must lead its own process group (spawned with `start_new_session=True`, as the stdio
client does), so the whole group can be signalled at once, even children whose parent is gone.
"""

from __future__ import annotations

import logging
import os
import signal
from contextlib import suppress
from typing import Any

import anyio

__all__ = ["terminate_posix_process_tree"]

logger = logging.getLogger("mcp.os.posix.utilities")

_POLL_INTERVAL = 0.01


async def terminate_posix_process_tree(process: Any, timeout_seconds: float = 2.0) -> None:
    """SIGTERM the process group led by `process`, wait up to `timeout_seconds` for it to be
    gone, then SIGKILL whatever is left."""
    group = process.pid  # a group leader's pid is its group id (getpgid fails once it is reaped)
    try:
        os.killpg(group, signal.SIGTERM)
    except ProcessLookupError:
        return
    except PermissionError:
        logger.warning("No permission to signal some of process group %d; waiting for it to exit anyway", group)
    with anyio.move_on_after(timeout_seconds):
        while _group_alive(group):
            _ = process.returncode  # reaps the leader on trio, so the group can disappear
            await anyio.sleep(_POLL_INTERVAL)
        return
    with suppress(ProcessLookupError, PermissionError):
        os.killpg(group, signal.SIGKILL)


def _group_alive(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # survivors we may not signal, or zombies: not proof the group is gone
    return True
