"""The legacy HTTP+SSE transport (`sse_app()`): a GET stream whose first event names the URL to
POST messages to; every POST is accepted with 202 and answered on the stream."""

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import httpx
import pytest
from httpkit import (
    SSEStream,
    build_server,
    connect,
    initialize,
    notification,
    text_of,
    tool_call,
)
from starlette.applications import Starlette
from starlette.routing import Mount

from mcp.server import MCPServer
from mcp.server.mcpserver import Context

pytestmark = pytest.mark.anyio

JSON = {"content-type": "application/json"}


@asynccontextmanager
async def sse_session(client: httpx.AsyncClient, path: str = "/sse") -> AsyncIterator[tuple[SSEStream, str]]:
    """Open the SSE stream; yields it and the message URL from its endpoint event."""
    async with client.stream("GET", path, headers={"accept": "text/event-stream"}) as get, SSEStream(get) as stream:
        assert get.status_code == 200
        assert get.headers["content-type"].startswith("text/event-stream")
        assert get.headers["x-accel-buffering"] == "no"
        assert "no-cache" in get.headers["cache-control"]
        endpoint = await stream.next_event()
        assert endpoint is not None and endpoint.event == "endpoint"
        yield stream, endpoint.data


async def initialize_over(client: httpx.AsyncClient, stream: SSEStream, url: str) -> None:
    accepted = await client.post(url, json=initialize(version="2024-11-05"), headers=JSON)
    assert accepted.status_code == 202
    answer = await stream.next_message()
    assert answer is not None and answer["result"]["protocolVersion"] == "2024-11-05"
    assert (await client.post(url, json=notification("notifications/initialized"), headers=JSON)).status_code == 202


async def test_posts_are_accepted_with_202_and_answered_on_the_event_stream(wire: str) -> None:
    mcp = build_server()
    with anyio.fail_after(20):
        async with connect(wire, mcp.sse_app()) as client, sse_session(client) as (stream, url):
            assert url.startswith("/messages/?session_id=")
            await initialize_over(client, stream, url)
            accepted = await client.post(url, json=tool_call(2, "progress", {"steps": 2}, progress_token="p"), headers=JSON)
            assert accepted.status_code == 202
            messages = [await stream.next_message() for _ in range(3)]
            assert [m["params"]["progress"] for m in messages[:2] if m is not None] == [1, 2]
            assert messages[2] is not None and text_of(messages[2]) == "counted 2"


async def test_an_unknown_or_missing_session_is_refused(wire: str) -> None:
    mcp = build_server()
    with anyio.fail_after(20):
        async with connect(wire, mcp.sse_app()) as client:
            unknown = await client.post("/messages/?session_id=0123456789abcdef", json=tool_call(1, "echo"), headers=JSON)
            assert unknown.status_code == 404
            missing = await client.post("/messages/", json=tool_call(1, "echo"), headers=JSON)
            assert missing.status_code == 400


async def test_an_oversized_or_unparsable_body_is_refused_and_the_session_survives(wire: str) -> None:
    mcp = build_server()
    with anyio.fail_after(20):
        async with connect(wire, mcp.sse_app(max_request_body_size=512)) as client, \
                sse_session(client) as (stream, url):
            await initialize_over(client, stream, url)
            too_big = await client.post(url, json=tool_call(2, "echo", {"text": "x" * 1000}), headers=JSON)
            assert too_big.status_code == 413
            garbage = await client.post(url, content=b"{nope", headers=JSON)
            assert garbage.status_code == 400
            ok = await client.post(url, json=tool_call(3, "echo", {"text": "fine"}), headers=JSON)
            assert ok.status_code == 202
            answer = await stream.next_message()
            assert answer is not None and answer["id"] == 3 and text_of(answer) == "fine"


async def test_a_session_ends_with_its_event_stream(wire: str) -> None:
    mcp = build_server()
    app = mcp.sse_app()
    with anyio.fail_after(20):
        async with connect(wire, app) as client:
            async with sse_session(client) as (stream, url):
                await initialize_over(client, stream, url)
            with anyio.fail_after(5):
                while True:  # the server notices the disconnect shortly after
                    response = await client.post(url, json=tool_call(9, "echo", {"text": "late"}), headers=JSON)
                    if response.status_code == 404:
                        break
                    await anyio.sleep(0.01)


async def test_the_legacy_transport_checks_host_and_origin(wire: str) -> None:
    mcp = build_server()
    with anyio.fail_after(20):
        async with connect(wire, mcp.sse_app()) as client:
            get = await client.get("/sse", headers={"host": "evil.example.com", "accept": "text/event-stream"})
            assert get.status_code == 421
            assert get.text == "Invalid Host header"
            post = await client.post("/messages/?session_id=x", json={}, headers={**JSON, "origin": "http://evil.example"})
            assert post.status_code == 403


async def test_a_mounted_legacy_app_names_its_full_message_url_and_enters_the_lifespan_on_first_use(wire: str) -> None:
    """Regression: without the app's lifespan the server lifespan was never entered, and tools
    reading their lifespan state got None."""
    entered: list[int] = []

    @asynccontextmanager
    async def lifespan(server: MCPServer) -> AsyncIterator[dict[str, Any]]:
        entered.append(1)
        yield {"greeting": "from the lifespan"}

    mcp = MCPServer("legacy", lifespan=lifespan)

    @mcp.tool()
    def greet(ctx: Context) -> str:
        """Lifespan state."""
        return ctx.request_context.lifespan_context["greeting"]

    host = Starlette(routes=[Mount("/legacy", app=mcp.sse_app())])
    with anyio.fail_after(20):
        async with connect(wire, host, lifespan=False) as client, sse_session(client, "/legacy/sse") as (stream, url):
            assert url.startswith("/legacy/messages/?session_id=")
            await initialize_over(client, stream, url)
            assert (await client.post(url, json=tool_call(2, "greet"), headers=JSON)).status_code == 202
            answer = await stream.next_message()
            assert answer is not None and text_of(answer) == "from the lifespan"
            assert entered == [1]
