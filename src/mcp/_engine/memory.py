"""In-memory transport for tests: two connected stream pairs, one for each side of a connection.

    async with create_client_server_memory_streams() as (client_streams, server_streams):
        async with anyio.create_task_group() as tg:
            tg.start_soon(lambda: server.run(*server_streams, server.create_initialization_options()))
            async with ClientSession(*client_streams) as session:
                await session.initialize()
            tg.cancel_scope.cancel()

Messages are `SessionMessage`s of `JSONRPCMessage` models, as in the official SDK; nothing is
encoded. A session reading or writing these streams exchanges them as dicts (`mcp._engine.seam`).

This is the home of the pair; `mcp.shared.memory` is its official path.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio

from mcp._engine.seam import WireReceiveStream, WireSendStream
from mcp.shared.message import SessionMessage

__all__ = ["MessageStream", "create_client_server_memory_streams"]

MessageStream = tuple[Any, Any]
"""`(read_stream, write_stream)` of one side."""


@asynccontextmanager
async def create_client_server_memory_streams() -> AsyncIterator[tuple[MessageStream, MessageStream]]:
    """Yield `(client_streams, server_streams)`, each a `(read_stream, write_stream)` pair; what
    one side writes the other reads. All four streams are closed on exit."""
    to_client_send, to_client_recv = anyio.create_memory_object_stream[SessionMessage | Exception](32)
    to_server_send, to_server_recv = anyio.create_memory_object_stream[SessionMessage | Exception](32)
    async with to_client_send, to_client_recv, to_server_send, to_server_recv:
        yield ((WireReceiveStream(to_client_recv), WireSendStream(to_server_send)),
               (WireReceiveStream(to_server_recv), WireSendStream(to_client_send)))
