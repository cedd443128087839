"""The client against hostile servers (issue 31, items 10 and 13): a server that never answers, one
whose answer cannot be parsed (nested 1 000 deep), one that speaks a protocol version nobody knows.

Each server is a small script written here and run as a real subprocess: over its stdin/stdout, or
serving raw HTTP with uvicorn. The timeout tests run on trio's autojumping virtual clock: time
advances only when every task waits, straight to the next deadline, so a 300 s default costs no real
wait and the time it fired at is exact (virtual seconds, never the wall clock). The other tests are
bounded by a `fail_after` guard: without the fix they would wait for ever, and the guard's
`TimeoutError` is what fails them.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel
from trio.testing import MockClock

from mcp import Client, MCPError, StdioServerParameters
from mcp._protocol.salvage import salvage_id
from mcp.client.request_timeout import DEFAULT_REQUEST_TIMEOUT_SECONDS
from mcp.client.session import ClientSession
from mcp.client.stdio import stdio_client
from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.types import ElicitResult
from mcp.types.jsonrpc import CONNECTION_CLOSED, PARSE_ERROR, REQUEST_TIMEOUT
from mcp.types.version import HANDSHAKE_VERSIONS

GUARD = 60.0
"""Seconds any test may wait for an answer that, with the fix, comes at once (a bound, not a measure)."""

DEPTH = 1000
"""How deep the unparsable answers nest: past what the stdlib's decoder takes (`nesting too deep`)."""

VIRTUAL_CLOCK = pytest.mark.parametrize(
    "anyio_backend", [pytest.param(("trio", {"clock": MockClock(autojump_threshold=1.0)}), id="trio-mockclock")])
"""Virtual time that jumps to the next deadline once the run has been idle for a real second: the
subprocess starts and stops in real time (its shutdown grace is not skipped), and a wait on a silent
server costs one real second whatever its virtual length."""
IN_PROCESS_VIRTUAL_CLOCK = pytest.mark.parametrize(
    "anyio_backend", [pytest.param(("trio", {"clock": MockClock(autojump_threshold=0)}), id="trio-mockclock")])
"""Virtual time that jumps at once: for a server in this process, where idle means waiting on a deadline."""

STDIO_SERVER = textwrap.dedent('''
    """A hostile MCP server on stdio, by hand: how it misbehaves is argv[1]; every line it reads goes
    to the file argv[2]."""
    import json
    import sys

    MODE, RECORD = sys.argv[1], sys.argv[2]
    DEEP = "[" * DEPTH + "]" * DEPTH
    STATE = {}


    def called():
        """Set once `tools/call` came (made on first use: it belongs to the server's event loop)."""
        return STATE.setdefault("called", anyio.Event())


    async def open_stream(send):
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/event-stream")]})


    async def hold_open(receive, send):
        """Keep the stream open: only the client can end the wait (or 30 s)."""
        with anyio.move_on_after(30):
            while (await receive())["type"] != "http.disconnect":
                pass
        await send({"type": "http.response.body", "body": b""})


    def send(text):
        sys.stdout.write(text + "\\n")
        sys.stdout.flush()


    def answer(request_id, result):
        send(json.dumps({"jsonrpc": "2.0", "id": request_id, "result": result}))


    with open(RECORD, "w") as record:
        for line in sys.stdin:
            record.write(line)
            record.flush()
            message = json.loads(line)
            method, request_id = message.get("method"), message.get("id")
            if MODE == "silent" or method is None or request_id is None:
                continue
            if method == "initialize":
                version = "1999-01-01" if MODE == "old-version" else message["params"]["protocolVersion"]
                answer(request_id, {"protocolVersion": version, "capabilities": {"tools": {}},
                                    "serverInfo": {"name": "hostile", "version": "1"}})
            elif method == "server/discover" and MODE == "old-version":
                answer(request_id, {"supportedVersions": ["1999-01-01"], "capabilities": {"tools": {}},
                                    "resultType": "complete", "ttlMs": 0, "cacheScope": "public"})
            elif method == "tools/call" and MODE == "deep-id-first":
                send('{"jsonrpc":"2.0","id":%s,"result":{"content":%s}}' % (json.dumps(request_id), DEEP))
            elif method == "tools/call" and MODE == "deep-id-last":
                send('{"jsonrpc":"2.0","result":{"content":%s},"id":%s}' % (DEEP, json.dumps(request_id)))
            elif method == "ping":
                answer(request_id, {})
            else:
                send(json.dumps({"jsonrpc": "2.0", "id": request_id,
                                 "error": {"code": -32601, "message": "Method not found"}}))
        record.write("EOF\\n")
''').replace("DEPTH", str(DEPTH))

