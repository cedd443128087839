"""A `ClientSession` closes its write stream when it ends, as the official one does: the server
end sees the end of input, and no open stream is left behind for the garbage collector."""

from __future__ import annotations

import anyio
import pytest

from mcp.client.session import ClientSession
from mcp.shared.message import SessionMessage

pytestmark = pytest.mark.anyio


async def test_the_server_end_sees_end_of_input_once_the_session_ends() -> None:
    to_server, server_reads = anyio.create_memory_object_stream[SessionMessage](1)
    server_writes, from_server = anyio.create_memory_object_stream[SessionMessage | Exception](1)
    with anyio.fail_after(10):
        async with ClientSession(from_server, to_server):
            pass
        with pytest.raises(anyio.EndOfStream):
            await server_reads.receive()
    server_reads.close()
    server_writes.close()
