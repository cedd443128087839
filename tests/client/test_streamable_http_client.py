"""`streamable_http_client` / `Client("http://...")` against a real uvicorn server (both protocol
eras), plus scripted ASGI servers for what a well-behaved server never does (streams that end
early, resumption, failing reconnections).

uvicorn runs on its own asyncio loop in a background thread, so the client side runs on both
anyio backends. Server-side state touched by a test (session tables) is only read from here, or
changed through a route served on the server's own loop.
"""

import socket
import sys
import threading
from collections.abc import Callable
from typing import Annotated, Any

import anyio
import httpx
import httpx2
import pytest
from pydantic import BaseModel, Field
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from tests.server.http.httpkit import serving as running

from mcp import Client, MCPError
from mcp._engine.peer import current_metadata
from mcp._protocol.codec import decode, encode
from mcp._protocol.http import decode_header_value
from mcp._protocol.sse import encode_event
from mcp.client.streamable_http import MAX_RECONNECTION_ATTEMPTS, encode_header_value, streamable_http_client
from mcp.server import MCPServer
from mcp.server.event_store import InMemoryEventStore
from mcp.server.mcpserver import Context
from mcp.shared.message import SessionMessage
from mcp.types import ElicitResult
from mcp.types.jsonrpc import CONNECTION_CLOSED, INVALID_REQUEST, METHOD_NOT_FOUND, REQUEST_TIMEOUT

if sys.version_info < (3, 11):
    from exceptiongroup import ExceptionGroup  # pyright: ignore[reportMissingImports]  # (3.10 only)

pytestmark = pytest.mark.anyio

Scope = dict[str, Any]
ASGIApp = Callable[..., Any]


# -- a real server on a background thread ---------------------------------------------------------


class Recorder:
    """ASGI wrapper noting (method, headers) of every HTTP request."""

    def __init__(self) -> None:
        self.app: ASGIApp | None = None
        self.requests: list[tuple[str, dict[str, str]]] = []

    def wrap(self, app: ASGIApp) -> "Recorder":
        self.app = app
        return self

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
            self.requests.append((scope["method"], headers))
        assert self.app is not None
        await self.app(scope, receive, send)


class Form(BaseModel):
    name: str


def build_server() -> MCPServer:
    mcp = MCPServer("http-test")
    state: dict[str, Any] = {"arrivals": 0, "cancelled": []}
    mcp.state = state  # type: ignore[attr-defined]

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
    async def count_slowly(steps: int, ctx: Context) -> str:
        """Report progress, then give the notifications time to travel before answering."""
        for step in range(1, steps + 1):
            await ctx.report_progress(step, steps, f"step {step}")
        await anyio.sleep(0.3)  # the margin of a negative check: progress wrongly sent arrives first
        return f"counted {steps}"

    @mcp.tool()
    async def rendezvous(parties: int) -> int:
        """Return once `parties` calls are in flight at the same time (-1 after 5 s)."""
        all_in = state.setdefault("all_in", anyio.Event())  # made in the server's event loop
        state["arrivals"] += 1
        if state["arrivals"] >= parties:
            all_in.set()
        with anyio.move_on_after(5):
            await all_in.wait()
            return state["arrivals"]
        return -1

    @mcp.tool()
    async def sleepy(seconds: float) -> str:
        """Sleep; notes a cancellation."""
        try:
            await anyio.sleep(seconds)
        except anyio.get_cancelled_exc_class():
            state["cancelled"].append(seconds)
            raise
        return "slept"

    @mcp.tool()
    async def ask_name(ctx: Context) -> str:
        """Elicit a name from the user over the request's stream."""
        answer = await ctx.elicit("Your name?", Form)
        return f"hello {answer.data.name}" if answer.action == "accept" else answer.action

    @mcp.tool()
    async def poll_twice(ctx: Context) -> str:
        """Progress, close the SSE stream (the client polls), progress again, answer."""
        await ctx.report_progress(1, 2, "before")
        # not ctx.request_context.close_sse_stream(): over HTTP it is a no-op (server bug, reported)
        serving = current_metadata.get()
        assert serving is not None
        await serving[1].close_sse_stream()
        await anyio.sleep(0.3)  # works on while the client polls (what it misses is replayed)
        await ctx.report_progress(2, 2, "after")
        return "polled"

    @mcp.tool()
    def locate(
        query: str,
        region: Annotated[str, Field(json_schema_extra={"x-mcp-header": "Region"})] = "<none>",
    ) -> str:
        """A tool with an argument mirrored in the Mcp-Param-Region header."""
        return f"{query}@{region}"

    @mcp.custom_route("/expire", methods=["POST"])
    async def expire(request: Request) -> PlainTextResponse:
        manager = mcp.session_manager
        for session in list(manager._sessions.values()):
            manager._sessions.terminate(session)
        return PlainTextResponse("expired")

    return mcp


