"""The seam between a session (our `Peer`) and its transport: what crosses it, in which form.

**The official contract** (what a user sees and supplies, as in the official SDK): a read stream
yields `SessionMessage`s whose `.message` is a `JSONRPCMessage` model (`JSONRPCRequest`,
`JSONRPCNotification`, `JSONRPCResponse`, `JSONRPCError`), or an `Exception` the transport met; a
write stream takes `SessionMessage`s of models. Any object with `receive()`/`aclose()` (resp.
`send()`/`aclose()`) will do: `mcp.client._transport.ReadStream`/`WriteStream`.

**The wire face** (ours only): the engine works on JSON-RPC messages as dicts, the form they are
decoded into and encoded from, and never builds models on its hot paths. Our transports' streams
are `WireReader`/`WireWriter`s: besides the official face they offer the named methods below,
which carry `SessionMessage`s whose `.message` is that dict. The optional fast paths we measured
are part of this contract, with defaults that opt out:

- `WireReader.receive_wire_nowait()` / `receive_wire()`: the next item (`anyio.WouldBlock` when
  none is buffered; `anyio.EndOfStream` at the end); `close()`.
- `WireReader.set_direct_consumer(consumer)`: offer each decoded item to `consumer` straight from
  the transport's read callback, skipping the inbox (True when the reader supports it); the
  consumer then reports each item it took from the inbox with `processed()`.
- `WireReader.set_context_consumer(consumer)`: hand `consumer` the sender's `contextvars.Context`
  of each item just before the item is returned (True when the reader carries them: only the
  in-memory streams of `mcp._engine.memory` do, as officially).
- `WireWriter.send_wire_nowait(item)` (`anyio.WouldBlock` when full) / `send_wire(item)`; `close()`.
- `WireWriter.congested()` / `wait_for_room()`: output the peer has not read is over its bound,
  so start no new request until there is room.
- `WireWriter.threadsafe_writer()`: a function writing one message (a dict) from any thread, so an
  offloaded request's worker answers without a hop back to the event loop; None when unsupported.
- `RoutedMetadata.sink`: transport metadata of ours that routes what is sent while serving the
  message it came with (an HTTP request's response channel, a dispatcher's context): the engine
  offers each such message to `sink` first, which returns True when it took it.

A stream that is not ours (a user's own, or a wrapper around ours) is adapted by `wire_reader` /
`wire_writer`: models are dumped into dicts on the way in and built from dicts on the way out.
`WireReceiveStream`/`WireSendStream` put both faces on the ends of an anyio memory stream that our
transports hand out: a user's models are stored as dicts, and dicts are read out as models.
"""

from __future__ import annotations

import contextvars
import logging
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any

import anyio

from mcp.shared.message import SessionMessage

if TYPE_CHECKING:
    from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

    from mcp.types import JSONRPCMessage

__all__ = ["RoutedMetadata", "WireReader", "WireReceiveStream", "WireSendStream", "WireWriter", "as_model", "as_wire",
           "model_item", "wire_item", "wire_reader", "wire_writer"]

logger = logging.getLogger("mcp.engine")

Item = SessionMessage | Exception


class RoutedMetadata:
    """Transport metadata whose request has a route of its own for what is sent while serving it:
    the engine calls `sink(message)` before writing to the stream, and writes only when it returns
    False. A base class (not a probed attribute), so the engine's check is one `isinstance`."""

    __slots__ = ()

    @property
    def sink(self) -> Callable[[dict[str, Any]], Awaitable[bool]] | None:
        """The route (None: the stream, as for any other metadata)."""
        return None


# -- the two forms of a message ------------------------------------------------------------------

def as_wire(message: Any) -> dict[str, Any]:
    """A JSON-RPC message as the engine's dict (a dict is returned as it is)."""
    if type(message) is dict:
        return message  # pyright: ignore[reportUnknownVariableType]
    wire: dict[str, Any] = message.model_dump(by_alias=True, mode="json", exclude_unset=True)
    wire.setdefault("jsonrpc", "2.0")
    return wire


def as_model(message: dict[str, Any]) -> JSONRPCMessage:
    """A wire dict as its `JSONRPCMessage` model (raises pydantic's `ValidationError`)."""
    from mcp.types import jsonrpc_message_adapter

    return jsonrpc_message_adapter.validate_python(message)


def wire_item(item: Any) -> Any:
    """A stream item in the wire form (exceptions, and anything that is not a model, pass
    unchanged: the engine answers what is no JSON-RPC message)."""
    if type(item) is SessionMessage and type(item.message) is not dict and _is_model(item.message):
        return SessionMessage(as_wire(item.message), item.metadata)
    return item


def _is_model(value: Any) -> bool:
    """Is `value` a pydantic model? (Without importing pydantic: no model exists before it is.)"""
    pydantic = sys.modules.get("pydantic")
    return pydantic is not None and isinstance(value, pydantic.BaseModel)


def model_item(item: Any) -> Any:
    """A stream item in the official form; a dict that is no valid JSON-RPC message becomes the
    validation error, as a transport reports what it cannot parse."""
    if type(item) is not SessionMessage:
        return item
    message: dict[str, Any] = item.message
    if type(message) is dict:
        from pydantic import ValidationError

        try:
            return SessionMessage(as_model(message), item.metadata)
        except ValidationError as exc:
            return exc
    return item


# -- the contract --------------------------------------------------------------------------------

