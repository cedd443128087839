"""Resumability for Streamable HTTP: an `EventStore` keeps the SSE events of each stream so a
client that lost its connection can replay them with `Last-Event-ID`.

The public contract is the official one: `store_event` is given `JSONRPCMessage` objects (None
for a priming event) and `replay_events_after` hands back `EventMessage`s holding them. Our own
stores (`InMemoryEventStore`, the Redis one) set `_stores_wire_dicts`: the transport then gives
them the wire dicts it already has and takes dicts back, skipping a model round trip per event.

Our stores are bounded in bytes as well as events: an event over the bound is not kept, and an
answer is then kept as an error saying so, so a client resuming past it is told rather than left
waiting (`stand_in`)."""

from __future__ import annotations

import itertools
import logging
from abc import ABC, abstractmethod
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Final, cast

from mcp._protocol.codec import decode, encode_bytes
from mcp.types.jsonrpc import INTERNAL_ERROR

if TYPE_CHECKING:
    from mcp.types import JSONRPCMessage

logger = logging.getLogger("mcp.server.http")

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


DEFAULT_MAX_EVENT_BYTES: Final = 16 * 1024 * 1024
"""The largest event a store of ours keeps for resumption (JSON bytes): the stdio message limit,
so any message the SDK accepts on stdio can be replayed."""
DEFAULT_MAX_STORE_BYTES: Final = 64 * 1024 * 1024
"""What `InMemoryEventStore` keeps in all (JSON bytes plus `EVENT_OVERHEAD` per event)."""
EVENT_OVERHEAD: Final = 256
"""What `InMemoryEventStore` counts for one event besides its JSON: its bookkeeping (id, index
entry, queue slot), so that many tiny events are bounded as well as a few large ones."""


def stand_in(message: dict[str, Any], size: int, limit: int, stream_id: StreamId) -> dict[str, Any] | None:
    """What a store keeps of an event of `size` bytes, over the `limit` it keeps: for a response,
    an error response to the same request saying so (a client resuming past it gets that error
    instead of silence); for anything else, nothing (None: its event id stays valid, a replay
    skips it). Logged at WARNING either way. The live client was sent the event itself."""
    request_id = message.get("id")
    if "id" in message and ("result" in message or "error" in message):
        logger.warning("the answer to request %r on SSE stream %s (%d bytes) is over the %d bytes an event store "
                       "keeps: a client resuming past it gets an error instead", request_id, stream_id, size, limit)
        return {"jsonrpc": "2.0", "id": request_id, "error": {
            "code": INTERNAL_ERROR,
            "message": f"Answer too large to resume: {size} bytes, over the {limit} the event store keeps",
            "data": {"size": size, "limit": limit}}}
    logger.warning("%s on SSE stream %s (%d bytes) is over the %d bytes an event store keeps: not replayed",
                   message.get("method") or "a message", stream_id, size, limit)
    return None


def session_of(stream_id: StreamId) -> str:
    """The session a stream belongs to: the Streamable HTTP transport names a session's streams
    `SESSION/...`."""
    return stream_id.partition("/")[0]


def forget_session(store: EventStore | None, session_id: str) -> None:
    """Free the streams of a session that ended (DELETE, eviction), in a store that can: ours in
    memory (`forget_session`); a shared store's streams expire by themselves."""
    forget: Any = getattr(store, "forget_session", None)
    if forget is not None:
        forget(session_id)


class _Stream:
    __slots__ = ("events", "size")

    def __init__(self) -> None:
        self.events: deque[tuple[int, bytes | None]] = deque()
        """(event number, the message's JSON; None for a priming event or one not kept)."""
        self.size = 0
        """What its events count against the bounds (see `EVENT_OVERHEAD`)."""