def session_ids(mcp: MCPServer) -> set[str]:
    return set(mcp.session_manager._sessions)


MODES = ["legacy", "auto"]
VERSION = {"legacy": "2025-11-25", "auto": "2026-07-28"}


# -- both eras end to end ---------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
async def test_a_client_lists_and_calls_tools_over_http_in_both_eras(mode: str) -> None:
    mcp = build_server()
    with running(lambda: mcp.streamable_http_app()) as base, anyio.fail_after(20):
        async with Client(f"{base}/mcp", mode=mode) as client:
            assert client.protocol_version == VERSION[mode]
            assert client.server_info is not None and client.server_info.name == "http-test"
            tools = await client.list_tools()
            assert {"echo", "count", "locate"} <= {tool.name for tool in tools.tools}
            result = await client.call_tool("echo", {"text": "hi"})
            assert result.content[0].text == "hi"


async def test_the_handshake_era_carries_session_and_version_headers_and_deletes_the_session() -> None:
    mcp = build_server()
    app = Recorder()
    with running(lambda: app.wrap(mcp.streamable_http_app())) as base, anyio.fail_after(20):
        async with Client(f"{base}/mcp", mode="legacy") as client:
            assert mcp.session_manager.session_count == 1
            (session_id,) = session_ids(mcp)
            await client.call_tool("echo", {"text": "x"})
        assert mcp.session_manager.session_count == 0
    posts = [headers for method, headers in app.requests if method == "POST"]
    assert "mcp-session-id" not in posts[0] and "mcp-protocol-version" not in posts[0]  # initialize
    for headers in posts[1:]:
        assert headers["mcp-session-id"] == session_id
        assert headers["mcp-protocol-version"] == "2025-11-25"
        assert headers["content-type"] == "application/json"
        assert headers["accept"] == "application/json, text/event-stream"
    gets = [headers for method, headers in app.requests if method == "GET"]
    assert gets and gets[0]["mcp-session-id"] == session_id and gets[0]["accept"] == "text/event-stream"
    deletes = [headers for method, headers in app.requests if method == "DELETE"]
    assert len(deletes) == 1 and deletes[0]["mcp-session-id"] == session_id


async def test_the_2026_wire_sends_routing_headers_and_no_session() -> None:
    mcp = build_server()
    app = Recorder()
    with running(lambda: app.wrap(mcp.streamable_http_app())) as base, anyio.fail_after(20):
        async with Client(f"{base}/mcp") as client:
            await client.call_tool("echo", {"text": "x"})
            assert mcp.session_manager.session_count == 0
    methods = [method for method, _ in app.requests]
    assert set(methods) == {"POST"}  # no GET stream, no DELETE
    for _, headers in app.requests:
        assert headers["mcp-protocol-version"] == "2026-07-28"
        assert "mcp-session-id" not in headers
    calls = [headers for _, headers in app.requests if headers.get("mcp-method") == "tools/call"]
    assert len(calls) == 1 and calls[0]["mcp-name"] == "echo"
    assert next(headers["mcp-method"] for _, headers in app.requests) == "server/discover"


async def test_arguments_marked_x_mcp_header_travel_in_mcp_param_headers() -> None:
    mcp = build_server()
    app = Recorder()
    with running(lambda: app.wrap(mcp.streamable_http_app())) as base, anyio.fail_after(20):
        async with Client(f"{base}/mcp") as client:
            await client.list_tools()
            plain = await client.call_tool("locate", {"query": "q", "region": "us-west1"})
            assert plain.content[0].text == "q@us-west1"
            wrapped = await client.call_tool("locate", {"query": "q", "region": "Zürich"})
            assert wrapped.content[0].text == "q@Zürich"
            absent = await client.call_tool("locate", {"query": "q"})
            assert absent.content[0].text == "q@<none>"
    calls = [headers for _, headers in app.requests if headers.get("mcp-name") == "locate"]
    assert [headers.get("mcp-param-region") for headers in calls] == [
        "us-west1", "=?base64?WsO8cmljaA==?=", None]


