"""Turn what was passed to `Client(...)` into a transport: an async context manager yielding
`(read_stream, write_stream)`."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any, cast

import anyio

from mcp._engine.memory import memory_stream

if TYPE_CHECKING:
    from mcp.server.lowlevel.server import Server


def open_transport(target: Any, *, raise_exceptions: bool = False) -> Any:
    from mcp.client.stdio import StdioServerParameters, stdio_client

    if isinstance(target, StdioServerParameters):
        return stdio_client(target)
    if isinstance(target, str):
        from mcp.client.streamable_http import streamable_http_client

        return streamable_http_client(target)
    lowlevel = lowlevel_server(target)
    if lowlevel is not None:
        return in_memory(lowlevel, raise_exceptions=raise_exceptions)
    if hasattr(target, "__aenter__"):
        return target
    raise TypeError(f"Client() cannot connect to {type(target).__name__}: pass an MCPServer, a Server, a URL, "
                    "StdioServerParameters or a transport")


def lowlevel_server(target: Any) -> Server[Any] | None:
    """The low-level `Server` behind `target` (itself, or an `MCPServer`'s), else None."""
    from mcp.server.lowlevel.server import Server

    if isinstance(target, Server):
        return cast("Server[Any]", target)
    inner = getattr(target, "_lowlevel_server", None)
    return cast("Server[Any]", inner) if isinstance(inner, Server) else None


SERVER_SHUTDOWN_GRACE = 2.0
"""Seconds an in-process server may take to finish after its input ends, before it is cancelled."""


@asynccontextmanager
async def in_memory(server: Any, *, raise_exceptions: bool = False) -> AsyncIterator[tuple[Any, Any]]:
    """Run `server` (a low-level `Server`) in this process, connected by memory streams: yields the
    client's `(read_stream, write_stream)`. Messages are never encoded; the engines on both ends
    exchange them as dicts, a user reading or writing the streams sees models (`mcp._engine.seam`);
    each carries its sender's context variables (`mcp._engine.memory`).
    On exit the server sees end of input and gets `SERVER_SHUTDOWN_GRACE` to finish."""
    client_send, server_recv = memory_stream()
    server_send, client_recv = memory_stream()
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
            with anyio.move_on_after(SERVER_SHUTDOWN_GRACE, shield=True):
                await finished.wait()
            tg.cancel_scope.cancel()
