"""What the endpoint refuses before a message reaches the server: oversized bodies (413, without
reading them), wrong Content-Type (415) or Accept (406), unparsable JSON (-32700) and batches
(-32600). None of it disturbs the sessions already open."""

import json
from collections.abc import AsyncIterator
from typing import Any

import anyio
import pytest
from httpkit import (
    SSEStream,
    asgi_client,
    build_server,
    connect,
    legacy_headers,
    messages_of,
    modern_headers,
    modern_tool_call,
    open_session,
    text_of,
    tool_call,
)

pytestmark = pytest.mark.anyio

LIMIT = 1024


def big_call(size: int) -> bytes:
    return json.dumps(tool_call(9, "echo", {"text": "x" * size})).encode()


class CountingBody:
    """A streamed request body that notes how many chunks the server pulled (the in-process
    transport reads one chunk ahead, to tell the app whether more follows)."""

    def __init__(self, chunk: bytes, count: int) -> None:
        self.chunk = chunk
        self.count = count
        self.pulled = 0

    def __aiter__(self) -> AsyncIterator[bytes]:
        return self

    async def __anext__(self) -> bytes:
        if self.pulled == self.count:
            raise StopAsyncIteration
        self.pulled += 1
        return self.chunk


async def test_a_body_declared_larger_than_the_limit_is_refused_with_413_without_reading_it(wire: str) -> None:
    mcp = build_server()
    body = big_call(4 * LIMIT)
    with anyio.fail_after(20):
        async with connect(wire, mcp.streamable_http_app(max_request_body_size=LIMIT)) as client:
            session_id = await open_session(client)
            response = await client.post("/mcp", content=body, headers=legacy_headers(session_id))
            assert response.status_code == 413
            assert response.json()["error"]["code"] == -32600
            if wire != "uvicorn":  # in-process we can see what the server pulled
                streamed = CountingBody(body, 1)
                response = await client.post("/mcp", content=streamed,
                                             headers={**legacy_headers(session_id), "content-length": str(len(body))})
                assert response.status_code == 413
                assert streamed.pulled == 0
            ok = await client.post("/mcp", json=tool_call(2, "echo", {"text": "still here"}),
                                   headers=legacy_headers(session_id))
            assert text_of(messages_of(ok)[-1]) == "still here"


async def test_a_streamed_body_without_content_length_is_cut_off_at_the_limit(wire: str) -> None:
    mcp = build_server()
    with anyio.fail_after(20):
        async with connect(wire, mcp.streamable_http_app(max_request_body_size=LIMIT)) as client:
            session_id = await open_session(client)
            streamed = CountingBody(b"x" * 256, 40)
            response = await client.post("/mcp", content=streamed, headers=legacy_headers(session_id))
            assert "content-length" not in response.request.headers
            assert response.status_code == 413
            if wire != "uvicorn":
                assert streamed.pulled <= LIMIT // 256 + 2  # stopped reading as soon as it knew
            ok = await client.post("/mcp", json=tool_call(2, "echo", {"text": "fine"}), headers=legacy_headers(session_id))
            assert text_of(messages_of(ok)[-1]) == "fine"


async def test_a_body_at_the_limit_is_accepted(wire: str) -> None:
    mcp = build_server()
    call = tool_call(3, "echo", {"text": ""})
    padding = LIMIT - len(json.dumps(call, separators=(",", ":")).encode())
    body = json.dumps(tool_call(3, "echo", {"text": "y" * padding}), separators=(",", ":")).encode()
    assert len(body) == LIMIT
    with anyio.fail_after(20):
        async with connect(wire, mcp.streamable_http_app(max_request_body_size=LIMIT)) as client:
            session_id = await open_session(client)
            response = await client.post("/mcp", content=body, headers=legacy_headers(session_id))
            assert response.status_code == 200
            assert text_of(messages_of(response)[-1]) == "y" * padding


async def test_the_limit_applies_to_the_2026_wire_too(wire: str) -> None:
    mcp = build_server()
    call = modern_tool_call(1, "echo", {"text": "z" * (2 * LIMIT)})
    with anyio.fail_after(20):
        async with connect(wire, mcp.streamable_http_app(max_request_body_size=LIMIT)) as client:
            response = await client.post("/mcp", json=call, headers=modern_headers(call))
            assert response.status_code == 413


async def test_a_wrong_content_type_is_400_and_charset_parameters_are_fine(wire: str) -> None:
    """As officially: the Content-Type is checked with Host and Origin, a plain-text 400."""
    mcp = build_server()
    with anyio.fail_after(20):
        async with connect(wire, mcp.streamable_http_app()) as client:
            session_id = await open_session(client)
            body = json.dumps(tool_call(2, "echo", {"text": "t"}))
            for content_type in ("text/plain", "application/x-www-form-urlencoded", ""):
                response = await client.post("/mcp", content=body,
                                             headers={**legacy_headers(session_id), "content-type": content_type})
                assert (response.status_code, response.text) == (400, "Invalid Content-Type header"), content_type
            response = await client.post("/mcp", content=body, headers={
                **legacy_headers(session_id), "content-type": "Application/JSON; charset=utf-8"})
            assert response.status_code == 200
            assert text_of(messages_of(response)[-1]) == "t"