async def test_a_header_mismatch_rereads_tools_list_and_retries_the_call_once() -> None:
    mcp = build_server()
    app = Recorder()
    with running(lambda: app.wrap(mcp.streamable_http_app())) as base, anyio.fail_after(20):
        async with Client(f"{base}/mcp") as client:
            result = await client.call_tool("locate", {"query": "q", "region": "eu"})  # tools never listed
            assert result.content[0].text == "q@eu"
    sequence = [(headers.get("mcp-method"), headers.get("mcp-param-region")) for _, headers in app.requests]
    assert sequence[1:4] == [("tools/call", None), ("tools/list", None), ("tools/call", "eu")]


@pytest.mark.parametrize("mode", MODES)
async def test_progress_notifications_reach_the_callback_over_the_sse_response(mode: str) -> None:
    mcp = build_server()
    seen: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))

    with running(lambda: mcp.streamable_http_app()) as base, anyio.fail_after(20):
        async with Client(f"{base}/mcp", mode=mode) as client:
            result = await client.call_tool("count", {"steps": 3}, progress_callback=on_progress)
            assert result.content[0].text == "counted 3"
    assert seen == [(1, 3, "step 1"), (2, 3, "step 2"), (3, 3, "step 3")]


@pytest.mark.parametrize("mode", MODES)
async def test_a_json_response_server_answers_in_both_eras(mode: str) -> None:
    mcp = build_server()
    with running(lambda: mcp.streamable_http_app(json_response=True)) as base, anyio.fail_after(20):
        async with Client(f"{base}/mcp", mode=mode) as client:
            result = await client.call_tool("count", {"steps": 2})
            assert result.content[0].text == "counted 2"


async def test_with_json_responses_a_calls_progress_has_no_wire_and_the_answer_still_arrives() -> None:
    """As the official server: a JSON body carries only the answer; the call's progress is dropped."""
    mcp = build_server()
    seen: list[float] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append(progress)

    with running(lambda: mcp.streamable_http_app(json_response=True)) as base, anyio.fail_after(20):
        async with Client(f"{base}/mcp", mode="legacy") as client:
            result = await client.call_tool("count_slowly", {"steps": 2}, progress_callback=on_progress)
            assert result.content[0].text == "counted 2"
            assert (await client.call_tool("count_slowly", {"steps": 1})).content[0].text == "counted 1"
    assert seen == []


async def test_a_stateless_server_serves_handshake_clients_without_a_session() -> None:
    mcp = build_server()
    app = Recorder()
    with running(lambda: app.wrap(mcp.streamable_http_app(stateless_http=True))) as base, anyio.fail_after(20):
        async with Client(f"{base}/mcp", mode="legacy") as client:
            assert client.protocol_version == "2025-11-25"
            result = await client.call_tool("echo", {"text": "stateless"})
            assert result.content[0].text == "stateless"
            assert mcp.session_manager.session_count == 0
    assert all("mcp-session-id" not in headers for _, headers in app.requests)
    assert "DELETE" not in [method for method, _ in app.requests]  # no session, nothing to end


@pytest.mark.parametrize("mode", MODES)
async def test_sixteen_calls_are_in_flight_at_once(mode: str) -> None:
    mcp = build_server()
    results: list[str] = []

    with running(lambda: mcp.streamable_http_app()) as base, anyio.fail_after(20):
        async with Client(f"{base}/mcp", mode=mode) as client:

            async def call() -> None:
                result = await client.call_tool("rendezvous", {"parties": 16})
                results.append(result.content[0].text)

            async with anyio.create_task_group() as tg:
                for _ in range(16):
                    tg.start_soon(call)
    assert len(results) == 16 and "-1" not in results


async def test_a_server_to_client_request_on_the_response_stream_is_answered() -> None:
    mcp = build_server()

    async def elicit(context: Any, params: Any) -> ElicitResult:
        return ElicitResult(action="accept", content={"name": "Ada"})

    with running(lambda: mcp.streamable_http_app()) as base, anyio.fail_after(20):
        async with Client(f"{base}/mcp", mode="legacy", elicitation_callback=elicit) as client:
            result = await client.call_tool("ask_name", {})
            assert result.content[0].text == "hello Ada"


