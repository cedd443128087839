"""`InMemoryTransport`: a server run in this process, as a client transport (the official SDK's
name). The connection itself is `mcp.client.transports.in_memory`."""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from types import TracebackType
from typing import TYPE_CHECKING, Any

from mcp.client._transport import TransportStreams
from mcp.client.transports import SERVER_SHUTDOWN_GRACE, in_memory, lowlevel_server

if TYPE_CHECKING:
    from mcp.server.lowlevel.server import Server
    from mcp.server.mcpserver import MCPServer

__all__ = ["SERVER_SHUTDOWN_GRACE", "InMemoryTransport"]


class InMemoryTransport:
    """Connects to `server` (a `Server` or an `MCPServer`) run in a background task for as long as
    the transport is entered; `raise_exceptions` lets the server's handler exceptions propagate."""

    def __init__(self, server: Server[Any] | MCPServer, *, raise_exceptions: bool = False) -> None:
        self._server = server
        self._raise_exceptions = raise_exceptions
        self._cm: AbstractAsyncContextManager[Any] | None = None

    async def __aenter__(self) -> TransportStreams:
        target = lowlevel_server(self._server)
        if target is None:
            raise TypeError(f"InMemoryTransport needs a Server or an MCPServer, not {type(self._server).__name__}")
        cm = in_memory(target, raise_exceptions=self._raise_exceptions)
        streams = await cm.__aenter__()
        self._cm = cm
        return streams

    async def __aexit__(self, exc_type: type[BaseException] | None, exc_val: BaseException | None,
                        exc_tb: TracebackType | None) -> None:
        cm, self._cm = self._cm, None
        if cm is not None:
            await cm.__aexit__(exc_type, exc_val, exc_tb)
