"""`sse_client`: the legacy HTTP+SSE transport (2024-11-05) against a real uvicorn server running
`MCPServer.sse_app()`, plus scripted servers for hostile or broken endpoints.

uvicorn runs on its own asyncio loop in a background thread, so the client side runs on both
anyio backends.
"""

from collections.abc import Callable
from typing import Any

import anyio
import httpx2
import pytest
from pydantic import BaseModel
from tests.server.http.httpkit import serving as running

from mcp import Client, MCPError
from mcp._protocol.sse import encode_event
from mcp.client.sse import sse_client
from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.shared.message import SessionMessage
from mcp.types import ElicitResult, JSONRPCNotification
from mcp.types.jsonrpc import CONNECTION_CLOSED

pytestmark = pytest.mark.anyio

server_stream_leak = pytest.mark.filterwarnings(
    "ignore:Exception ignored in. <function MemoryObjectReceiveStream.__del__:pytest.PytestUnraisableExceptionWarning"
)
"""Known server bug (reported): `SseServerTransport.handle_sse` (src/mcp/server/sse.py) never
closes `out_recv`, so every legacy SSE connection warns `Unclosed <MemoryObjectReceiveStream>`
when collected. Only the tests running the real server carry this; the scripted-server tests keep
the default (error), so leaks of the client itself still fail. Remove once the server is fixed."""

Scope = dict[str, Any]
ASGIApp = Callable[..., Any]


class Form(BaseModel):
    name: str


def build_server() -> MCPServer:
    mcp = MCPServer("sse-test")

    @mcp.tool()
    def echo(text: str) -> str:
        """Return the text."""
        return text

    @mcp.tool()
    async def count(steps: int, ctx: Context) -> str:
        """Report progress once per step."""
        for step in range(1, steps + 1):
            await ctx.report_progress(step, steps, f"step {step}")
        return f"counted {steps}"

    @mcp.tool()
    async def ask_name(ctx: Context) -> str:
        """Elicit a name from the user."""
        answer = await ctx.elicit("Your name?", Form)
        return f"hello {answer.data.name}" if answer.action == "accept" else answer.action

    return mcp


# -- against the real legacy server ----------------------------------------------------------------


@server_stream_leak
@pytest.mark.parametrize(("mode", "version"), [("legacy", "2025-11-25"), ("auto", "2026-07-28")])
async def test_a_client_lists_and_calls_tools_over_the_legacy_sse_transport(mode: str, version: str) -> None:
    mcp = build_server()
    with running(lambda: mcp.sse_app()) as base, anyio.fail_after(20):
        async with Client(sse_client(f"{base}/sse"), mode=mode) as client:
            assert client.protocol_version == version
            assert client.server_info is not None and client.server_info.name == "sse-test"
            tools = await client.list_tools()
            assert {tool.name for tool in tools.tools} == {"echo", "count", "ask_name"}
            result = await client.call_tool("echo", {"text": "over sse"})
            assert result.content[0].text == "over sse"


@server_stream_leak
async def test_calls_made_at_once_over_sse_all_complete() -> None:
    mcp = build_server()
    results: list[str] = []
    with running(lambda: mcp.sse_app()) as base, anyio.fail_after(20):
        async with Client(sse_client(f"{base}/sse"), mode="legacy") as client:

            async def call(index: int) -> None:
                result = await client.call_tool("echo", {"text": str(index)})
                results.append(result.content[0].text)

            async with anyio.create_task_group() as tg:
                for index in range(16):
                    tg.start_soon(call, index)
    assert sorted(results, key=int) == [str(index) for index in range(16)]


@server_stream_leak
async def test_progress_notifications_arrive_over_the_event_stream() -> None:
    mcp = build_server()
    seen: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))

    with running(lambda: mcp.sse_app()) as base, anyio.fail_after(20):
        async with Client(sse_client(f"{base}/sse"), mode="legacy") as client:
            result = await client.call_tool("count", {"steps": 2}, progress_callback=on_progress)
            assert result.content[0].text == "counted 2"
    assert seen == [(1, 2, "step 1"), (2, 2, "step 2")]


@server_stream_leak
async def test_a_server_to_client_request_is_answered_over_the_post_endpoint() -> None:
    mcp = build_server()

    async def elicit(context: Any, params: Any) -> ElicitResult:
        return ElicitResult(action="accept", content={"name": "Grace"})

    with running(lambda: mcp.sse_app()) as base, anyio.fail_after(20):
        async with Client(sse_client(f"{base}/sse"), mode="legacy", elicitation_callback=elicit) as client:
            result = await client.call_tool("ask_name", {})
            assert result.content[0].text == "hello Grace"


@server_stream_leak
@pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")
async def test_on_session_created_receives_the_session_id_of_the_endpoint() -> None:
    mcp = build_server()
    created: list[str] = []
    with running(lambda: mcp.sse_app()) as base, anyio.fail_after(20):
        async with Client(sse_client(f"{base}/sse", on_session_created=created.append), mode="legacy") as client:
            await client.send_ping()
    assert len(created) == 1 and len(created[0]) == 32


@server_stream_leak
async def test_a_refused_post_fails_that_request_with_an_mcp_error_and_the_connection_survives() -> None:
    mcp = build_server()
    with running(lambda: mcp.sse_app(max_request_body_size=4096)) as base, anyio.fail_after(20):
        async with Client(sse_client(f"{base}/sse"), mode="legacy") as client:
            with pytest.raises(MCPError, match="HTTP 413"):
                await client.call_tool("echo", {"text": "x" * 10_000})
            result = await client.call_tool("echo", {"text": "small"})
            assert result.content[0].text == "small"


