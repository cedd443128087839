"""Turn what was passed to `Client(...)` into a transport: an async context manager yielding
`(read_stream, write_stream)`."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any, cast

import anyio

from mcp.shared.message import SessionMessage

if TYPE_CHECKING:
    from mcp.server.lowlevel.server import Server


def open_transport(target: Any, *, raise_exceptions: bool = False) -> Any:
    from mcp.client.stdio import StdioServerParameters, stdio_client

    if isinstance(target, StdioServerParameters):
        return stdio_client(target)
    if isinstance(target, str):
        from mcp.client.streamable_http import streamable_http_client

        return streamable_http_client(target)
    lowlevel = _lowlevel_server(target)
    if lowlevel is not None:
        return in_memory(lowlevel, raise_exceptions=raise_exceptions)
    if hasattr(target, "__aenter__"):
        return target
    raise TypeError(f"Client() cannot connect to {type(target).__name__}: pass an MCPServer, a Server, a URL, "
                    "StdioServerParameters or a transport")


def _lowlevel_server(target: Any) -> Server[Any] | None:
    from mcp.server.lowlevel.server import Server

    if isinstance(target, Server):
        return cast("Server[Any]", target)
    inner = getattr(target, "_lowlevel_server", None)
    return cast("Server[Any]", inner) if isinstance(inner, Server) else None


@asynccontextmanager
async def in_memory(server: Any, *, raise_exceptions: bool = False) -> AsyncIterator[tuple[Any, Any]]:
    """Run `server` in this process, connected by memory streams (messages are never encoded)."""
    client_send, server_recv = anyio.create_memory_object_stream[SessionMessage | Exception](32)
    server_send, client_recv = anyio.create_memory_object_stream[SessionMessage](32)
    finished = anyio.Event()

    async def serve() -> None:
        try:
            await server.run(server_recv, server_send, raise_exceptions=raise_exceptions)
        finally:
            finished.set()

    async with anyio.create_task_group() as tg:
        tg.start_soon(serve)
        try:
            yield client_recv, client_send
        finally:
            await client_send.aclose()
            client_recv.close()
            with anyio.move_on_after(5, shield=True):
                await finished.wait()
            tg.cancel_scope.cancel()
