"""`RedisEventStore`: resumable SSE across workers, on Redis Streams.

Each SSE stream is a Redis stream `PREFIX:sse:STREAM` (trimmed to about `max_events_per_stream`,
expiring `ttl` seconds after its last event); an event id is `STREAM@ENTRY` (the entry id Redis
assigned), so a client that reconnects with `Last-Event-ID` to any worker gets the events after
it, in order, each once. A worker that does not run the request follows the stream (`XREAD
BLOCK`) until its final response. Entries that are not JSON-RPC messages are refused (logged).
"""

from __future__ import annotations

import re
import time
from typing import Any, cast

from mcp.redis._client import RedisConnection, loads_object, refuse
from mcp.server.event_store import EventCallback, EventId, EventMessage, EventStore, StreamId, wire_message

_EVENT_ID = re.compile(r"^([A-Za-z0-9_\-]{0,256}/[0-9a-f]{1,64})@(\d{1,20}-\d{1,20})$")
_FIELD = b"m"


class RedisEventStore(EventStore):
    """An `EventStore` on Redis Streams (see the module docstring). `follow_idle` bounds how long
    a follower waits for the next event of a request running elsewhere before ending its
    response (the client may resume again)."""

    _stores_wire_dicts = True

    def __init__(self, connection: RedisConnection, *, max_events_per_stream: int = 1000, ttl: float = 3600.0,
                 follow_idle: float = 60.0) -> None:
        self.connection = connection
        self.max_events_per_stream = max_events_per_stream
        self.ttl = ttl
        self.follow_idle = follow_idle

    @classmethod
    def from_url(cls, url: str, *, prefix: str = "mcp", **options: Any) -> RedisEventStore:
        return cls(RedisConnection(url, prefix=prefix), **options)

    def _key(self, stream_id: StreamId) -> str:
        return self.connection.key("sse", stream_id)

    async def store_event(self, stream_id: StreamId, message: Any) -> EventId:
        from mcp._protocol.codec import encode_bytes

        data = b"" if message is None else encode_bytes(wire_message(message))
        key = self._key(stream_id)

        async def op(r: Any) -> Any:
            async with r.pipeline(transaction=False) as pipe:  # returns its connection to the pool
                pipe.xadd(key, {_FIELD: data}, maxlen=self.max_events_per_stream, approximate=True)
                pipe.expire(key, int(self.ttl))
                return (await pipe.execute())[0]

        entry = await self.connection.run("store an SSE event", op)
        return f"{stream_id}@{_text(entry)}"

    async def replay_events_after(self, last_event_id: EventId, send_callback: EventCallback) -> StreamId | None:
        parsed = _EVENT_ID.match(last_event_id)
        if parsed is None:
            return None
        stream_id, entry = parsed.group(1), parsed.group(2)
        key = self._key(stream_id)
        found: list[Any] = await self.connection.run(
            "replay SSE events", lambda r: r.xrange(key, min=entry, max="+", count=2 * self.max_events_per_stream + 1))
        if not found or _text(found[0][0]) != entry:
            return None  # never stored here, trimmed, or expired
        for entry_id, fields in found[1:]:
            await self._deliver(stream_id, key, entry_id, fields, send_callback)
        return stream_id

    async def follow(self, last_event_id: EventId, send_callback: EventCallback) -> None:
        """Send the events stored after `last_event_id` as they arrive, until the request's final
        response or `follow_idle` seconds without an event."""
        parsed = _EVENT_ID.match(last_event_id)
        if parsed is None:
            return
        stream_id, after = parsed.group(1), parsed.group(2)
        key = self._key(stream_id)
        idle_until = time.monotonic() + self.follow_idle
        while time.monotonic() < idle_until:
            block = int(min(1.0, max(0.0, idle_until - time.monotonic())) * 1000) or 1
            answer: Any = await self.connection.run(
                "follow SSE events", lambda r, since=after, wait=block: r.xread({key: since}, count=100, block=wait))
            for _stream, entries in answer or ():
                for entry_id, fields in entries:
                    after = _text(entry_id)
                    idle_until = time.monotonic() + self.follow_idle
                    if await self._deliver(stream_id, key, entry_id, fields, send_callback):
                        return

    async def _deliver(self, stream_id: str, key: str, entry_id: Any, fields: Any, send: EventCallback) -> bool:
        """Send one entry (priming entries are skipped); True when it was the final response."""
        data: Any = cast("dict[Any, Any]", fields).get(_FIELD) if isinstance(fields, dict) else None
        if data == b"":
            return False
        where = f"{key} {_text(entry_id)}"
        message = loads_object(data, "SSE event", where)
        if message is None:
            return False
        if message.get("jsonrpc") != "2.0":
            refuse("SSE event", where, "not a JSON-RPC message")
            return False
        await send(EventMessage(cast("Any", message), f"{stream_id}@{_text(entry_id)}"))
        return "id" in message and ("result" in message or "error" in message)


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