@server_stream_leak
@pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")
async def test_custom_headers_and_a_custom_client_factory_are_used() -> None:
    mcp = build_server()
    made: list[dict[str, Any]] = []

    def factory(headers: dict[str, str] | None = None, timeout: httpx2.Timeout | None = None,
                auth: httpx2.Auth | None = None) -> httpx2.AsyncClient:
        made.append({"headers": headers, "timeout": timeout})
        return httpx2.AsyncClient(headers=headers, timeout=timeout, auth=auth)

    with running(lambda: mcp.sse_app()) as base, anyio.fail_after(20):
        transport = sse_client(f"{base}/sse", headers={"X-Test": "1"}, timeout=3, sse_read_timeout=30,
                               httpx_client_factory=factory)
        async with Client(transport, mode="legacy") as client:
            await client.send_ping()
    assert made == [{"headers": {"X-Test": "1"}, "timeout": httpx2.Timeout(3, read=30)}]


# -- against scripted servers ------------------------------------------------------------------------


class ScriptedSSE:
    """GET sends `events` (then keeps the stream open until the client leaves, unless
    `close_after`); POST answers `post_status`."""

    def __init__(self, events: list[bytes], *, close_after: bool = False, post_status: int = 202,
                 get_status: int = 200) -> None:
        self.events = events
        self.close_after = close_after
        self.post_status = post_status
        self.get_status = get_status
        self.posts: list[str] = []

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while True:
                event = await receive()
                await send({"type": event["type"] + ".complete"})
                if event["type"] == "lifespan.shutdown":
                    return
        if scope["method"] == "POST":
            while (await receive()).get("more_body"):
                pass
            self.posts.append(scope["path"] + "?" + scope["query_string"].decode())
            await send({"type": "http.response.start", "status": self.post_status, "headers": []})
            await send({"type": "http.response.body", "body": b""})
            return
        if self.get_status != 200:
            await send({"type": "http.response.start", "status": self.get_status,
                        "headers": [(b"content-type", b"text/plain")]})
            await send({"type": "http.response.body", "body": b"nope"})
            return
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"text/event-stream")]})
        for event in self.events:
            await send({"type": "http.response.body", "body": event, "more_body": True})
        if self.close_after:
            await send({"type": "http.response.body", "body": b""})
            return
        while (await receive())["type"] != "http.disconnect":
            pass


def _endpoint(data: str) -> bytes:
    return encode_event(data, event="endpoint")


@pytest.mark.parametrize("endpoint", ["/messages/?session_id=abc", "messages/?session_id=abc", "{base}/messages/?session_id=abc"])
async def test_the_endpoint_is_resolved_against_the_stream_url(endpoint: str) -> None:
    app = ScriptedSSE([])
    with running(lambda: app) as base, anyio.fail_after(20):
        app.events = [_endpoint(endpoint.format(base=base))]
        async with sse_client(f"{base}/sse") as (_read, write):
            await write.send(SessionMessage({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            while not app.posts:
                await anyio.sleep(0.01)
    assert app.posts == ["/messages/?session_id=abc"]


@pytest.mark.parametrize("endpoint", ["http://evil.example/messages/", "https://{host}/messages/", "//evil.example/m"])
async def test_an_endpoint_on_another_origin_is_refused(endpoint: str) -> None:
    app = ScriptedSSE([])
    with running(lambda: app) as base, anyio.fail_after(20):
        app.events = [_endpoint(endpoint.format(host=base.removeprefix("http://")))]
        with pytest.raises(ValueError, match="origin"):
            async with sse_client(f"{base}/sse"):
                pass
    assert app.posts == []


async def test_a_stream_without_an_endpoint_event_times_out() -> None:
    app = ScriptedSSE([b": keep-alive\n\n"])
    with running(lambda: app) as base, anyio.fail_after(20):
        started = anyio.current_time()
        with pytest.raises(TimeoutError):
            async with sse_client(f"{base}/sse", timeout=0.5):
                pass
        assert anyio.current_time() - started < 5


async def test_a_stream_that_ends_before_the_endpoint_event_fails_at_once() -> None:
    app = ScriptedSSE([], close_after=True)
    with running(lambda: app) as base, anyio.fail_after(20), pytest.raises(ConnectionError, match="endpoint"):
        async with sse_client(f"{base}/sse"):
            pass


async def test_an_error_status_on_the_stream_fails_the_connect() -> None:
    app = ScriptedSSE([], get_status=404)
    with running(lambda: app) as base, anyio.fail_after(20), pytest.raises(httpx2.HTTPStatusError):
        async with sse_client(f"{base}/sse"):
            pass


async def test_requests_fail_with_an_mcp_error_once_the_server_closes_the_stream() -> None:
    app = ScriptedSSE([_endpoint("/messages/?session_id=abc")], close_after=True)
    with running(lambda: app) as base, anyio.fail_after(20):
        async with sse_client(f"{base}/sse") as (read, _write):
            with pytest.raises(anyio.EndOfStream):
                await read.receive()
        with pytest.raises(MCPError) as info:
            async with Client(sse_client(f"{base}/sse"), mode="legacy"):
                pass
    assert info.value.code == CONNECTION_CLOSED


async def test_an_unparsable_event_reaches_the_read_stream_as_an_exception() -> None:
    app = ScriptedSSE([_endpoint("/messages/"), encode_event("{not json"),
                       encode_event('{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}')])
    with running(lambda: app) as base, anyio.fail_after(20):
        async with sse_client(f"{base}/sse") as (read, _write):
            first = await read.receive()
            second = await read.receive()
    assert isinstance(first, Exception)
    assert isinstance(second, SessionMessage)
    assert isinstance(second.message, JSONRPCNotification)
    assert second.message.method == "notifications/tools/list_changed"
