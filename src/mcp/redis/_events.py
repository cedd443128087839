"""`RedisEventStore`: resumable SSE across workers, on Redis Streams.

Each SSE stream is a Redis stream `PREFIX:sse:TAG` (trimmed to about `max_events_per_stream`,
expiring `ttl` seconds after its last event), where TAG is a hash of the stream id: an event id is
`TAG@ENTRY` (the entry id Redis assigned), so a client that reconnects with `Last-Event-ID` to any
worker gets the events after it, in order, each once, and neither event ids nor key names show the
session id the stream id holds (each entry carries the stream id, checked against its tag, for
the transport's ownership check). A worker that does not run the request follows the stream
(`XREAD BLOCK`) until its final response. Entries that are not JSON-RPC messages are refused
(logged).

An event is kept up to `max_event_bytes` (16 MiB by default, the stdio message limit; Redis itself
takes 512 MB values, so nothing is chunked): over it, an answer is kept as an error saying so (a
client resuming past it gets that error, logged when stored), anything else is not replayed.
"""

from __future__ import annotations

import hashlib
import re
import time
from typing import Any, cast

from mcp.redis._client import RedisConnection, loads_object, refuse
from mcp.server.event_store import (
    DEFAULT_MAX_EVENT_BYTES,
    EventCallback,
    EventId,
    EventMessage,
    EventStore,
    StreamId,
    stand_in,
    wire_message,
)

_EVENT_ID = re.compile(r"^([0-9a-f]{32})@(\d{1,20}-\d{1,20})$")
_FIELD = b"m"
_STREAM_FIELD = b"s"
_MAX_STREAM_ID = 1024


def stream_tag(stream_id: StreamId) -> str:
    """The name of `stream_id` in event ids and keys: a hash, so neither shows the session id the
    stream id holds (a session id is 192 random bits: the hash cannot be reversed)."""
    return hashlib.sha256(b"mcpkit sse stream\x00" + stream_id.encode()).hexdigest()[:32]


class RedisEventStore(EventStore):
    """An `EventStore` on Redis Streams (see the module docstring). `follow_idle` bounds how long
    a follower waits for the next event of a request running elsewhere before ending its
    response (the client may resume again)."""

    _stores_wire_dicts = True

    def __init__(self, connection: RedisConnection, *, max_events_per_stream: int = 1000, ttl: float = 3600.0,
                 follow_idle: float = 60.0, max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES) -> None:
        self.connection = connection
        self.max_events_per_stream = max_events_per_stream
        self.max_event_bytes = max_event_bytes
        self.ttl = ttl
        self.follow_idle = follow_idle

    @classmethod
    def from_url(cls, url: str, *, prefix: str = "mcp", **options: Any) -> RedisEventStore:
        return cls(RedisConnection(url, prefix=prefix), **options)

    def _key(self, tag: str) -> str:
        return self.connection.key("sse", tag)

    async def store_event(self, stream_id: StreamId, message: Any) -> EventId:
        from mcp._protocol.codec import encode_bytes

        data = b""
        if message is not None:
            wire = wire_message(message)
            data = encode_bytes(wire)
            if len(data) > self.max_event_bytes:
                kept = stand_in(wire, len(data), self.max_event_bytes, stream_id)
                data = b"" if kept is None else encode_bytes(kept)
        tag = stream_tag(stream_id)
        key = self._key(tag)

        async def op(r: Any) -> Any:
            async with r.pipeline(transaction=False) as pipe:  # returns its connection to the pool
                pipe.xadd(key, {_FIELD: data, _STREAM_FIELD: stream_id}, maxlen=self.max_events_per_stream,
                          approximate=True)
                pipe.expire(key, int(self.ttl))
                return (await pipe.execute())[0]

        entry = await self.connection.run("store an SSE event", op)
        return f"{tag}@{_text(entry)}"

    async def replay_events_after(self, last_event_id: EventId, send_callback: EventCallback) -> StreamId | None:
        parsed = _EVENT_ID.match(last_event_id)
        if parsed is None:
            return None
        tag, entry = parsed.group(1), parsed.group(2)
        key = self._key(tag)
        found: list[Any] = await self.connection.run(
            "replay SSE events", lambda r: r.xrange(key, min=entry, max="+", count=2 * self.max_events_per_stream + 1))
        if not found or _text(found[0][0]) != entry:
            return None  # never stored here, trimmed, or expired
        stream_id = self._stream_of(tag, key, found[0][1])
        if stream_id is None:
            return None
        for entry_id, fields in found[1:]:
            await self._deliver(tag, key, entry_id, fields, send_callback)
        return stream_id

    @staticmethod
    def _stream_of(tag: str, key: str, fields: Any) -> StreamId | None:
        """The stream id an entry names, if it is the one `tag` stands for (else refused, logged)."""
        raw: Any = cast("dict[Any, Any]", fields).get(_STREAM_FIELD) if isinstance(fields, dict) else None
        stream_id = raw.decode("utf-8", "replace") if isinstance(raw, bytes) and len(raw) <= _MAX_STREAM_ID else None
        if stream_id is None or stream_tag(stream_id) != tag:
            refuse("SSE stream", key, "its entry does not name the stream its key stands for")
            return None
        return stream_id

    async def follow(self, last_event_id: EventId, send_callback: EventCallback) -> None:
        """Send the events stored after `last_event_id` as they arrive, until the request's final
        response or `follow_idle` seconds without an event."""
        parsed = _EVENT_ID.match(last_event_id)
        if parsed is None:
            return
        tag, after = parsed.group(1), parsed.group(2)
        key = self._key(tag)
        idle_until = time.monotonic() + self.follow_idle
        while time.monotonic() < idle_until:
            block = int(min(1.0, max(0.0, idle_until - time.monotonic())) * 1000) or 1
            answer: Any = await self.connection.run(
                "follow SSE events", lambda r, since=after, wait=block: r.xread({key: since}, count=100, block=wait))
            for _stream, entries in answer or ():
                for entry_id, fields in entries:
                    after = _text(entry_id)
                    idle_until = time.monotonic() + self.follow_idle
                    if await self._deliver(tag, key, entry_id, fields, send_callback):
                        return

    async def _deliver(self, tag: str, key: str, entry_id: Any, fields: Any, send: EventCallback) -> bool:
        """Send one entry (priming entries are skipped); True when it was the final response."""
        data: Any = cast("dict[Any, Any]", fields).get(_FIELD) if isinstance(fields, dict) else None
        if data == b"":
            return False
        where = f"{key} {_text(entry_id)}"
        message = loads_object(data, "SSE event", where, limit=self.max_event_bytes)
        if message is None:
            return False
        if message.get("jsonrpc") != "2.0":
            refuse("SSE event", where, "not a JSON-RPC message")
            return False
        await send(EventMessage(cast("Any", message), f"{tag}@{_text(entry_id)}"))
        return "id" in message and ("result" in message or "error" in message)


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