HTTP_SERVER = textwrap.dedent('''
    """A hostile Streamable HTTP server, raw ASGI under uvicorn: it answers `tools/call` with a
    response nested too deep to parse, as an SSE event on a stream it then keeps open (argv[1]
    "sse"), as a JSON body ("json"), or on the standalone GET stream while the call's own stream
    stays open and silent ("get-stream"); or `initialize` with version "1999-01-01" ("old-version").
    Each request it gets is a line of the file argv[2]: HTTP method, JSON-RPC method, version
    header. It prints its port, then serves until terminated."""
    import json
    import socket
    import sys

    import anyio
    import uvicorn

    MODE, RECORD = sys.argv[1], sys.argv[2]
    DEEP = "[" * DEPTH + "]" * DEPTH
    STATE = {}


    def called():
        """Set once `tools/call` came (made on first use: it belongs to the server's event loop)."""
        return STATE.setdefault("called", anyio.Event())


    async def open_stream(send):
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/event-stream")]})


    async def hold_open(receive, send):
        """Keep the stream open: only the client can end the wait (or 30 s)."""
        with anyio.move_on_after(30):
            while (await receive())["type"] != "http.disconnect":
                pass
        await send({"type": "http.response.body", "body": b""})


    async def app(scope, receive, send):
        if scope["type"] != "http":
            return
        body, more = b"", True
        while more:
            event = await receive()
            body += event.get("body", b"")
            more = event.get("more_body", False)
        headers = dict(scope["headers"])
        with open(RECORD, "a") as record:
            method = json.loads(body).get("method", "<response>") if body else "-"
            version = headers.get(b"mcp-protocol-version", b"-").decode()
            record.write(" ".join([scope["method"], method, version]) + "\\n")
        if scope["method"] == "GET" and MODE == "get-stream":  # the answer comes here, unparsable
            await open_stream(send)
            with anyio.move_on_after(30):
                await called().wait()
                text = '{"jsonrpc":"2.0","result":{"content":%s},"id":%s}' % (DEEP, json.dumps(STATE["id"]))
                await send({"type": "http.response.body", "more_body": True,
                            "body": ("event: message\\ndata: " + text + "\\n\\n").encode()})
            await hold_open(receive, send)
            return
        if scope["method"] != "POST":
            await send({"type": "http.response.start", "status": 405, "headers": []})
            await send({"type": "http.response.body", "body": b""})
            return
        message = json.loads(body)
        method, request_id = message.get("method"), message.get("id")
        if request_id is None:
            await send({"type": "http.response.start", "status": 202, "headers": []})
            await send({"type": "http.response.body", "body": b""})
            return
        if method == "initialize":
            version = "1999-01-01" if MODE == "old-version" else message["params"]["protocolVersion"]
            result = {"protocolVersion": version, "capabilities": {"tools": {}},
                      "serverInfo": {"name": "hostile", "version": "1"}}
            text = json.dumps({"jsonrpc": "2.0", "id": request_id, "result": result})
        elif method == "tools/call":
            text = '{"jsonrpc":"2.0","id":%s,"result":{"content":%s}}' % (json.dumps(request_id), DEEP)
        else:
            text = json.dumps({"jsonrpc": "2.0", "id": request_id, "error": {"code": -32601, "message": "no"}})
        if method == "tools/call" and MODE == "sse":
            await open_stream(send)
            await send({"type": "http.response.body", "body": ("event: message\\ndata: " + text + "\\n\\n").encode(),
                        "more_body": True})
            await hold_open(receive, send)
            return
        if method == "tools/call" and MODE == "get-stream":  # no answer here: it goes to the GET stream
            STATE["id"] = request_id
            called().set()
            await open_stream(send)
            await hold_open(receive, send)
            return
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"application/json"), (b"mcp-session-id", b"s1")]})
        await send({"type": "http.response.body", "body": text.encode()})


    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    print(sock.getsockname()[1], flush=True)
    uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off")).run(sockets=[sock])
''').replace("DEPTH", str(DEPTH))


@pytest.fixture
def stdio_server(tmp_path: Path) -> Any:
    """`stdio_server(mode)`: the parameters that start the hostile stdio server, and the file it
    records what it read in."""
    script = tmp_path / "hostile_stdio_server.py"
    script.write_text(STDIO_SERVER)

    def make(mode: str) -> tuple[StdioServerParameters, Path]:
        record = tmp_path / f"{mode}.record"
        return StdioServerParameters(command=sys.executable, args=[str(script), mode, str(record)]), record

    return make


