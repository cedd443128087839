"""`terminate_posix_process_tree` ends a stdio server together with the children it started."""

import os
import sys

import anyio
import pytest

from mcp.os.posix.utilities import terminate_posix_process_tree

pytestmark = [pytest.mark.anyio, pytest.mark.skipif(sys.platform == "win32", reason="POSIX only")]


def _group_exists(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


async def test_the_server_and_its_background_child_are_both_ended() -> None:
    process = await anyio.open_process(["sh", "-c", "sleep 60 & echo started; wait"], start_new_session=True)
    assert process.stdout is not None
    with anyio.fail_after(10):
        assert b"started" in await process.stdout.receive()
        await terminate_posix_process_tree(process, timeout_seconds=5)
        await process.wait()
        while _group_exists(process.pid):  # the background sleep leaves with its group
            await anyio.sleep(0.01)
    assert process.returncode is not None
    await process.aclose()