async def test_an_accept_header_without_both_json_and_sse_is_406(wire: str) -> None:
    """As officially: an SSE-answering server needs both types accepted (wildcards count)."""
    mcp = build_server()
    with anyio.fail_after(20):
        async with connect(wire, mcp.streamable_http_app()) as client:
            session_id = await open_session(client)
            call = tool_call(2, "echo", {"text": "a"})
            for accept in ("text/html", "application/json", "text/event-stream", "application/*"):
                response = await client.post("/mcp", json=call, headers=legacy_headers(session_id, accept=accept))
                assert response.status_code == 406, accept
                assert response.json()["error"]["message"] == (
                    "Not Acceptable: Client must accept both application/json and text/event-stream")
            for accept in ("*/*", "application/*, text/*"):
                response = await client.post("/mcp", json=call, headers=legacy_headers(session_id, accept=accept))
                assert response.status_code == 200, accept


@pytest.mark.parametrize("body", [b"{not json", b"", b'{"jsonrpc": "2.0", "id": 1, "method": "ping"', b"\xff\xfe"])
async def test_unparsable_json_is_400_with_a_parse_error(wire: str, body: bytes) -> None:
    mcp = build_server()
    with anyio.fail_after(20):
        async with connect(wire, mcp.streamable_http_app()) as client:
            session_id = await open_session(client)
            response = await client.post("/mcp", content=body, headers=legacy_headers(session_id))
            assert response.status_code == 400
            assert response.json()["error"]["code"] == -32700
            assert response.json()["id"] is None


@pytest.mark.parametrize("payload", [
    [{"jsonrpc": "2.0", "id": 1, "method": "ping"}],
    [],
    "a string",
    {"id": 4, "method": "ping"},
    {"jsonrpc": "2.0", "id": 5, "method": 7},
])
async def test_batches_and_malformed_envelopes_are_400_invalid_params(wire: str, payload: object) -> None:
    """As officially: a body that is no single JSON-RPC message fails validation (-32602, id null)."""
    mcp = build_server()
    with anyio.fail_after(20):
        async with connect(wire, mcp.streamable_http_app()) as client:
            session_id = await open_session(client)
            response = await client.post("/mcp", json=payload, headers=legacy_headers(session_id))
            assert response.status_code == 400
            assert response.json()["error"]["code"] == -32602
            assert response.json()["error"]["message"].startswith("Validation error: ")
            assert response.json()["id"] is None


async def test_refused_requests_leave_every_session_working(wire: str) -> None:
    mcp = build_server()
    with anyio.fail_after(20):
        async with connect(wire, mcp.streamable_http_app(max_request_body_size=LIMIT)) as client:
            first = await open_session(client)
            second = await open_session(client)
            bad = [
                dict(content=big_call(2 * LIMIT), headers=legacy_headers(first)),
                dict(content=b"[1, 2]", headers=legacy_headers(first)),
                dict(content=b"{oops", headers=legacy_headers(first)),
                dict(content=b"{}", headers={**legacy_headers(first), "content-type": "text/plain"}),
                dict(content=b"{}", headers=legacy_headers(first, accept="image/png")),
            ]
            for kwargs in bad:
                response = await client.post("/mcp", **kwargs)  # type: ignore[arg-type]
                assert 400 <= response.status_code < 500
            for n, session_id in enumerate((first, second)):
                ok = await client.post("/mcp", json=tool_call(n, "echo", {"text": session_id}),
                                       headers=legacy_headers(session_id))
                assert text_of(messages_of(ok)[-1]) == session_id
            assert mcp.session_manager.session_count == 2


def raw_scope(path: str, query: bytes = b"", headers: list[tuple[bytes, bytes]] | None = None) -> dict[str, Any]:
    return {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST", "scheme": "http",
            "path": path, "raw_path": path.encode(), "query_string": query, "root_path": "",
            "headers": [(b"host", b"127.0.0.1"), (b"content-type", b"application/json"),
                        (b"accept", b"application/json, text/event-stream"), *(headers or [])],
            "server": ("127.0.0.1", 80), "client": ("127.0.0.1", 50000)}


async def drive_half_sent_body(app: Any, scope: dict[str, Any]) -> list[dict[str, Any]]:
    """Call `app` with a body cut off by a disconnect; returns what it sent."""
    events = [{"type": "http.request", "body": b'{"jsonrpc": "2.0", "id"', "more_body": True},
              {"type": "http.disconnect"}]
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return events.pop(0) if events else {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await app(scope, receive, send)
    return sent


@pytest.mark.parametrize("anyio_backend", ["asyncio", "trio"])
async def test_a_client_gone_before_its_body_arrived_is_not_answered_and_breaks_nothing() -> None:
    """Regression (legacy SSE endpoint): the disconnect marker from the body reader was parsed as
    a body, raising out of the ASGI app. (Drives the ASGI apps directly: in-process only.)"""
    mcp = build_server()
    app = mcp.streamable_http_app()
    with anyio.fail_after(20):
        async with asgi_client(app, lifespan=True) as client:
            session_id = await open_session(client)
            scope = raw_scope("/mcp", headers=[(b"mcp-session-id", session_id.encode())])
            assert await drive_half_sent_body(app, scope) == []
            ok = await client.post("/mcp", json=tool_call(2, "echo", {"text": "still"}), headers=legacy_headers(session_id))
            assert text_of(messages_of(ok)[-1]) == "still"

        legacy = build_server().sse_app()
        async with asgi_client(legacy, lifespan=True) as client, \
                client.stream("GET", "/sse", headers={"accept": "text/event-stream"}) as get, SSEStream(get) as stream:
            endpoint = await stream.next_event()
            assert endpoint is not None
            path, _, query = endpoint.data.partition("?")
            assert await drive_half_sent_body(legacy, raw_scope(path, query.encode())) == []