# -- sessions ---------------------------------------------------------------------------------------


async def test_terminate_on_close_false_leaves_the_session_open() -> None:
    mcp = build_server()
    with running(lambda: mcp.streamable_http_app()) as base, anyio.fail_after(20):
        transport = streamable_http_client(f"{base}/mcp", terminate_on_close=False)
        async with Client(transport, mode="legacy") as client:
            await client.call_tool("echo", {"text": "x"})
        assert mcp.session_manager.session_count == 1


async def test_an_expired_session_is_reinitialized_and_the_call_retried() -> None:
    mcp = build_server()
    with running(lambda: mcp.streamable_http_app()) as base, anyio.fail_after(20):
        async with Client(f"{base}/mcp", mode="legacy") as client, httpx.AsyncClient() as admin:
            before = session_ids(mcp)
            assert (await admin.post(f"{base}/expire")).status_code == 200
            assert mcp.session_manager.session_count == 0
            result = await client.call_tool("echo", {"text": "again"})
            assert result.content[0].text == "again"
            after = session_ids(mcp)
            assert len(after) == 1 and after != before
            # the new session is fully usable, including progress over SSE
            seen: list[float] = []

            async def on_progress(progress: float, total: float | None, message: str | None) -> None:
                seen.append(progress)

            await client.call_tool("count", {"steps": 2}, progress_callback=on_progress)
            assert seen == [1, 2]
        assert mcp.session_manager.session_count == 0


async def test_concurrent_calls_on_an_expired_session_share_one_reinitialization() -> None:
    mcp = build_server()
    with running(lambda: mcp.streamable_http_app()) as base, anyio.fail_after(20):
        async with Client(f"{base}/mcp", mode="legacy") as client, httpx.AsyncClient() as admin:
            await admin.post(f"{base}/expire")
            async with anyio.create_task_group() as tg:
                for index in range(8):
                    tg.start_soon(client.call_tool, "echo", {"text": str(index)})
            assert mcp.session_manager.session_count == 1