def received(record: Path) -> list[str]:
    """What the hostile server read: the method of each message (or "EOF" once its input ended)."""
    lines = record.read_text().splitlines()
    return [line if line == "EOF" else json.loads(line).get("method", "<response>") for line in lines]


@contextmanager
def http_server(tmp_path: Path, mode: str) -> Iterator[tuple[str, Path]]:
    """Run the hostile HTTP server as a subprocess; yields its URL and the file it records the
    requests it got in; stops it."""
    script = tmp_path / "hostile_http_server.py"
    script.write_text(HTTP_SERVER)
    record = tmp_path / f"{mode}.http.record"
    record.touch()
    process = subprocess.Popen([sys.executable, str(script), mode, str(record)], stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        port = process.stdout.readline().strip()  # printed before serving: no wait on a clock
        assert port.isdigit(), "the hostile HTTP server did not start"
        yield f"http://127.0.0.1:{port}/mcp", record
    finally:
        process.terminate()
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(15)
        if process.stdout is not None:
            process.stdout.close()


# -- item 10: a default timeout ------------------------------------------------------------------


async def handshake_wait(params: StdioServerParameters, **session_options: Any) -> tuple[MCPError | None, float]:
    """Initialize a session with the silent server: the error it ended with (None: still waiting
    after a virtual hour) and the virtual seconds it waited, measured before the subprocess is
    stopped (stopping it takes virtual seconds of its own)."""
    async with stdio_client(params) as (read, write), ClientSession(read, write, **session_options) as session:
        started = anyio.current_time()
        with anyio.move_on_after(3600):
            try:
                await session.initialize()
            except MCPError as exc:
                return exc, anyio.current_time() - started
        return None, anyio.current_time() - started


@VIRTUAL_CLOCK
@pytest.mark.anyio
async def test_a_silent_server_fails_the_handshake_at_the_default_timeout(stdio_server: Any) -> None:
    """Was: waited for ever. Nobody set a timeout, so the default bounds the wait."""
    params, record = stdio_server("silent")
    error, waited = await handshake_wait(params)
    assert error is not None and (error.code, error.message) == (REQUEST_TIMEOUT, "Request 'initialize' timed out")
    assert waited == DEFAULT_REQUEST_TIMEOUT_SECONDS
    assert received(record)[0] == "initialize"


@VIRTUAL_CLOCK
@pytest.mark.anyio
async def test_the_default_timeout_can_be_changed_and_a_read_timeout_still_wins(stdio_server: Any) -> None:
    params, _ = stdio_server("silent")
    for options, fired_at in [({"default_request_timeout_seconds": 30.0}, 30.0),
                              ({"read_timeout_seconds": 5.0}, 5.0)]:
        error, waited = await handshake_wait(params, **options)
        assert error is not None and error.code == REQUEST_TIMEOUT
        assert waited == fired_at


@VIRTUAL_CLOCK
@pytest.mark.anyio
async def test_a_default_timeout_of_none_waits_for_the_server_as_long_as_the_caller_does(stdio_server: Any) -> None:
    """The official behaviour, on request: a virtual hour later the handshake still waits."""
    params, _ = stdio_server("silent")
    assert await handshake_wait(params, default_request_timeout_seconds=None) == (None, 3600)


@VIRTUAL_CLOCK
@pytest.mark.anyio
async def test_the_client_takes_the_default_and_passes_a_changed_one_to_its_session(stdio_server: Any) -> None:
    params, _ = stdio_server("silent")
    assert Client(params).default_request_timeout_seconds == DEFAULT_REQUEST_TIMEOUT_SECONDS
    with pytest.raises(MCPError) as raised:
        async with Client(params, mode="legacy", default_request_timeout_seconds=30.0):
            pass  # pragma: no cover - never entered
    assert (raised.value.code, raised.value.message) == (REQUEST_TIMEOUT, "Request 'initialize' timed out")


@IN_PROCESS_VIRTUAL_CLOCK
@pytest.mark.anyio
async def test_progress_restarts_the_default_timeout_but_silence_still_ends_the_wait() -> None:
    """A long tool that reports progress is never cut off by the default (it bounds silence); the
    same tool called without asking for progress is."""
    server = MCPServer("slow")
    steps = 5
    gap = DEFAULT_REQUEST_TIMEOUT_SECONDS * 2 / 3

    @server.tool()
    async def crunch(ctx: Context) -> str:
        for step in range(steps):
            await anyio.sleep(gap)
            await ctx.report_progress(step + 1, steps)
        return "done"

    reports: list[float] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        reports.append(progress)

    async with Client(server, mode="legacy") as client:
        started = anyio.current_time()
        result = await client.call_tool("crunch", {}, progress_callback=on_progress)
        assert result.content[0].text == "done"
        assert anyio.current_time() - started == steps * gap  # longer than the default, reported along
        assert reports == [1, 2, 3, 4, 5]

        started = anyio.current_time()
        with pytest.raises(MCPError) as raised:
            await client.call_tool("crunch", {})
        assert raised.value.code == REQUEST_TIMEOUT
        assert anyio.current_time() - started == DEFAULT_REQUEST_TIMEOUT_SECONDS


@IN_PROCESS_VIRTUAL_CLOCK
@pytest.mark.anyio
async def test_the_default_timeout_stops_while_a_person_answers_the_server() -> None:
    """A tool that asks the user (elicitation) waits on a person, as an OAuth login does: the hour
    they take is not the server's silence. The clock goes on afterwards with what was left."""
    server = MCPServer("asks")

    class Name(BaseModel):
        name: str

    @server.tool()
    async def ask(ctx: Context, then_hang: bool = False) -> str:
        answer = await ctx.elicit("Your name?", Name)
        if then_hang:
            await anyio.sleep_forever()
        return answer.data.name

    async def person(context: Any, params: Any) -> ElicitResult:
        await anyio.sleep(3600)
        return ElicitResult(action="accept", content={"name": "Ada"})

    async with Client(server, mode="legacy", elicitation_callback=person) as client:
        started = anyio.current_time()
        result = await client.call_tool("ask", {})
        assert result.content[0].text == "Ada"
        assert anyio.current_time() - started == 3600

        started = anyio.current_time()
        with pytest.raises(MCPError) as raised:
            await client.call_tool("ask", {"then_hang": True})
        assert raised.value.code == REQUEST_TIMEOUT
        assert anyio.current_time() - started == 3600 + DEFAULT_REQUEST_TIMEOUT_SECONDS


# -- item 10: an answer that cannot be parsed ------------------------------------------------------


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["deep-id-first", "deep-id-last"])
async def test_an_unparsable_answer_over_stdio_fails_its_request_at_once(stdio_server: Any, mode: str) -> None:
    """Was: the line was dropped and the call waited for its timeout (here: none at all). The id is
    told from the text wherever it stands; the connection goes on."""
    params, _ = stdio_server(mode)
    seen: list[Any] = []

    async def message_handler(message: Any) -> None:
        seen.append(message)

    with anyio.fail_after(GUARD):
        async with Client(params, mode="legacy", default_request_timeout_seconds=None,
                          message_handler=message_handler) as client:
            with pytest.raises(MCPError) as raised:
                await client.call_tool("anything", {})
            assert await client.session.send_ping() is not None  # the connection goes on
    assert raised.value.code == PARSE_ERROR
    assert raised.value.message == "Failed to parse the server's response: Parse error: nesting too deep"
    assert [str(item) for item in seen if isinstance(item, Exception)] == ["Parse error: nesting too deep"]


