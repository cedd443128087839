"""A client opened while a server serves a request (a proxy's connection to its backend, as FastMCP's
`ProxyClient` opens one inside the front request) talks to its own server over its own transport.

The context a handler runs in is inherited by the tasks it starts, the client's among them; the
route back to the front request's caller belongs to the engine serving that request alone
(`mcp._engine.calls.current_metadata`), so the client's `initialize`, its calls and the headers
its HTTP client was given go to the backend, while the handler's own progress still reaches the
front caller. Real uvicorn servers on loopback, front and backend.
"""

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import anyio
import pytest
from tests.client.test_streamable_http_client import Recorder
from tests.server.http.httpkit import serving

from mcp import Client, ClientSession
from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client
from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.types import CallToolResult, TextContent

pytestmark = pytest.mark.anyio

MODES = ["legacy", "auto"]


def text_of(result: CallToolResult) -> str:
    content = result.content[0]
    assert isinstance(content, TextContent)
    return content.text


def build_backend() -> MCPServer:
    backend = MCPServer("backend")

    @backend.tool()
    def echo(text: str, ctx: Context) -> str:
        """The text, with the `X-Backend` header of the HTTP request that carried the call."""
        request: Any = ctx.request_context.request
        return f"{text} (x-backend: {request.headers.get('x-backend')})"

    return backend


def build_front(backend_url: str) -> MCPServer:
    front = MCPServer("front")

    @front.tool()
    async def relay_session(text: str, ctx: Context) -> str:
        """Call the backend's echo over a `ClientSession` on an HTTP client given headers, between
        two progress notifications to the front caller (FastMCP's proxy path)."""
        await ctx.report_progress(1, 2, "before the backend")
        http = create_mcp_http_client(headers={"X-Backend": "configured"})
        async with (
            http,
            streamable_http_client(backend_url, http_client=http) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            answer = text_of(await session.call_tool("echo", {"text": text}))
        await ctx.report_progress(2, 2, "after the backend")
        return f"backend said {answer}"

    @front.tool()
    async def relay_client(text: str) -> str:
        """Call the backend's echo with a `Client` on the 2026-07-28 wire."""
        async with Client(backend_url, mode="auto") as client:
            return f"backend said {text_of(await client.call_tool('echo', {'text': text}))}"

    return front


@contextmanager
def front_and_backend(recorder: Recorder) -> Iterator[str]:
    """A backend (its HTTP requests noted by `recorder`) and a front server calling it; yields the
    front's MCP endpoint."""
    with serving(lambda: recorder.wrap(build_backend().streamable_http_app())) as backend:
        make_front: Callable[[], Any] = lambda: build_front(f"{backend}/mcp").streamable_http_app()  # noqa: E731
        with serving(make_front) as front:
            yield f"{front}/mcp"


@pytest.mark.parametrize("mode", MODES)
async def test_a_session_opened_in_a_handler_initializes_with_its_own_server_and_its_own_headers(mode: str) -> None:
    recorder = Recorder()
    progress: list[tuple[float, float | None, str | None]] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append((done, total, message))

    with front_and_backend(recorder) as front, anyio.fail_after(20):
        async with Client(front, mode=mode) as client:
            result = await client.call_tool("relay_session", {"text": "hi"}, progress_callback=on_progress)
    assert text_of(result) == "backend said hi (x-backend: configured)"
    assert progress == [(1, 2, "before the backend"), (2, 2, "after the backend")]
    posts = [headers for method, headers in recorder.requests if method == "POST"]
    assert len(posts) >= 3  # initialize, notifications/initialized, tools/call: all at the backend
    assert "mcp-session-id" not in posts[0]  # the backend's own handshake, not the front's
    assert all(headers["x-backend"] == "configured" for headers in posts)
    assert all(headers["mcp-session-id"] == posts[1]["mcp-session-id"] for headers in posts[1:])


@pytest.mark.parametrize("mode", MODES)
async def test_a_client_opened_in_a_handler_sends_its_2026_routing_headers_to_its_own_server(mode: str) -> None:
    recorder = Recorder()
    with front_and_backend(recorder) as front, anyio.fail_after(20):
        async with Client(front, mode=mode) as client:
            result = await client.call_tool("relay_client", {"text": "hi"})
    assert text_of(result) == "backend said hi (x-backend: None)"
    routed = [(headers.get("mcp-method"), headers.get("mcp-name")) for _, headers in recorder.requests]
    assert routed[0] == ("server/discover", None)
    assert ("tools/call", "echo") in routed
    assert all(headers["mcp-protocol-version"] == "2026-07-28" for _, headers in recorder.requests)
