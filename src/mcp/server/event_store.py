"""Resumability for Streamable HTTP: an `EventStore` keeps the SSE events of each stream so a
client that lost its connection can replay them with `Last-Event-ID`.

The public contract is the official one: `store_event` is given `JSONRPCMessage` objects (None
for a priming event) and `replay_events_after` hands back `EventMessage`s holding them. Our own
stores (`InMemoryEventStore`, the Redis one) set `_stores_wire_dicts`: the transport then gives
them the wire dicts it already has and takes dicts back, skipping a model round trip per event."""

from __future__ import annotations

import itertools
from abc import ABC, abstractmethod
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, cast

if TYPE_CHECKING:
    from mcp.types import JSONRPCMessage

StreamId = str
EventId = str


@dataclass(slots=True)
class EventMessage:
    """One stored SSE event: the JSON-RPC message and its event id (None: not resumable)."""

    message: JSONRPCMessage
    event_id: EventId | None = None


EventCallback = Callable[[EventMessage], Awaitable[None]]


class EventStore(ABC):
    """Storage of SSE events, pluggable (e.g. Redis for several replicas)."""

    _stores_wire_dicts: ClassVar[bool] = False
    """Set by our own stores: they take and give back wire dicts rather than `JSONRPCMessage`s."""

    @abstractmethod
    async def store_event(self, stream_id: StreamId, message: JSONRPCMessage | None) -> EventId:
        """Remember one event of `stream_id` (None: a priming event) and return its id."""

    @abstractmethod
    async def replay_events_after(self, last_event_id: EventId, send_callback: EventCallback) -> StreamId | None:
        """Send every event of the same stream after `last_event_id`; return that stream's id
        (None when the id is unknown)."""


def message_for_store(store: EventStore, message: dict[str, Any] | None) -> Any:
    """What `store.store_event` is given for a wire message: the dict itself for our own stores,
    a `JSONRPCMessage` for any other (the official contract)."""
    if message is None or store._stores_wire_dicts:  # pyright: ignore[reportPrivateUsage]
        return message
    from mcp.types import jsonrpc_message_adapter

    return jsonrpc_message_adapter.validate_python(message)


def wire_message(message: Any) -> dict[str, Any]:
    """The wire dict of a replayed event's message (a dict from our stores, a model otherwise)."""
    if type(message) is dict:
        return cast("dict[str, Any]", message)
    return message.model_dump(mode="json", by_alias=True, exclude_unset=True)


class InMemoryEventStore(EventStore):
    """Bounded in-process store: at most `max_events_per_stream` events per stream and
    `max_streams` streams (oldest streams forgotten first)."""

    _stores_wire_dicts = True

    def __init__(self, max_events_per_stream: int = 1000, max_streams: int = 10_000) -> None:
        self._max_events = max_events_per_stream
        self._max_streams = max_streams
        self._streams: OrderedDict[StreamId, deque[tuple[int, dict[str, Any] | None]]] = OrderedDict()
        self._where: dict[int, StreamId] = {}
        self._ids = itertools.count(1)

    async def store_event(self, stream_id: StreamId, message: Any) -> EventId:
        if message is not None and type(message) is not dict:
            message = wire_message(message)  # called directly with a model
        wire = cast("dict[str, Any] | None", message)
        number = next(self._ids)
        events = self._streams.get(stream_id)
        if events is None:
            events = self._streams[stream_id] = deque()
            while len(self._streams) > self._max_streams:
                _, dropped = self._streams.popitem(last=False)
                for old, _msg in dropped:
                    self._where.pop(old, None)
        if len(events) >= self._max_events:
            old, _msg = events.popleft()
            self._where.pop(old, None)
        events.append((number, wire))
        self._where[number] = stream_id
        return str(number)

    async def replay_events_after(self, last_event_id: EventId, send_callback: EventCallback) -> StreamId | None:
        if len(last_event_id) > 20:  # longer than any id we mint: not parsed
            return None
        try:
            after = int(last_event_id)
        except ValueError:
            return None
        stream_id = self._where.get(after)
        if stream_id is None:
            return None
        for number, message in list(self._streams.get(stream_id, ())):
            if number > after and message is not None:
                await send_callback(EventMessage(cast("Any", message), str(number)))
        return stream_id

    def __len__(self) -> int:
        return len(self._where)