@pytest.mark.parametrize("anyio_backend", ["trio"])  # trio can wait until every client task is parked
async def test_a_call_made_while_the_session_is_being_reinitialized_waits_for_the_new_session() -> None:
    """The interleaving a busy machine produced: call B is made while call A's re-initialization
    is on the wire. B used to be sent with no session id at all (400 "Missing session ID")."""
    import trio.testing

    mcp = build_server()
    inner: list[ASGIApp] = []
    initializes = {"count": 0}
    held, release = threading.Event(), threading.Event()

    async def app(scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["method"] == "POST" and scope["path"] == "/mcp":
            body = b""
            while True:  # read the body to see the method, then replay it to the real app
                event = await receive()
                body += event.get("body", b"")
                if not event.get("more_body"):
                    break
            if decode(body).get("method") == "initialize":
                initializes["count"] += 1
                if initializes["count"] == 2:  # the re-initialization: hold it until told
                    held.set()
                    await anyio.to_thread.run_sync(release.wait, 20)
            replayed = {"done": False}

            async def replay() -> dict[str, Any]:
                if replayed["done"]:
                    return await receive()
                replayed["done"] = True
                return {"type": "http.request", "body": body, "more_body": False}

            await inner[0](scope, replay, send)
            return
        await inner[0](scope, receive, send)

    def make_app() -> ASGIApp:
        inner.append(mcp.streamable_http_app())
        return app

    with running(make_app) as base, anyio.fail_after(20):
        async with Client(f"{base}/mcp", mode="legacy") as client, httpx.AsyncClient() as admin:
            assert (await admin.post(f"{base}/expire")).status_code == 200
            results: dict[str, str] = {}

            async def call(text: str) -> None:
                result = await client.call_tool("echo", {"text": text})
                results[text] = result.content[0].text  # type: ignore[union-attr]

            try:
                async with anyio.create_task_group() as tg:
                    tg.start_soon(call, "A")
                    assert await anyio.to_thread.run_sync(held.wait, 10), "A's re-initialization never came"
                    tg.start_soon(call, "B")
                    await trio.testing.wait_all_tasks_blocked(0.01)  # B has been sent, or is waiting
                    release.set()
            finally:
                release.set()
            assert results == {"A": "A", "B": "B"}
            assert initializes["count"] == 2
            assert mcp.session_manager.session_count == 1


async def test_a_session_that_keeps_expiring_gives_up_with_an_mcp_error() -> None:
    mcp = build_server()
    inner: list[ASGIApp] = []
    expiring = {"on": False}

    async def app(scope: Scope, receive: Any, send: Any) -> None:
        has_session = any(k.lower() == b"mcp-session-id" for k, _ in scope.get("headers", ()))
        if scope["type"] == "http" and expiring["on"] and has_session:
            manager = mcp.session_manager
            for session in list(manager._sessions.values()):
                manager._sessions.terminate(session)
        await inner[0](scope, receive, send)

    def make_app() -> ASGIApp:
        inner.append(mcp.streamable_http_app())
        return app

    with running(make_app) as base, anyio.fail_after(20):
        async with Client(f"{base}/mcp", mode="legacy") as client:
            expiring["on"] = True
            with pytest.raises(MCPError, match="Session not found"):
                await client.call_tool("echo", {"text": "x"})


# -- errors -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
async def test_an_oversized_request_fails_with_an_mcp_error_and_the_connection_survives(mode: str) -> None:
    mcp = build_server()
    with running(lambda: mcp.streamable_http_app(max_request_body_size=4096)) as base, anyio.fail_after(20):
        async with Client(f"{base}/mcp", mode=mode) as client:
            with pytest.raises(MCPError, match="Payload Too Large"):
                await client.call_tool("echo", {"text": "x" * 10_000})
            result = await client.call_tool("echo", {"text": "small"})
            assert result.content[0].text == "small"


async def test_a_json_rpc_error_body_keeps_its_code() -> None:
    mcp = build_server()
    with running(lambda: mcp.streamable_http_app()) as base, anyio.fail_after(20):
        async with Client(f"{base}/mcp") as client:
            with pytest.raises(MCPError) as info:
                await client.session.send_request_raw("no/such/method", None)
            assert info.value.code == METHOD_NOT_FOUND


@pytest.mark.parametrize("mode", MODES)
async def test_an_endpoint_answering_404_without_a_json_rpc_body_fails_the_connect_as_not_found(mode: str) -> None:
    mcp = build_server()
    with running(lambda: mcp.streamable_http_app()) as base, anyio.fail_after(20), \
            pytest.raises(MCPError) as info:
        async with Client(f"{base}/not-mcp", mode=mode):
            pass
    assert (info.value.code, info.value.message) == (METHOD_NOT_FOUND, "Not Found")


async def test_a_404_within_a_session_that_reinitializing_cannot_cure_is_session_terminated() -> None:
    mcp = build_server()
    gone = {"flag": False}

    def app() -> ASGIApp:
        inner = mcp.streamable_http_app()

        async def wrapper(scope: Scope, receive: Any, send: Any) -> None:
            if gone["flag"] and scope["type"] == "http" and scope["method"] == "POST":
                await PlainTextResponse("", status_code=404)(scope, receive, send)
                return
            await inner(scope, receive, send)

        return wrapper

    with running(app) as base, anyio.fail_after(20):
        async with Client(f"{base}/mcp", mode="legacy") as client:
            gone["flag"] = True
            with pytest.raises(MCPError) as info:
                await client.list_tools()
    assert (info.value.code, info.value.message) == (INVALID_REQUEST, "Session terminated")


def _refused_url() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # nothing listens here once closed
    return f"http://127.0.0.1:{port}/mcp"


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_a_refused_connection_escapes_the_client_as_the_http_librarys_connect_error_in_a_group(
        mode: str) -> None:
    """As officially (and as the migration guide's `except* httpx2.ConnectError` expects): an
    `ExceptionGroup` holding `httpx2.ConnectError`, whose own cause (httpcore's) is kept."""
    with anyio.fail_after(20), pytest.raises(ExceptionGroup) as info:
        async with Client(_refused_url(), mode=mode):
            pass
    (error,) = info.value.exceptions
    assert isinstance(error, httpx2.ConnectError)
    assert error.__cause__ is not None


async def test_a_refused_connection_during_a_stateless_call_fails_the_client_with_the_connect_error() -> None:
    """The call is cancelled with the transport; `except* httpx2.ConnectError` (what `split` does)
    around the `async with` catches the failure."""
    with anyio.fail_after(20), pytest.raises(ExceptionGroup) as info:
        async with Client(_refused_url(), mode="2026-07-28") as client:
            await client.call_tool("echo", {"text": "x"})
    matched, rest = info.value.split(httpx2.ConnectError)
    assert matched is not None and rest is None


@pytest.mark.parametrize("mode", MODES)
async def test_a_timed_out_call_is_cancelled_on_the_server_and_the_client_keeps_working(mode: str) -> None:
    mcp = build_server()
    with running(lambda: mcp.streamable_http_app()) as base, anyio.fail_after(20):
        async with Client(f"{base}/mcp", mode=mode) as client:
            with pytest.raises(MCPError) as info:
                await client.call_tool("sleepy", {"seconds": 30}, read_timeout_seconds=0.3)
            assert info.value.code == REQUEST_TIMEOUT
            while not mcp.state["cancelled"]:  # type: ignore[attr-defined]
                await anyio.sleep(0.02)
            result = await client.call_tool("echo", {"text": "still here"})
            assert result.content[0].text == "still here"


# -- header encoding --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "plain"),
    [("get_weather", True), ("file:///a b.txt", True), ("Hello, 世界", False), (" padded ", False),
     ("line1\nline2", False), ("=?base64?literal?=", False), ("", True)],
)
def test_header_values_that_are_not_plain_ascii_are_base64_wrapped(value: str, plain: bool) -> None:
    encoded = encode_header_value(value)
    assert (encoded == value) is plain
    assert all(" " <= ch <= "~" for ch in encoded)
    assert decode_header_value(encoded) == value