class InMemoryEventStore(EventStore):
    """Bounded in-process store. Keeps at most `max_events_per_stream` events and
    `max_bytes_per_stream` bytes per stream (oldest events forgotten first), `max_streams` streams
    and `max_bytes` bytes in all (the least recently written stream's oldest events forgotten
    first). A byte counts an event's JSON plus `EVENT_OVERHEAD`. An event too large for a stream
    is not kept: an answer is kept as an error saying so (see `stand_in`). The streams of a
    session are freed when the session ends (`forget_session`, called by the session manager)."""

    _stores_wire_dicts = True

    def __init__(self, max_events_per_stream: int = 1000, max_streams: int = 10_000, *,
                 max_bytes_per_stream: int = DEFAULT_MAX_EVENT_BYTES, max_bytes: int = DEFAULT_MAX_STORE_BYTES) -> None:
        self._max_events = max_events_per_stream
        self._max_streams = max_streams
        self._max_total = max_bytes
        self._max_stream_bytes = min(max_bytes_per_stream, max_bytes)
        if min(max_events_per_stream, max_streams) < 1 or self._max_stream_bytes <= EVENT_OVERHEAD:
            raise ValueError("an event store must keep at least one event of one stream")
        self._streams: OrderedDict[StreamId, _Stream] = OrderedDict()
        """Least recently written first."""
        self._where: dict[int, StreamId] = {}
        self._of_session: dict[str, set[StreamId]] = {}
        self._ids = itertools.count(1)
        self.stored_bytes = 0
        """What the kept events count against `max_bytes`."""

    async def store_event(self, stream_id: StreamId, message: Any) -> EventId:
        if message is not None and type(message) is not dict:
            message = wire_message(message)  # called directly with a model
        wire = cast("dict[str, Any] | None", message)
        data = None if wire is None else encode_bytes(wire)
        if data is not None and len(data) + EVENT_OVERHEAD > self._max_stream_bytes:
            kept = stand_in(cast("dict[str, Any]", wire), len(data), self._max_stream_bytes - EVENT_OVERHEAD, stream_id)
            data = None if kept is None else encode_bytes(kept)
        number = next(self._ids)
        stream = self._streams.get(stream_id)
        if stream is None:
            stream = self._streams[stream_id] = _Stream()
            self._of_session.setdefault(session_of(stream_id), set()).add(stream_id)
            while len(self._streams) > self._max_streams:
                self._drop(next(iter(self._streams)))
        else:
            self._streams.move_to_end(stream_id)
        cost = EVENT_OVERHEAD + (0 if data is None else len(data))
        while stream.events and (len(stream.events) >= self._max_events
                                 or stream.size + cost > self._max_stream_bytes):
            self._forget_oldest(stream)
        stream.events.append((number, data))
        stream.size += cost
        self.stored_bytes += cost
        self._where[number] = stream_id
        while self.stored_bytes > self._max_total:  # (this stream alone fits: others go first)
            oldest_id, oldest = next(iter(self._streams.items()))
            self._forget_oldest(oldest)
            if not oldest.events:
                self._drop(oldest_id)
        return str(number)

    def _forget_oldest(self, stream: _Stream) -> None:
        number, data = stream.events.popleft()
        cost = EVENT_OVERHEAD + (0 if data is None else len(data))
        stream.size -= cost
        self.stored_bytes -= cost
        self._where.pop(number, None)

    def _drop(self, stream_id: StreamId) -> None:
        stream = self._streams.pop(stream_id, None)
        if stream is None:
            return
        for number, _data in stream.events:
            self._where.pop(number, None)
        self.stored_bytes -= stream.size
        session = session_of(stream_id)
        streams = self._of_session.get(session)
        if streams is not None:
            streams.discard(stream_id)
            if not streams:
                del self._of_session[session]

    def forget_session(self, session_id: str) -> None:
        """Free every stream of `session_id` (its replay is over: the session ended)."""
        for stream_id in list(self._of_session.get(session_id, ())):
            self._drop(stream_id)

    async def replay_events_after(self, last_event_id: EventId, send_callback: EventCallback) -> StreamId | None:
        if len(last_event_id) > 20:  # longer than any id we mint: not parsed
            return None
        try:
            after = int(last_event_id)
        except ValueError:
            return None
        stream_id = self._where.get(after)
        stream = self._streams.get(stream_id) if stream_id is not None else None
        if stream is None:
            return None
        for number, data in list(stream.events):
            if number > after and data is not None:
                await send_callback(EventMessage(decode(data), str(number)))
        return stream_id

    def __len__(self) -> int:
        return len(self._where)