@pytest.mark.anyio
@pytest.mark.parametrize(("mode", "text"), [("sse", "Failed to parse SSE message: Parse error: nesting too deep"),
                                            ("json", "Failed to parse JSON response: Parse error: nesting too deep")])
async def test_an_unparsable_answer_over_http_fails_its_request_at_once(tmp_path: Path, mode: str, text: str) -> None:
    """Was (SSE): the event was dropped and the call waited on the stream the server keeps open. Now
    the request fails as officially (PARSE_ERROR and its text), and the connection goes on."""
    with http_server(tmp_path, mode) as (url, _), anyio.fail_after(GUARD):
        async with Client(url, mode="legacy", default_request_timeout_seconds=None) as client:
            with pytest.raises(MCPError) as raised:
                await client.call_tool("anything", {})
            with pytest.raises(MCPError) as after:
                await client.list_prompts()  # answered: the connection goes on
    assert (raised.value.code, raised.value.message) == (PARSE_ERROR, text)
    assert after.value.message == "no"


JSON_VALUES = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=8),
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner,
                                                                                       max_size=3), max_leaves=12)


@settings(max_examples=300, deadline=None)
@given(before=st.dictionaries(st.text(max_size=4).filter(lambda key: key != "id"), JSON_VALUES, max_size=3),
       after=st.dictionaries(st.text(max_size=4).filter(lambda key: key != "id"), JSON_VALUES, max_size=3),
       request_id=st.integers(-(10**18), 10**18) | st.text(alphabet="abc-_0123456789", max_size=20))
