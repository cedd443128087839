"""What reaches the wire is always valid UTF-8, whatever text a request or a handler carries
(lone surrogates decode from `"\\ud800"` escapes), and SSE text split across chunks anywhere,
even inside a multi-byte character, is read back intact."""

import json
from typing import Any

import anyio
import pytest
from httpkit import (
    build_server,
    connect,
    legacy_headers,
    messages_of,
    modern,
    modern_headers,
    modern_tool_call,
    open_session,
    request,
    tool_call,
)

from mcp._protocol.sse import SSEParser, encode_event

pytestmark = pytest.mark.anyio

LONE = "\ud800"
RAW_LONE = '"\\ud800"'  # how a client writes a lone surrogate in JSON


def raw(message: dict[str, object], text: str) -> bytes:
    """`message` as JSON whose "SURROGATE" placeholder string is a `\\ud800` escape."""
    return json.dumps(message).replace(json.dumps(text), RAW_LONE).encode()


async def test_a_lone_surrogate_in_a_result_goes_out_escaped_in_every_response_shape(wire: str) -> None:
    """Regression: encoding the response as UTF-8 raised, and the call failed (or the ASGI call
    crashed) instead of answering."""
    mcp = build_server()
    with anyio.fail_after(20):
        async with connect(wire, mcp.streamable_http_app()) as client:
            session_id = await open_session(client)
            as_json = await client.post("/mcp", content=raw(tool_call(2, "echo", {"text": "SURROGATE"}), "SURROGATE"),
                                        headers=legacy_headers(session_id))
            assert as_json.status_code == 200
            assert messages_of(as_json)[-1]["result"]["content"][0]["text"] == LONE

            call = modern_tool_call(3, "echo", {"text": "SURROGATE"})
            modern_answer = await client.post("/mcp", content=raw(call, "SURROGATE"), headers=modern_headers(call))
            assert json.loads(modern_answer.content)["result"]["content"][0]["text"] == LONE

            streamed = await client.post("/mcp", content=raw(tool_call(4, "progress", {"steps": 1}, progress_token="SURROGATE"),
                                                             "SURROGATE"), headers=legacy_headers(session_id))
            messages = messages_of(streamed)
            assert messages[0]["params"]["progressToken"] == LONE
            assert messages[-1]["id"] == 4


async def test_an_error_echoing_a_lone_surrogate_id_is_still_answered(wire: str) -> None:
    mcp = build_server()
    with anyio.fail_after(20):
        async with connect(wire, mcp.streamable_http_app()) as client:
            call = modern("SURROGATE", "tools/list")
            headers = {**modern_headers(call), "mcp-method": "ping"}  # a header mismatch: 400 naming the id
            response = await client.post("/mcp", content=raw(call, "SURROGATE"), headers=headers)
            assert response.status_code == 400
            assert json.loads(response.content)["id"] == LONE


async def test_non_ascii_text_travels_intact_on_sse_streams(wire: str) -> None:
    mcp = build_server()
    text = "Zürich ✓ 東京 🙂"
    with anyio.fail_after(20):
        async with connect(wire, mcp.streamable_http_app()) as client:
            session_id = await open_session(client)
            response = await client.post("/mcp", json=tool_call(2, "progress", {"steps": 1}, progress_token=text),
                                         headers=legacy_headers(session_id))
            messages = messages_of(response)
            assert messages[0]["params"]["progressToken"] == text
            assert messages[-1]["id"] == 2


def test_the_sse_parser_reassembles_characters_split_across_chunks() -> None:
    """Regression: each chunk was decoded on its own, so a character split across two chunks
    became two U+FFFD replacement characters."""
    payload = json.dumps({"text": "Zürich ✓ 東京 🙂"}, ensure_ascii=False)
    wire_bytes = encode_event(payload, event_id="7") + encode_event("ünïcode\nline two", event="note")
    for size in (1, 2, 3, 5, 7):
        parser = SSEParser()
        events = []
        for start in range(0, len(wire_bytes), size):
            events.extend(parser.feed(wire_bytes[start:start + size]))
        assert [event.data for event in events] == [payload, "ünïcode\nline two"]
        assert [event.event for event in events] == ["message", "note"]
        assert events[0].id == "7"


def test_encoded_events_accept_bytes_and_text_alike() -> None:
    assert encode_event(b'{"a":1}', event_id="1") == encode_event('{"a":1}', event_id="1")
    assert encode_event(b"x\ny", event=None) == b"data: x\ndata: y\n\n"


@pytest.mark.parametrize("mode", ["json", "sse", "2026"])
async def test_a_result_json_cannot_carry_is_answered_with_an_internal_error(wire: str, mode: str) -> None:
    """Regression: the response channel was marked answered before the result was encoded, so a
    NaN in a result left the POST with no HTTP response at all."""
    import math

    from mcp.server.session import WireResult

    mcp = build_server()

    async def not_json(ctx: Any, params: Any) -> Any:
        if mode == "sse":  # something first, so the answer goes on an SSE stream
            await ctx.session.peer.send_notification("notifications/message", {"level": "info", "data": "first"})
        return WireResult({"value": math.nan})

    mcp._lowlevel_server.add_request_handler("test/not_json", None, not_json)
    with anyio.fail_after(20):
        async with connect(wire, mcp.streamable_http_app()) as client:
            if mode == "2026":
                call = modern(5, "test/not_json")
                response = await client.post("/mcp", json=call, headers=modern_headers(call))
                assert response.status_code == 200  # as officially: the error says what failed
            else:
                session_id = await open_session(client)
                response = await client.post("/mcp", json=request(5, "test/not_json"), headers=legacy_headers(session_id))
                assert response.status_code == 200
            messages = messages_of(response)
            assert messages[-1] == {"jsonrpc": "2.0", "id": 5, "error": {"code": -32603, "message": "Internal error"}}
            if mode == "sse":
                assert messages[0]["method"] == "notifications/message"
