"""Resumability of the Streamable HTTP front door: with an event store, every event of a session is
stored (its GET stream's too) and stamped with its id; POST streams open with a priming event
(clients from 2025-11-25 on), and `GET` + `Last-Event-ID` (from the same session only) replays
what was missed and re-attaches to the live stream. The store is given `JSONRPCMessage`s (the
official contract; ours take wire dicts)."""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from contextlib import suppress
from typing import TYPE_CHECKING, Any, Final, cast

import anyio

from mcp._engine.seam import WireWriter
from mcp._protocol.codec import encode_bytes
from mcp._protocol.sse import encode_event
from mcp.server._http.asgi import GONE, SSE_HEADERS, Receive, Send, cancel_on_disconnect, send_error
from mcp.server._http.shared_sessions import StoreUnavailable
from mcp.server.event_store import (
    EventId,
    EventMessage,
    EventStore,
    StreamId,
    message_for_store,
    wire_message,
)
from mcp.shared.message import SessionMessage

if TYPE_CHECKING:
    from mcp.server._http.channel import ResponseChannel
    from mcp.server._http.sessions import HttpSession

logger = logging.getLogger("mcp.server.http")

GET_STREAM_KEY: Final = "_GET_stream"
"""The stream id under which an event store keeps a session's standalone GET stream."""
PRIMING_SINCE: Final = "2025-11-25"
"""The first revision whose clients understand a priming event (an id with empty data)."""
STANDALONE_STREAM_SUFFIX: Final = "/0"
"""A session's GET stream, in the event store, is `<session id>/0` (POST streams get a random hex
suffix): the session prefix lets a resumption be checked against the session asking."""


class Stamp:
    """A standalone message's event id, riding to the GET stream as its `SessionMessage` metadata."""

    __slots__ = ("event_id",)

    def __init__(self, event_id: EventId | None) -> None:
        self.event_id = event_id


class StoringOutbox(WireWriter):
    """The queue of a session's GET stream, with an event store: every message outside a request
    is stored as it is produced (so event ids follow production order, as officially, whether or
    not a GET stream is open) and carries its event id to the GET stream. Beyond the queue's room
    (no client reading) a message is dropped, with a warning, after being stored."""

    __slots__ = ("_queue", "_store", "stream_id")

    def __init__(self, queue: Any, store: EventStore, stream_id: StreamId) -> None:
        self._queue = queue
        self._store = store
        self.stream_id = stream_id

    def send_wire_nowait(self, item: SessionMessage) -> None:
        raise anyio.WouldBlock  # storing takes an await: the sender takes `send_wire`

    async def send_wire(self, item: SessionMessage) -> None:
        message: Any = item.message
        event_id: EventId | None = None
        try:
            event_id = await self._store.store_event(self.stream_id, message_for_store(self._store, message))
        except StoreUnavailable:
            logger.warning("SSE event of stream %s not stored: the event store is unreachable", self.stream_id)
        try:
            self._queue.send_nowait(SessionMessage(message, Stamp(event_id)))
        except anyio.WouldBlock:
            logger.warning("dropping %s: no client is reading the session's GET stream",
                           cast("dict[str, Any]", message).get("method") if type(message) is dict else "a message")

    def close(self) -> None:
        self._queue.close()


async def replay(store: EventStore, live: Mapping[str, ResponseChannel], session: HttpSession, send: Send,
                 receive: Receive, last_event_id: str, *, priming: bool) -> None:
    """Resume a POST stream of `session`: replay what the client missed, then stay attached to
    the live request (its channel in `live`, by stream id) until its final response, or end at
    once when it is already finished. An event id the store does not know, or one of another
    session's stream, gets an empty stream (as officially for the former). Re-attaching to a live
    request opens with a fresh priming event for clients that understand one (`priming`)."""
    missed: list[EventMessage] = []

    async def collect(event: EventMessage) -> None:
        missed.append(event)

    try:
        stream = await store.replay_events_after(last_event_id, collect)
    except StoreUnavailable as exc:
        await send_error(send, 503, None, exc.code, exc.message)
        return
    if stream is None or not stream.startswith(session.id + "/"):
        with suppress(*GONE):
            await send({"type": "http.response.start", "status": 200, "headers": SSE_HEADERS + session.headers})
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        return
    ended = False
    last_seen = last_event_id

    async def emit() -> None:
        nonlocal ended, last_seen
        events, missed[:] = list(missed), []
        for event in events:
            if ended:
                return
            last_seen = event.event_id
            message = wire_message(event.message)
            ended = "result" in message or "error" in message
            await send({"type": "http.response.body", "more_body": not ended,
                        "body": encode_event(encode_bytes(message), event_id=event.event_id)})

    async def catch_up() -> bool:
        # events stored since the first replay (a replayed event always carries its id)
        await store.replay_events_after(cast("EventId", last_seen), collect)
        await emit()
        return ended

    session.connections += 1
    try:
        await send({"type": "http.response.start", "status": 200, "headers": SSE_HEADERS + session.headers})
        await emit()
        channel = live.get(stream)
        attached = False
        if not ended:
            if channel is not None:
                attached = await channel.reattach(send, catch_up, priming=priming)
            else:
                await catch_up()  # the request ended meanwhile
                follow: Any = getattr(store, "follow", None)
                """A shared store (Redis Streams) can follow a stream another worker is writing."""
                if not ended and follow is not None:

                    async def follow_live(event: EventMessage) -> None:
                        missed.append(event)
                        await emit()

                    async with anyio.create_task_group() as tg:
                        tg.start_soon(cancel_on_disconnect, receive, tg.cancel_scope)
                        await follow(last_seen, follow_live)
                        tg.cancel_scope.cancel()
        if attached:
            assert channel is not None
            try:
                async with anyio.create_task_group() as tg:
                    tg.start_soon(cancel_on_disconnect, receive, tg.cancel_scope)
                    await channel.finished.wait()
                    tg.cancel_scope.cancel()
            finally:
                channel.detach(send)
            return
        if not ended:
            await send({"type": "http.response.body", "body": b"", "more_body": False})
    except GONE:
        pass
    except StoreUnavailable:  # the stream ends; the client resumes once the store is back
        logger.warning("resumed stream %s ended: the event store is unreachable", stream)
        with anyio.CancelScope(shield=True):
            with suppress(*GONE):
                await send({"type": "http.response.body", "body": b"", "more_body": False})
    finally:
        session.connections -= 1
        session.last_active = time.monotonic()
