"""`Transport`: what a client connects through (the official SDK's protocol and names).

A transport is an async context manager yielding `(read_stream, write_stream)`: `SessionMessage`s
(or `Exception`s) come in on the first, `SessionMessage`s go out on the second (see
`mcp._engine.seam` for what they carry). `stdio_client`, `streamable_http_client`, `sse_client` and
`InMemoryTransport` are transports; so is any object of this shape passed to `Client(...)`.
"""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from typing import Protocol

from mcp.shared._stream_protocols import ReadStream, WriteStream
from mcp.shared.message import SessionMessage

__all__ = ["ReadStream", "Transport", "TransportStreams", "WriteStream"]

TransportStreams = tuple[ReadStream[SessionMessage | Exception], WriteStream[SessionMessage]]


class Transport(AbstractAsyncContextManager[TransportStreams], Protocol):
    """An async context manager yielding a connection's `TransportStreams`."""