class WireReader:
    """The read half of one of our transports (see the module docstring)."""

    def receive_wire_nowait(self) -> Item:
        raise NotImplementedError

    async def receive_wire(self) -> Item:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    def set_direct_consumer(self, consumer: Callable[[Item], bool] | None) -> bool:
        """Offer items to `consumer` from the read callback; False: not supported here."""
        return False

    def processed(self) -> None:
        """One item taken from the inbox has been handled (only after `set_direct_consumer`)."""
        return None

    def set_context_consumer(self, consumer: Callable[[contextvars.Context], None] | None) -> bool:
        """Hand `consumer` each item's sender context before the item; False: none are carried."""
        return False


class WireWriter:
    """The write half of one of our transports (see the module docstring)."""

    def send_wire_nowait(self, item: SessionMessage) -> None:
        raise NotImplementedError

    async def send_wire(self, item: SessionMessage) -> None:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    def congested(self) -> bool:
        """Is output the peer has not taken over its bound?"""
        return False

    async def wait_for_room(self) -> None:
        """Return once output is back within its bound."""
        return None

    def threadsafe_writer(self) -> Callable[[dict[str, Any]], None] | None:
        """A function writing one message from any thread, or None."""
        return None


# -- both faces on the ends of a memory stream ---------------------------------------------------

class WireReceiveStream(WireReader):
    """The receive end of an anyio memory stream of wire items, as handed to a user: `receive()`
    yields models (official), `receive_wire()` the dicts (ours)."""

    def __init__(self, inner: MemoryObjectReceiveStream[Any]) -> None:
        self.wire = inner
        """The stream itself (the wire face)."""
        self.receive_wire_nowait = inner.receive_nowait
        self.receive_wire = inner.receive

    def receive_nowait(self) -> Item:
        return model_item(self.wire.receive_nowait())

    async def receive(self) -> Item:
        return model_item(await self.wire.receive())

    def close(self) -> None:
        self.wire.close()

    async def aclose(self) -> None:
        self.wire.close()

    def statistics(self) -> Any:
        return self.wire.statistics()

    def clone(self) -> WireReceiveStream:
        return WireReceiveStream(self.wire.clone())

    def __aiter__(self) -> AsyncIterator[Item]:
        return self

    async def __anext__(self) -> Item:
        try:
            return model_item(await self.wire.receive())
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    def __enter__(self) -> WireReceiveStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.wire.close()

    async def __aenter__(self) -> WireReceiveStream:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.wire.close()


class WireSendStream(WireWriter):
    """The send end of an anyio memory stream of wire items, as handed to a user: `send()` takes
    models (official; stored as dicts), `send_wire()` the dicts (ours)."""

    def __init__(self, inner: MemoryObjectSendStream[Any]) -> None:
        self.wire = inner
        """The stream itself (the wire face)."""
        self.send_wire_nowait = inner.send_nowait
        self.send_wire = inner.send

    def send_nowait(self, item: Item) -> None:
        self.wire.send_nowait(wire_item(item))

    async def send(self, item: Item) -> None:
        await self.wire.send(wire_item(item))

    def close(self) -> None:
        self.wire.close()

    async def aclose(self) -> None:
        self.wire.close()

    def statistics(self) -> Any:
        return self.wire.statistics()

    def clone(self) -> WireSendStream:
        return WireSendStream(self.wire.clone())

    def __enter__(self) -> WireSendStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.wire.close()

    async def __aenter__(self) -> WireSendStream:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.wire.close()


# -- adapting streams that are not ours ----------------------------------------------------------

class _ForeignReader(WireReader):
    """A user's read stream of models, read in the wire form."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream
        self._memory: MemoryObjectReceiveStream[Any] | None = stream if _is_memory(stream, "Receive") else None

    def receive_wire_nowait(self) -> Item:
        if self._memory is None:
            raise anyio.WouldBlock
        return wire_item(self._memory.receive_nowait())

    async def receive_wire(self) -> Item:
        return wire_item(await self._stream.receive())

    def close(self) -> None:
        if self._memory is not None:
            self._memory.close()


class _ForeignWriter(WireWriter):
    """A user's write stream of models, written from the wire form."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream
        self._memory: MemoryObjectSendStream[Any] | None = stream if _is_memory(stream, "Send") else None

    def send_wire_nowait(self, item: SessionMessage) -> None:
        if self._memory is None:
            raise anyio.WouldBlock
        self._memory.send_nowait(_official(item))

    async def send_wire(self, item: SessionMessage) -> None:
        await self._stream.send(_official(item))

    def close(self) -> None:
        if self._memory is not None:
            self._memory.close()


def _is_memory(stream: Any, end: str) -> bool:
    """Is `stream` the `end` ("Send"/"Receive") of an anyio memory object stream? Answered without
    importing anyio's streams: while they are not loaded, nothing can be one."""
    module = sys.modules.get("anyio.streams.memory")
    return module is not None and isinstance(stream, getattr(module, f"MemoryObject{end}Stream"))


def _official(item: SessionMessage) -> Any:
    official = model_item(item)
    if isinstance(official, Exception):  # not a valid message: hand over what the engine made
        logger.debug("sending a message that is no valid JSON-RPC message as a dict: %s", official)
        return item
    return official


def wire_reader(stream: Any) -> WireReader:
    """`stream` itself when it is ours, else an adapter reading it in the wire form."""
    return stream if isinstance(stream, WireReader) else _ForeignReader(stream)


def wire_writer(stream: Any) -> WireWriter:
    """`stream` itself when it is ours, else an adapter writing it from the wire form."""
    return stream if isinstance(stream, WireWriter) else _ForeignWriter(stream)
