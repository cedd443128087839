"""In-memory transport for tests: two connected stream pairs, one for each side of a connection.

    async with create_client_server_memory_streams() as (client_streams, server_streams):
        async with anyio.create_task_group() as tg:
            tg.start_soon(lambda: server.run(*server_streams, server.create_initialization_options()))
            async with ClientSession(*client_streams) as session:
                await session.initialize()
            tg.cancel_scope.cancel()

Messages are `SessionMessage`s of `JSONRPCMessage` models, as in the official SDK; nothing is
encoded. A session reading or writing these streams exchanges them as dicts (`mcp._engine.seam`).

Each message also carries its sender's context variables, as officially: `send` snapshots
`contextvars.copy_context()`, and the engine reading the other end serves a request in that
snapshot, so what the caller set (an OpenTelemetry suppression, a test's own variable) is seen by
the handler it calls; only the engine's own request-local variables start afresh
(`mcp._engine.calls.request_local`). The official face keeps the last one in `last_context`.

This is the home of the pair (`mcp.client.transports.in_memory` connects by it too);
`mcp.shared.memory` is its official path.
"""

from __future__ import annotations

import contextvars
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

import anyio

from mcp._engine.seam import Item, WireReceiveStream, WireSendStream, model_item, wire_item

if TYPE_CHECKING:
    from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

    from mcp.shared.message import SessionMessage

__all__ = ["ContextReceiveStream", "ContextSendStream", "MessageStream", "create_client_server_memory_streams",
           "memory_stream"]

MessageStream = tuple[Any, Any]
"""`(read_stream, write_stream)` of one side."""

BUFFER = 32
"""Messages one direction holds before its sender waits."""


class ContextSendStream(WireSendStream):
    """The send end: each item travels with a snapshot of the sender's context variables."""

    def __init__(self, inner: MemoryObjectSendStream[Any]) -> None:
        super().__init__(inner)
        del self.send_wire_nowait, self.send_wire  # the methods below, not the raw stream's

    def send_wire_nowait(self, item: SessionMessage) -> None:
        self.wire.send_nowait((contextvars.copy_context(), item))

    async def send_wire(self, item: SessionMessage) -> None:
        await self.wire.send((contextvars.copy_context(), item))

    def send_nowait(self, item: Item) -> None:
        self.wire.send_nowait((contextvars.copy_context(), wire_item(item)))

    async def send(self, item: Item) -> None:
        await self.wire.send((contextvars.copy_context(), wire_item(item)))

    def clone(self) -> ContextSendStream:
        return ContextSendStream(self.wire.clone())


class ContextReceiveStream(WireReceiveStream):
    """The receive end: yields the items; each one's sender context is kept in `last_context`
    (official) and handed to the engine's context consumer (`WireReader.set_context_consumer`)."""

    def __init__(self, inner: MemoryObjectReceiveStream[Any]) -> None:
        super().__init__(inner)
        del self.receive_wire_nowait, self.receive_wire  # the methods below, not the raw stream's
        self.last_context: contextvars.Context | None = None
        self._consumer: Callable[[contextvars.Context], None] | None = None

    def _unpack(self, envelope: tuple[contextvars.Context, Item]) -> Item:
        context, item = envelope
        self.last_context = context
        if self._consumer is not None:
            self._consumer(context)
        return item

    def set_context_consumer(self, consumer: Callable[[contextvars.Context], None] | None) -> bool:
        self._consumer = consumer
        return True

    def receive_wire_nowait(self) -> Item:
        return self._unpack(self.wire.receive_nowait())

    async def receive_wire(self) -> Item:
        return self._unpack(await self.wire.receive())

    def receive_nowait(self) -> Item:
        return model_item(self._unpack(self.wire.receive_nowait()))

    async def receive(self) -> Item:
        return model_item(self._unpack(await self.wire.receive()))

    async def __anext__(self) -> Item:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    def clone(self) -> ContextReceiveStream:
        return ContextReceiveStream(self.wire.clone())


def memory_stream() -> tuple[ContextSendStream, ContextReceiveStream]:
    """One direction of an in-memory connection: `(send end, receive end)`."""
    send, receive = anyio.create_memory_object_stream[tuple[contextvars.Context, Item]](BUFFER)
    return ContextSendStream(send), ContextReceiveStream(receive)


@asynccontextmanager
async def create_client_server_memory_streams() -> AsyncIterator[tuple[MessageStream, MessageStream]]:
    """Yield `(client_streams, server_streams)`, each a `(read_stream, write_stream)` pair; what
    one side writes the other reads. All four streams are closed on exit."""
    to_client_send, to_client_recv = memory_stream()
    to_server_send, to_server_recv = memory_stream()
    async with to_client_send, to_client_recv, to_server_send, to_server_recv:
        yield (to_client_recv, to_server_send), (to_server_recv, to_client_send)
