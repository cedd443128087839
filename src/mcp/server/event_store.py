"""Resumability for Streamable HTTP: an `EventStore` keeps the SSE events of each stream so a
client that lost its connection can replay them with `Last-Event-ID`."""

from __future__ import annotations

import itertools
from abc import ABC, abstractmethod
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

StreamId = str
EventId = str


@dataclass(slots=True)
class EventMessage:
    """One stored SSE event: the JSON-RPC message and its event id (None: not resumable)."""

    message: dict[str, Any]
    event_id: EventId | None = None


EventCallback = Callable[[EventMessage], Awaitable[None]]


class EventStore(ABC):
    """Storage of SSE events, pluggable (e.g. Redis for several replicas)."""

    @abstractmethod
    async def store_event(self, stream_id: StreamId, message: dict[str, Any] | None) -> EventId:
        """Remember one event of `stream_id` (None: a priming event) and return its id."""

    @abstractmethod
    async def replay_events_after(self, last_event_id: EventId, send_callback: EventCallback) -> StreamId | None:
        """Send every event of the same stream after `last_event_id`; return that stream's id
        (None when the id is unknown)."""


class InMemoryEventStore(EventStore):
    """Bounded in-process store: at most `max_events_per_stream` events per stream and
    `max_streams` streams (oldest streams forgotten first)."""

    def __init__(self, max_events_per_stream: int = 1000, max_streams: int = 10_000) -> None:
        self._max_events = max_events_per_stream
        self._max_streams = max_streams
        self._streams: OrderedDict[StreamId, deque[tuple[int, dict[str, Any] | None]]] = OrderedDict()
        self._where: dict[int, StreamId] = {}
        self._ids = itertools.count(1)

    async def store_event(self, stream_id: StreamId, message: dict[str, Any] | None) -> EventId:
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
        events.append((number, message))
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
                await send_callback(EventMessage(message, str(number)))
        return stream_id

    def __len__(self) -> int:
        return len(self._where)
