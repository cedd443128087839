"""The two loops every stdio transport runs: bytes -> framed JSON messages, messages -> lines.

Shared by the server (`mcp.server.stdio`) and the client (`mcp.client.stdio`) transports.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from mcp._protocol.codec import EncodeError, ParseError, decode, encode_line
from mcp._protocol.framing import OVERSIZED, LineFramer
from mcp.shared.message import SessionMessage
from mcp.types.jsonrpc import INVALID_REQUEST

logger = logging.getLogger("mcp.stdio")


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
