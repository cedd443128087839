"""The two loops every stdio transport runs: bytes -> framed JSON messages, messages -> lines.

Shared by the server (`mcp.server.stdio`) and the client (`mcp.client.stdio`) transports. The
server's output on the task-based paths (trio, caller-supplied files, fds the loop cannot poll)
goes through `BoundedOutput`, bounded in bytes as the asyncio fast path is.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import anyio

from mcp._engine.seam import WireWriter, wire_item
from mcp._protocol.codec import EncodeError, ParseError, decode, encode_line
from mcp._protocol.framing import OVERSIZED, LineFramer
from mcp.shared.message import SessionMessage
from mcp.types.jsonrpc import INVALID_REQUEST

if TYPE_CHECKING:
    from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

logger = logging.getLogger("mcp.stdio")

DEFAULT_MAX_QUEUED_OUTPUT = 1 << 20
"""Bytes of a stdio server's output the client has not read yet (beyond the pipe's own buffer)
past which writers wait and the server starts no new request: the per-connection output bound."""


class OversizedMessage(ValueError):
    """A line longer than the configured limit; answered as an invalid request."""

    code = INVALID_REQUEST


def frame_to_item(frame: Any, max_line: int) -> SessionMessage | Exception:
    """One frame from the `LineFramer` as what a peer's inbox carries: the decoded message, or the
    error to answer with (oversized line, parse error)."""
    if frame is OVERSIZED:
        return OversizedMessage(f"Invalid Request: message larger than the {max_line}-byte limit")
    try:
        return SessionMessage(decode(frame))
    except ParseError as exc:
        exc.data = frame  # a reference, not a copy: what a client needs to salvage the id
        return exc


async def pump_in(
    read: Callable[[], Awaitable[bytes]],
    sink: MemoryObjectSendStream[SessionMessage | Exception],
    max_line: int,
) -> None:
    """Read until EOF, sending each decoded message (or the parse error) to `sink`; closes it."""
    framer = LineFramer(max_line)
    async with sink:
        while True:
            try:
                data = await read()
            except (OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
                data = b""
            if not data:
                tail = framer.flush()
                frames: list[Any] = [tail] if tail is not None else []
            else:
                frames = framer.feed(data)
            for frame in frames:
                item = frame_to_item(frame, max_line)
                try:
                    try:
                        sink.send_nowait(item)
                    except anyio.WouldBlock:
                        await sink.send(item)
                except (anyio.BrokenResourceError, anyio.ClosedResourceError):
                    return
            if not data:
                return


async def pump_out(source: MemoryObjectReceiveStream[SessionMessage], write: Callable[[bytes], Awaitable[None]]) -> None:
    """Write each message as one line; batches what is already queued into one write."""
    async with source:
        while True:
            try:
                item = source.receive_nowait()
            except anyio.WouldBlock:
                try:
                    item = await source.receive()
                except anyio.EndOfStream:
                    return
            except anyio.EndOfStream:
                return
            lines = [_line(item.message)]
            while True:
                try:
                    lines.append(_line(source.receive_nowait().message))
                except anyio.WouldBlock:
                    break
                except (anyio.EndOfStream, anyio.ClosedResourceError):
                    break
            try:
                await write(b"".join(lines))
            except (OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
                logger.debug("stdio peer went away; dropping output")
                return


def _line(message: Any) -> bytes:
    """One message as a line; a message that cannot be encoded at all is logged and dropped (it
    was already sent as far as its sender knows: nothing else to tell)."""
    try:
        return encode_line(message)
    except EncodeError:
        logger.exception("dropping a message that cannot be encoded: %s", message.get("method"))
        return b""


class BoundedOutput(WireWriter):
    """The stdio server's write stream on the task-based paths, bounded in bytes: each message is
    encoded as it is sent and counted until the writer task (`pump`) has written it. While more
    than `limit` bytes wait, `send_nowait` refuses, `send` waits, and the connection's `Peer`
    starts no new request (it asks `congested` / `wait_for_room`), so a client that stops reading
    stdout holds the server at about `limit` queued bytes. Quacks like a memory stream's send half."""

    def __init__(self, limit: int = DEFAULT_MAX_QUEUED_OUTPUT) -> None:
        if limit <= 0:
            raise ValueError("max_queued_output must be positive")
        self.limit = limit
        self.queued = 0
        """Bytes sent but not written yet."""
        self._send, self._recv = anyio.create_memory_object_stream[bytes](math.inf)
        self._room: anyio.Event | None = None
        self._broken = False

    def congested(self) -> bool:
        return self.queued > self.limit and not self._broken

    async def wait_for_room(self) -> None:
        while self.queued > self.limit and not self._broken:
            if self._room is None:
                self._room = anyio.Event()
            await self._room.wait()

    def send_wire_nowait(self, item: SessionMessage) -> None:
        if self.queued > self.limit and not self._broken:
            raise anyio.WouldBlock
        self._put(item)

    async def send_wire(self, item: SessionMessage) -> None:
        if self.queued > self.limit:  # wait first, then add: every waiting writer adds one message
            await self.wait_for_room()
        self._put(item)

    def send_nowait(self, item: SessionMessage) -> None:
        """The official face: `item.message` a `JSONRPCMessage` model (a dict is taken as it is)."""
        self.send_wire_nowait(wire_item(item))

    async def send(self, item: SessionMessage) -> None:
        await self.send_wire(wire_item(item))

    def _put(self, item: SessionMessage) -> None:
        if self._broken:
            raise anyio.BrokenResourceError
        line = _line(item.message)
        if line:
            self._send.send_nowait(line)
            self.queued += len(line)

    def close(self) -> None:
        self._send.close()

    async def aclose(self) -> None:
        self._send.close()

    async def __aenter__(self) -> BoundedOutput:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._send.close()

    def _taken(self, size: int, *, broken: bool = False) -> None:
        self.queued -= size
        self._broken = self._broken or broken
        if self._room is not None and (self.queued <= self.limit or self._broken):
            self._room.set()
            self._room = None

    async def pump(self, write: Callable[[bytes], Awaitable[None]]) -> None:
        """Write what is sent, batching what is already queued into one write, until closed."""
        source = self._recv
        async with source:
            while True:
                try:
                    data = source.receive_nowait()
                except anyio.WouldBlock:
                    try:
                        data = await source.receive()
                    except anyio.EndOfStream:
                        return
                except anyio.EndOfStream:
                    return
                lines = [data]
                while True:
                    try:
                        lines.append(source.receive_nowait())
                    except (anyio.WouldBlock, anyio.EndOfStream, anyio.ClosedResourceError):
                        break
                size = sum(map(len, lines))
                try:
                    await write(b"".join(lines) if len(lines) > 1 else data)
                except (OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
                    logger.debug("stdio peer went away; dropping output")
                    self._taken(size, broken=True)
                    return
                self._taken(size)
