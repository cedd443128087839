"""The explicit resumption API of the Streamable HTTP client, as officially: a request's
`ClientMessageMetadata.on_resumption_token_update` is told every event id its streams bring; a
request sent with `resumption_token` is a GET with `Last-Event-ID` whose replayed answer answers
it; and a request carrying either hint, when abandoned, is not cancelled on the server (it can
still be resumed)."""

from typing import Any

import anyio
import pytest
from tests.client.test_streamable_http_client import ScriptedServer, _answer_of, _progress
from tests.server.http.httpkit import serving as running

from mcp import MCPError
from mcp._protocol.codec import encode
from mcp._protocol.sse import encode_event
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.message import ClientMessageMetadata, SessionMessage
from mcp.types import CallToolRequest, CallToolRequestParams, CallToolResult
from mcp.types.jsonrpc import REQUEST_TIMEOUT

pytestmark = pytest.mark.anyio


def _call(request_id: int) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {"name": "hold", "arguments": {}}}


def _result(request_id: int) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "result": {"content": []}}


async def test_every_event_id_of_a_requests_streams_reaches_its_token_callback() -> None:
    first = [encode_event("", event=None, event_id="e0", retry=10),  # priming: its id is a token too
             encode_event(encode(_progress(1)), event_id="e1"),
             encode_event("", event="keepalive", event_id="e9")]  # not a message event: no token
    resumed = [encode_event(encode(_progress(2)), event_id="e2"), encode_event(encode(_result(1)), event_id="e3")]
    app = ScriptedServer(first, lambda headers: (200, resumed))
    tokens: list[str] = []

    async def on_token(token: str) -> None:
        tokens.append(token)

    with running(lambda: app) as base, anyio.fail_after(20):
        async with streamable_http_client(f"{base}/mcp") as (read, write):
            await write.send(SessionMessage(_call(1), ClientMessageMetadata(on_resumption_token_update=on_token)))
            _, answer = await _answer_of(read, 1)
    assert answer["result"] == {"content": []}
    assert tokens == ["e0", "e1", "e2", "e3"]


async def test_a_request_sent_with_a_token_replays_that_stream_and_takes_its_answer() -> None:
    replay = [encode_event(encode(_progress(2)), event_id="e2"), encode_event(encode(_result(41)), event_id="e3")]
    app = ScriptedServer([], lambda headers: (200, replay if headers.get("last-event-id") == "e1" else []))
    tokens: list[str] = []

    async def on_token(token: str) -> None:
        tokens.append(token)

    metadata = ClientMessageMetadata(resumption_token="e1", on_resumption_token_update=on_token)
    with running(lambda: app) as base, anyio.fail_after(20):
        async with streamable_http_client(f"{base}/mcp", terminate_on_close=False) as (read, write):
            await write.send(SessionMessage(_call(7), metadata))
            others, answer = await _answer_of(read, 7)
    assert answer == {"jsonrpc": "2.0", "id": 7, "result": {"content": []}}  # the replayed id 41, remapped
    assert others == [_progress(2)]
    assert app.posts == []
    assert [headers["last-event-id"] for headers in app.gets] == ["e1"]
    assert tokens == ["e2", "e3"]


async def test_a_resumption_token_the_server_refuses_fails_the_request() -> None:
    app = ScriptedServer([], lambda headers: (404, None))
    with running(lambda: app) as base, anyio.fail_after(20):
        async with streamable_http_client(f"{base}/mcp", terminate_on_close=False) as (read, write):
            await write.send(SessionMessage(_call(3), ClientMessageMetadata(resumption_token="gone")))
            _, answer = await _answer_of(read, 3)
    assert "HTTP 404" in answer["error"]["message"]


@pytest.mark.parametrize("metadata", [ClientMessageMetadata(on_resumption_token_update=lambda token: anyio.sleep(0)),
                                      ClientMessageMetadata(resumption_token="e1"), None])
async def test_an_abandoned_request_is_cancelled_on_the_server_unless_it_can_be_resumed(
    metadata: ClientMessageMetadata | None,
) -> None:
    client_write, server_read = anyio.create_memory_object_stream[SessionMessage](16)
    server_write, client_read = anyio.create_memory_object_stream[Any](16)
    call = CallToolRequest(params=CallToolRequestParams(name="hold", arguments={}))
    async with server_read, server_write, ClientSession(client_read, client_write) as session:
        with anyio.fail_after(5), pytest.raises(MCPError) as info:
            await session.send_request(call, CallToolResult, 0.05, metadata)
        assert info.value.error.code == REQUEST_TIMEOUT
        sent: list[str] = []
        while True:
            try:
                sent.append(server_read.receive_nowait().message.method)
            except anyio.WouldBlock:
                break
    resumable = metadata is not None
    assert sent == (["tools/call"] if resumable else ["tools/call", "notifications/cancelled"])