# -- resumption, against scripted servers ------------------------------------------------------------


def _sse_headers() -> list[tuple[bytes, bytes]]:
    return [(b"content-type", b"text/event-stream"), (b"cache-control", b"no-cache")]


async def _read_body(receive: Any) -> bytes:
    body = b""
    while True:
        event = await receive()
        body += event.get("body", b"")
        if not event.get("more_body"):
            return body


def _ping(request_id: int = 1) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "ping",
            "params": {"_meta": {"progressToken": "t"}}}


def _progress(value: int) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": "t", "progress": value}}


async def _answer_of(read: Any, request_id: int) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Messages read until the response to `request_id`: (the others, the response)."""
    others: list[dict[str, Any]] = []
    while True:
        item = await read.receive()
        assert isinstance(item, SessionMessage)
        assert not isinstance(item.message, dict)  # a user reads models, as from the official SDK
        message = item.message.model_dump(by_alias=True, exclude_unset=True)
        if message.get("id") == request_id and "method" not in message:
            return others, message
        others.append(message)


class ScriptedServer:
    """POST answers with an SSE stream holding `first` events then ending; GET (resumption) runs
    `on_get(headers)`, which returns (status, events or None for a non-SSE body)."""

    def __init__(self, first: list[bytes],
                 on_get: Callable[[dict[str, str]], tuple[int, list[bytes] | None]]) -> None:
        self.first = first
        self.on_get = on_get
        self.gets: list[dict[str, str]] = []
        self.posts: list[dict[str, Any]] = []

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while True:
                event = await receive()
                await send({"type": event["type"] + ".complete"})
                if event["type"] == "lifespan.shutdown":
                    return
        headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
        if scope["method"] == "POST":
            self.posts.append(decode(await _read_body(receive)))
            await send({"type": "http.response.start", "status": 200, "headers": _sse_headers()})
            for chunk in self.first:
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
            await send({"type": "http.response.body", "body": b""})
            return
        self.gets.append(headers)
        status, events = self.on_get(headers)
        if events is None:
            await send({"type": "http.response.start", "status": status,
                        "headers": [(b"content-type", b"text/plain")]})
            await send({"type": "http.response.body", "body": b"unavailable"})
            return
        await send({"type": "http.response.start", "status": status, "headers": _sse_headers()})
        await send({"type": "http.response.body", "body": b"".join(events)})


async def test_a_stream_that_ends_early_is_resumed_with_last_event_id_after_the_servers_retry() -> None:
    priming = encode_event("", event=None, event_id="e0", retry=50)
    first = [priming, encode_event(encode(_progress(1)), event_id="e1")]
    resumed = [encode_event(encode(_progress(2)), event_id="e2"),
               encode_event(encode({"jsonrpc": "2.0", "id": 1, "result": {}}), event_id="e3")]
    app = ScriptedServer(first, lambda headers: (200, resumed if headers.get("last-event-id") == "e1" else []))
    with running(lambda: app) as base, anyio.fail_after(20):
        async with streamable_http_client(f"{base}/mcp") as (read, write):
            started = anyio.current_time()
            await write.send(SessionMessage(_ping()))
            others, answer = await _answer_of(read, 1)
            assert anyio.current_time() - started >= 0.05
    assert answer == {"jsonrpc": "2.0", "id": 1, "result": {}}
    assert [m["params"]["progress"] for m in others] == [1, 2]
    assert len(app.gets) == 1
    assert app.gets[0]["last-event-id"] == "e1" and app.gets[0]["accept"] == "text/event-stream"


async def test_a_polling_server_is_polled_until_the_response_arrives() -> None:
    first = [encode_event(encode(_progress(1)), event_id="1", retry=20)]
    polls = {"n": 0}

    def on_get(headers: dict[str, str]) -> tuple[int, list[bytes] | None]:
        polls["n"] += 1
        if polls["n"] < 2 * MAX_RECONNECTION_ATTEMPTS:  # nothing new yet, many more times than failures allow
            return 200, []
        return 200, [encode_event(encode({"jsonrpc": "2.0", "id": 1, "result": {"done": True}}), event_id="2")]

    app = ScriptedServer(first, on_get)
    with running(lambda: app) as base, anyio.fail_after(20):
        async with streamable_http_client(f"{base}/mcp") as (read, write):
            await write.send(SessionMessage(_ping()))
            _, answer = await _answer_of(read, 1)
    assert answer["result"] == {"done": True}
    assert all(headers["last-event-id"] == "1" for headers in app.gets)


async def test_resumption_gives_up_after_a_bounded_number_of_failed_reconnections() -> None:
    first = [encode_event(encode(_progress(1)), event_id="1", retry=10)]
    app = ScriptedServer(first, lambda headers: (503, None))
    with running(lambda: app) as base, anyio.fail_after(20):
        async with streamable_http_client(f"{base}/mcp") as (read, write):
            await write.send(SessionMessage(_ping()))
            _, answer = await _answer_of(read, 1)
    assert answer["error"]["code"] == CONNECTION_CLOSED
    assert "gave up" in answer["error"]["message"]
    assert len(app.gets) == MAX_RECONNECTION_ATTEMPTS


async def test_a_resumption_refused_with_a_client_error_fails_the_request_at_once() -> None:
    first = [encode_event(encode(_progress(1)), event_id="1", retry=10)]
    app = ScriptedServer(first, lambda headers: (404, None))
    with running(lambda: app) as base, anyio.fail_after(20):
        async with streamable_http_client(f"{base}/mcp") as (read, write):
            await write.send(SessionMessage(_ping()))
            _, answer = await _answer_of(read, 1)
    assert "HTTP 404" in answer["error"]["message"]
    assert len(app.gets) == 1


async def test_a_stream_ending_without_response_or_event_id_fails_the_request() -> None:
    app = ScriptedServer([encode_event(encode(_progress(1)))], lambda headers: (200, []))
    with running(lambda: app) as base, anyio.fail_after(20):
        async with streamable_http_client(f"{base}/mcp") as (read, write):
            await write.send(SessionMessage(_ping()))
            others, answer = await _answer_of(read, 1)
    assert others == [_progress(1)]
    assert answer["error"]["code"] == CONNECTION_CLOSED
    assert app.gets == []


async def test_the_real_server_resumes_a_stream_closed_by_the_handler() -> None:
    mcp = build_server()
    seen: list[str | None] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append(message)

    with running(lambda: mcp.streamable_http_app(event_store=InMemoryEventStore(), retry_interval=50)) as base, anyio.fail_after(20):
        async with Client(f"{base}/mcp", mode="legacy") as client:
            result = await client.call_tool("poll_twice", {}, progress_callback=on_progress,
                                            read_timeout_seconds=5)
            assert result.content[0].text == "polled"
    assert seen == ["before", "after"]