def test_the_id_of_an_answer_is_salvaged_wherever_it_stands(before: dict[str, Any], after: dict[str, Any],
                                                           request_id: int | str) -> None:
    """`salvage_id` agrees with the parser on the top-level id of any object, whatever comes
    before or after it (nested objects with their own "id" members included)."""
    text = json.dumps({**before, "id": request_id, **after})
    assert salvage_id(text) == request_id
    assert salvage_id(json.dumps({"outer": {"id": request_id}})) is None


@pytest.mark.anyio
async def test_an_unparsable_answer_on_the_standalone_stream_fails_the_request_it_names(tmp_path: Path) -> None:
    """The event goes to `message_handler`, as officially, and the session reads the id from it: the
    call fails at once instead of waiting on its own stream, which the server keeps open and silent."""
    seen: list[Any] = []

    async def message_handler(message: Any) -> None:
        seen.append(message)

    with http_server(tmp_path, "get-stream") as (url, _), anyio.fail_after(GUARD):
        async with Client(url, mode="legacy", default_request_timeout_seconds=None,
                          message_handler=message_handler) as client:
            with pytest.raises(MCPError) as raised:
                await client.call_tool("anything", {})
    assert (raised.value.code, raised.value.message) == (
        PARSE_ERROR, "Failed to parse the server's response: Parse error: nesting too deep")
    assert [str(item) for item in seen if isinstance(item, Exception)] == ["Parse error: nesting too deep"]


# -- item 13: an unsupported protocol version ------------------------------------------------------


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_a_server_speaking_an_unknown_version_is_refused_and_left(stdio_server: Any, mode: str) -> None:
    """Was (auto): a discover result listing only "1999-01-01" was adopted at 2026-07-28. Now, as the
    official SDK does, such a result is a legacy server's; the handshake's "1999-01-01" is refused
    with the official error, which names the versions this client speaks, and nothing more is sent."""
    params, record = stdio_server("old-version")
    with anyio.fail_after(GUARD), pytest.raises(RuntimeError) as raised:
        async with Client(params, mode=mode):
            pass  # pragma: no cover - never entered
    assert str(raised.value) == "Unsupported protocol version from the server: 1999-01-01"
    notes = getattr(raised.value, "__notes__", [])
    assert len(notes) == 1 and all(version in notes[0] for version in HANDSHAKE_VERSIONS)
    expected = ["server/discover", "initialize", "EOF"] if mode == "auto" else ["initialize", "EOF"]
    assert received(record) == expected  # no notifications/initialized, nothing after


@pytest.mark.anyio
async def test_a_session_that_refuses_the_version_closes_its_connection(stdio_server: Any) -> None:
    """`ClientSession.initialize()` refuses, and the session can send nothing more: the spec says
    the client should disconnect, and a caller that swallows the error cannot carry on by mistake."""
    params, record = stdio_server("old-version")
    with anyio.fail_after(GUARD):
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            with pytest.raises(RuntimeError, match="1999-01-01"):
                await session.initialize()
            with pytest.raises(MCPError) as after:
                await session.send_ping()
    assert (after.value.code, after.value.message) == (CONNECTION_CLOSED, "Connection closed")
    assert received(record) == ["initialize", "EOF"]


@pytest.mark.anyio
async def test_an_http_server_speaking_an_unknown_version_is_refused_and_never_told_it_back(tmp_path: Path) -> None:
    """Over Streamable HTTP too: the official error, no `notifications/initialized`, and the
    session's end (DELETE) does not carry "1999-01-01" as the negotiated version."""
    with http_server(tmp_path, "old-version") as (url, record):
        with anyio.fail_after(GUARD), pytest.raises(RuntimeError) as raised:
            async with Client(url, mode="legacy"):
                pass  # pragma: no cover - never entered
        requests = record.read_text().splitlines()
    assert str(raised.value) == "Unsupported protocol version from the server: 1999-01-01"
    assert requests[0] == "POST initialize -"
    assert all("notifications/initialized" not in line and "1999-01-01" not in line for line in requests[1:])
