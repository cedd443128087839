"""The server transports wired by hand the way the official SDK documents them: an
`SseServerTransport("/messages/")` with `connect_sse` + `handle_post_message` in a Starlette app,
and a `StreamableHTTPSessionManager` mounted with its `run()` lifespan and `handle_request`."""

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest
from httpkit import (
    SSEStream,
    build_server,
    connect,
    initialize,
    legacy_headers,
    messages_of,
    notification,
    tool_call,
)
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Mount, Route

from mcp.server.sse import SseServerTransport
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings

pytestmark = pytest.mark.anyio

JSON = {"content-type": "application/json"}


class _AlreadyAnswered(Response):
    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        return None


def _sse_app(security: TransportSecuritySettings | None = None, refused: list[str] | None = None) -> Starlette:
    server = build_server()._lowlevel_server
    sse = SseServerTransport("/messages/", security_settings=security)

    async def handle_sse(request: Request) -> Response:
        try:
            async with sse.connect_sse(request.scope, request.receive, request._send) as streams:  # pyright: ignore[reportPrivateUsage]
                await server.run(streams[0], streams[1], server.create_initialization_options())
        except ValueError as exc:  # refused: connect_sse has answered already
            if refused is not None:
                refused.append(str(exc))
        return _AlreadyAnswered()

    return Starlette(routes=[Route("/sse", endpoint=handle_sse, methods=["GET"]),
                             Mount("/messages/", app=sse.handle_post_message)])


async def test_a_hand_wired_sse_transport_serves_a_low_level_server(wire: str) -> None:
    with anyio.fail_after(20):
        async with connect(wire, _sse_app()) as client, \
                client.stream("GET", "/sse", headers={"accept": "text/event-stream"}) as get, SSEStream(get) as stream:
            endpoint = await stream.next_event()
            assert endpoint is not None and endpoint.event == "endpoint"
            url = endpoint.data
            assert url.startswith("/messages/?session_id=")
            assert (await client.post(url, json=initialize(version="2024-11-05"), headers=JSON)).status_code == 202
            answer = await stream.next_message()
            assert answer is not None and answer["result"]["protocolVersion"] == "2024-11-05"
            await client.post(url, json=notification("notifications/initialized"), headers=JSON)
            assert (await client.post(url, json=tool_call(2, "echo", {"text": "hi"}), headers=JSON)).status_code == 202
            echoed = await stream.next_message()
            assert echoed is not None and echoed["id"] == 2
            assert echoed["result"]["content"][0]["text"] == "hi"


async def test_connect_sse_refuses_a_foreign_host(wire: str) -> None:
    security = TransportSecuritySettings(allowed_hosts=["127.0.0.1:*"], allowed_origins=[])
    reasons: list[str] = []
    app = _sse_app(security, reasons)
    with anyio.fail_after(20):
        async with connect(wire, app) as client:
            refused = await client.get("/sse", headers={"host": "evil.example", "accept": "text/event-stream"})
    assert (refused.status_code, refused.text) == (421, "Invalid Host header")
    assert reasons == ["Request validation failed"]


def test_an_sse_endpoint_must_be_a_relative_path() -> None:
    with pytest.raises(ValueError, match="is not a relative path"):
        SseServerTransport("http://example.com/messages/")
    assert SseServerTransport("messages/")._endpoint == "/messages/"  # the official attribute


def _mounted_manager(**options: Any) -> Starlette:
    server = build_server()._lowlevel_server
    manager = StreamableHTTPSessionManager(app=server, **options)

    async def handle(scope: Any, receive: Any, send: Any) -> None:
        await manager.handle_request(scope, receive, send)

    @asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        async with manager.run():
            yield

    return Starlette(routes=[Mount("/mcp", app=handle)], lifespan=lifespan)


async def test_a_mounted_session_manager_serves_sessions(wire: str) -> None:
    with anyio.fail_after(20):
        async with connect(wire, _mounted_manager(json_response=True)) as client:
            opened = await client.post("/mcp/", json=initialize(), headers=legacy_headers(version=None))
            assert opened.status_code == 200, opened.text
            session_id = opened.headers["mcp-session-id"]
            await client.post("/mcp/", json=notification("notifications/initialized"),
                              headers=legacy_headers(session_id))
            called = await client.post("/mcp/", json=tool_call(2, "echo", {"text": "mounted"}),
                                       headers=legacy_headers(session_id))
    assert called.headers["content-type"].startswith("application/json")
    assert messages_of(called)[0]["result"]["content"][0]["text"] == "mounted"


async def test_a_stateless_manager_answers_without_sessions(wire: str) -> None:
    with anyio.fail_after(20):
        async with connect(wire, _mounted_manager(stateless=True, json_response=True)) as client:
            called = await client.post("/mcp/", json=tool_call(1, "echo", {"text": "alone"}),
                                       headers=legacy_headers())
    assert "mcp-session-id" not in called.headers
    assert messages_of(called)[0]["result"]["content"][0]["text"] == "alone"
