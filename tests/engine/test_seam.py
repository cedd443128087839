"""The session/transport seam (`mcp._engine.seam`): users see `JSONRPCMessage` models, the
engine sees wire dicts, and each side gets its own form whichever side wrote."""

from __future__ import annotations

import math
from typing import Any

import anyio
import pytest
from pydantic import ValidationError

from mcp._engine.peer import Peer
from mcp._engine.seam import WireReceiveStream, WireSendStream, wire_reader, wire_writer
from mcp.shared.memory import create_client_server_memory_streams
from mcp.shared.message import SessionMessage
from mcp.types import JSONRPCNotification, JSONRPCRequest, JSONRPCResponse

pytestmark = pytest.mark.anyio

PING = {"jsonrpc": "2.0", "id": 7, "method": "ping"}


async def test_a_model_a_user_sends_reaches_the_engine_as_the_wire_dict() -> None:
    async with create_client_server_memory_streams() as ((_, client_write), (server_read, _)):
        await client_write.send(SessionMessage(JSONRPCRequest(jsonrpc="2.0", id=7, method="ping")))
        item = await server_read.receive_wire()
    assert isinstance(item, SessionMessage)
    assert item.message == PING


async def test_a_dict_the_engine_sends_reaches_the_user_as_a_model() -> None:
    async with create_client_server_memory_streams() as ((client_read, _), (_, server_write)):
        await server_write.send_wire(SessionMessage({"jsonrpc": "2.0", "id": 7, "result": {}}))
        item = await client_read.receive()
    assert isinstance(item, SessionMessage)
    assert item.message == JSONRPCResponse(jsonrpc="2.0", id=7, result={})


async def test_a_dict_that_is_no_jsonrpc_message_reaches_the_user_as_the_validation_error() -> None:
    send, receive = anyio.create_memory_object_stream[Any](1)
    with send, receive:
        send.send_nowait(SessionMessage({"jsonrpc": "2.0", "neither": "request nor response"}))
        assert isinstance(WireReceiveStream(receive).receive_nowait(), ValidationError)


def test_our_streams_are_used_as_they_are_and_a_users_are_adapted() -> None:
    send, receive = anyio.create_memory_object_stream[Any](1)
    with send, receive:
        ours_read, ours_write = WireReceiveStream(receive), WireSendStream(send)
        assert wire_reader(ours_read) is ours_read
        assert wire_writer(ours_write) is ours_write
        assert wire_reader(receive) is not receive
        assert wire_writer(send) is not send


async def test_an_engine_over_a_users_plain_streams_reads_and_writes_models() -> None:
    """A user's own anyio streams (not ours) carry models both ways, as with the official SDK."""
    to_engine, engine_inbox = anyio.create_memory_object_stream[Any](math.inf)
    engine_outbox, from_engine = anyio.create_memory_object_stream[Any](math.inf)

    async def on_request(message: dict[str, Any], metadata: Any) -> None:
        assert message == PING  # the engine got the wire dict
        await peer.send_notification("notifications/message", {"level": "info", "data": "pong"})
        await peer.send({"jsonrpc": "2.0", "id": message["id"], "result": {}})

    async def ignore(message: dict[str, Any], metadata: Any) -> None:
        return None

    peer = Peer(engine_inbox, engine_outbox, role="server", on_request=on_request, on_notification=ignore)
    with from_engine:
        async with anyio.create_task_group() as tg:
            tg.start_soon(peer.run)
            with anyio.fail_after(5):
                await to_engine.send(SessionMessage(JSONRPCRequest(jsonrpc="2.0", id=7, method="ping")))
                first, second = await from_engine.receive(), await from_engine.receive()
            to_engine.close()
        engine_outbox.close()
    assert isinstance(first.message, JSONRPCNotification)
    assert first.message.method == "notifications/message"
    assert second.message == JSONRPCResponse(jsonrpc="2.0", id=7, result={})
