"""One test per bug the hardening work found, named after what must hold now.

Fixed here (engine, protocol, session): each of the first five ended a stdio server process with
one line of input. The last three were found here and fixed by the owners of the HTTP transport
and MCPServer (they were strict xfails until their fixes landed).
"""

from __future__ import annotations

import base64
import json
import math
from typing import Any

import anyio
import pytest
from hardening_support import HANDSHAKE, INIT, MODERN_META, StdioTarget, asgi_request

from mcp._engine.peer import Peer
from mcp._engine.seam import WireSendStream
from mcp._engine.stdio_pump import pump_out
from mcp._protocol import messages as m
from mcp._protocol.codec import ParseError, decode
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage

pytestmark = pytest.mark.anyio

id_null_errors = pytest.mark.wire_invalid_ok(
    lambda sender, message, version: message.get("id") is None and "error" in message,
    reason="JSON-RPC 2.0: input whose id cannot be read is answered with id null", strict=False)


@pytest.fixture(scope="module")
def stdio() -> Any:
    target = StdioTarget()
    target.initialize()
    yield target
    assert target.close() == 0, target.stderr_text[-3000:]


def ping_after(target: StdioTarget, line: bytes) -> list[dict[str, Any]]:
    """Send `line`, then a ping; everything the server wrote up to the ping's answer."""
    target.send_raw(line + b"\n")
    target.send({"jsonrpc": "2.0", "id": "after", "method": "ping"})
    seen = [target.read()]
    while seen[-1].get("id") != "after":
        seen.append(target.read())
    assert seen[-1] == {"jsonrpc": "2.0", "id": "after", "result": {}}
    return seen[:-1]


# -- 1-5: one line used to end the stdio server process ----------------------------------------


def test_a_response_with_an_unhashable_id_is_refused_not_fatal(stdio: StdioTarget) -> None:
    """Was: TypeError (unhashable) in Peer._receive's pending lookup, ending the connection."""
    for line in (b'{"jsonrpc":"2.0","id":[1],"result":{}}', b'{"jsonrpc":"2.0","id":{"a":1},"error":{"code":1,"message":"m"}}'):
        (answer,) = ping_after(stdio, line)
        assert answer["id"] is None and answer["error"]["code"] == -32600


def test_a_cancel_naming_an_unhashable_id_is_ignored(stdio: StdioTarget) -> None:
    """Was: TypeError in Peer._cancel_in_flight, ending the connection."""
    for request_id in ('{"a":1}', "[1]", "true", "null", "1.5"):
        line = b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%s}}' % request_id.encode()
        assert ping_after(stdio, line) == []


def test_a_lone_surrogate_echoed_back_is_escaped_on_the_wire(stdio: StdioTarget) -> None:
    """Was: UnicodeEncodeError in the stdio writer (the method name is echoed in -32601)."""
    stdio.send_raw(b'{"jsonrpc":"2.0","id":"s","method":"\\ud800"}\n')
    assert stdio.read() == {"jsonrpc": "2.0", "id": "s",
                            "error": {"code": -32601, "message": "Method not found", "data": "\ud800"}}


def test_nan_and_infinity_are_not_json(stdio: StdioTarget) -> None:
    """Was: accepted by the decoder, then echoed in -32022's data: ValueError in the writer."""
    for text in ("NaN", "Infinity", "-Infinity"):
        with pytest.raises(ParseError):
            decode('{"v":' + text + "}")
        line = ('{"jsonrpc":"2.0","id":"n","method":"tools/list","params":{"_meta":'
                '{"io.modelcontextprotocol/protocolVersion":' + text + "}}}").encode()
        (answer,) = ping_after(stdio, line)
        assert answer["id"] is None and answer["error"]["code"] == -32700


def test_a_float_overflow_in_meta_is_invalid_params_and_never_echoed(stdio: StdioTarget) -> None:
    """`1e999` is JSON and decodes to infinity; it used to be echoed in -32022's data."""
    line = b'{"jsonrpc":"2.0","id":"o","method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":1e999}}}'
    (answer,) = ping_after(stdio, line)
    assert answer["id"] == "o" and answer["error"]["code"] == -32602


def test_a_result_json_cannot_carry_is_answered_with_an_internal_error(stdio: StdioTarget) -> None:
    """A handler bug (NaN in a result) must not end the connection, nor leave the request unanswered."""
    (answer,) = ping_after(stdio, b'{"jsonrpc":"2.0","id":"nan","method":"test/not_json"}')
    assert answer == {"jsonrpc": "2.0", "id": "nan",
                      "error": {"code": -32603, "message": "Internal error: the response could not be encoded"}}


async def test_the_stream_writer_replaces_an_unencodable_response_and_drops_an_unencodable_notification() -> None:
    """The same for the memory-stream stdio path (trio, regular files)."""
    send, receive = anyio.create_memory_object_stream[SessionMessage](10)
    written: list[bytes] = []

    async def write(data: bytes) -> None:
        written.append(data)

    send.send_nowait(SessionMessage({"jsonrpc": "2.0", "id": 1, "result": {"x": math.inf}}))
    send.send_nowait(SessionMessage({"jsonrpc": "2.0", "method": "notifications/message", "params": {"data": math.nan}}))
    send.send_nowait(SessionMessage({"jsonrpc": "2.0", "id": 2, "result": {"s": "\udc80"}}))
    send.close()
    await pump_out(receive, write)
    lines = b"".join(written).decode("utf-8").split("\n")[:-1]
    assert [json.loads(line) for line in lines] == [
        {"jsonrpc": "2.0", "id": 1, "error": {"code": -32603, "message": "Internal error: the response could not be encoded"}},
        {"jsonrpc": "2.0", "id": 2, "result": {"s": "\udc80"}},
    ]


# -- protocol answers that were wrong or schema-invalid -------------------------------------------


def test_meta_that_is_not_an_object_is_invalid_params(stdio: StdioTarget) -> None:
    """Was: ignored, so `server/discover` with `_meta: []` got a handshake-shaped result that is
    valid under no revision."""
    for meta in ("[]", "1", '"x"', "true"):
        line = b'{"jsonrpc":"2.0","id":"m","method":"tools/list","params":{"_meta":%s}}' % meta.encode()
        (answer,) = ping_after(stdio, line)
        assert answer["error"]["code"] == -32602 and answer["id"] == "m"


def test_server_discover_without_the_modern_meta_is_invalid_params(stdio: StdioTarget) -> None:
    for params in ("{}", '{"_meta":{}}', '{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25"}}'):
        line = b'{"jsonrpc":"2.0","id":"d","method":"server/discover","params":%s}' % params.encode()
        (answer,) = ping_after(stdio, line)
        assert answer["error"]["code"] == -32602
    line = json.dumps({"jsonrpc": "2.0", "id": "ok", "method": "server/discover", "params": {"_meta": MODERN_META}})
    (answer,) = ping_after(stdio, line.encode())
    assert answer["result"]["resultType"] == "complete"


def test_a_non_string_meta_version_is_invalid_params(stdio: StdioTarget) -> None:
    for version in ("1", "[]", "{}", "true"):
        line = (b'{"jsonrpc":"2.0","id":"v","method":"tools/list","params":'
                b'{"_meta":{"io.modelcontextprotocol/protocolVersion":%s}}}' % version.encode())
        (answer,) = ping_after(stdio, line)
        assert answer["error"]["code"] == -32602


# -- the engine's own invariants ---------------------------------------------------------------


def pipes() -> tuple[Any, Any, Any, Any]:
    inbox_send, inbox = anyio.create_memory_object_stream[Any](math.inf)
    outbox, sent = anyio.create_memory_object_stream[SessionMessage](math.inf)
    return inbox_send, inbox, outbox, sent


async def test_a_failing_owner_still_answers_its_request_and_the_connection_goes_on() -> None:
    """Was: an exception escaping `on_request` ended the peer's task group (the connection)."""
    inbox_send, inbox, outbox, sent = pipes()
    async def on_request(message: dict[str, Any], metadata: Any) -> None:
        if message["id"] == 1:
            raise RuntimeError("a bug in the owner")
        await peer.send(m.result_response(message["id"], {}))

    async def on_notification(message: dict[str, Any], metadata: Any) -> None:
        return None

    peer = Peer(inbox, WireSendStream(outbox), role="server", on_request=on_request, on_notification=on_notification)
    inbox_send.send_nowait(SessionMessage(m.request(1, "test/x", None)))
    inbox_send.send_nowait(SessionMessage(m.request(2, "test/x", None)))
    inbox_send.close()
    with anyio.fail_after(5):
        await peer.run()
    outbox.close()
    async with sent:
        answers = sorted([item.message async for item in sent], key=lambda a: a["id"])
    assert answers == [{"jsonrpc": "2.0", "id": 1, "error": {"code": -32603, "message": "Internal error"}},
                       {"jsonrpc": "2.0", "id": 2, "result": {}}]


@id_null_errors
async def test_the_first_answer_wins_and_a_malformed_error_fails_the_request_cleanly() -> None:
    """Was: a second response overwrote the first; `{"code": "x"}` raised ValueError at the caller."""
    for answers, expected in (
        ([m.result_response(1, {"first": True}), m.result_response(1, {"second": True})], {"first": True}),
        ([{"jsonrpc": "2.0", "id": 1, "error": {"code": "x", "message": []}}], -32603),
        ([{"jsonrpc": "2.0", "id": 1, "error": {"code": True, "message": "m"}}], -32603),
        ([{"jsonrpc": "2.0", "id": 1, "error": {}}], -32603),
    ):
        inbox_send, inbox, outbox, sent = pipes()

        async def nothing(message: Any, metadata: Any) -> None:
            return None

        peer = Peer(inbox, WireSendStream(outbox), role="server", on_request=nothing, on_notification=nothing)
        outcome: list[Any] = []

        async def ask(peer: Peer = peer, outcome: list[Any] = outcome) -> None:
            try:
                outcome.append(await peer.send_request("test/ask"))
            except MCPError as exc:
                outcome.append(exc.code)

        async with anyio.create_task_group() as tg, outbox, sent:
            tg.start_soon(peer.run)
            tg.start_soon(ask)
            await anyio.wait_all_tasks_blocked()
            for answer in answers:
                inbox_send.send_nowait(SessionMessage(answer))
            inbox_send.close()
        assert outcome == [expected]


async def test_send_request_refuses_an_id_already_awaiting_an_answer() -> None:
    """Was: the second request silently replaced the first one's pending entry."""
    inbox_send, inbox, outbox, sent = pipes()

    async def nothing(message: Any, metadata: Any) -> None:
        return None

    peer = Peer(inbox, WireSendStream(outbox), role="client", on_request=nothing, on_notification=nothing)
    with anyio.fail_after(5):
        async with anyio.create_task_group() as tg, outbox, sent:
            tg.start_soon(peer.run)
            tg.start_soon(peer.send_request, "test/a", None)
            await anyio.wait_all_tasks_blocked()
            with pytest.raises(ValueError, match="already awaiting"):
                await peer.send_request("test/b", request_id=1)
            inbox_send.send_nowait(SessionMessage(m.result_response(1, {})))
            await anyio.wait_all_tasks_blocked()
            assert peer._pending == {}
            inbox_send.close()


async def test_a_duplicate_id_refusal_goes_back_on_its_own_http_request() -> None:
    """Was: sent without the request's transport metadata, so over HTTP it went to the session's
    GET stream and the POST itself ended with a 500 "Request cancelled"."""
    from test_fuzz_http import load_target

    mcp = load_target().build()
    app = mcp.streamable_http_app()
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
    async with mcp.session_manager.run():
        opened = await asgi_request(app, "POST", headers, json.dumps(INIT).encode())
        session = {**headers, "mcp-session-id": opened.headers["mcp-session-id"], "mcp-protocol-version": HANDSHAKE}
        hang_up = anyio.Event()
        first = {"jsonrpc": "2.0", "id": "d", "method": "tools/call", "params": {"name": "hang", "arguments": {"token": "x"}}}
        second = {"jsonrpc": "2.0", "id": "d", "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "y"}}}
        async with anyio.create_task_group() as tg:
            tg.start_soon(lambda: asgi_request(app, "POST", session, json.dumps(first).encode(), disconnect=hang_up))
            await anyio.wait_all_tasks_blocked()
            response = await asgi_request(app, "POST", session, json.dumps(second).encode())
            hang_up.set()
            # a session's call outlives its client's connection (as officially): cancel it
            cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "d"}}
            assert (await asgi_request(app, "POST", session, json.dumps(cancel).encode())).status == 202
        assert response.status == 200
        assert response.messages() == [{"jsonrpc": "2.0", "id": "d", "error": {
            "code": -32600, "message": "Invalid Request: duplicate request id in flight"}}]


# -- found here, fixed by the owners of the HTTP transport and MCPServer ---------------------------

HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}


async def test_a_failed_initialize_names_no_session() -> None:
    """Was: the error answer carried an Mcp-Session-Id the server had already discarded."""
    from test_fuzz_http import load_target

    mcp = load_target().build()
    app = mcp.streamable_http_app()
    async with mcp.session_manager.run():
        response = await asgi_request(app, "POST", HEADERS, b'{"jsonrpc":"2.0","id":1,"method":"initialize"}')
        assert response.messages()[-1]["error"]["code"] == -32602
        assert "mcp-session-id" not in response.headers


async def test_a_modern_tool_call_with_an_unhashable_name_is_a_client_error() -> None:
    """Was: MCPServer._header_params looked the name up in a dict: TypeError out of the app (500)."""
    from test_fuzz_http import load_target

    mcp = load_target().build()
    app = mcp.streamable_http_app()
    async with mcp.session_manager.run():
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                           "params": {"name": [], "arguments": {}, "_meta": MODERN_META}}).encode()
        headers = {**HEADERS, "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call",
                   "mcp-name": "=?base64?" + base64.b64encode(b"[]").decode() + "?="}
        response = await asgi_request(app, "POST", headers, body)
        assert response.status == 400 and json.loads(response.body)["error"]["code"] in (-32602, -32020)


async def test_an_http_result_json_cannot_carry_is_answered_with_an_internal_error() -> None:
    """Was: the response channel closed itself before encoding, so the POST got no response."""
    from mcp.server.lowlevel import Server
    from mcp.server.session import WireResult

    server: Server[Any] = Server("nan")

    async def not_json(ctx: Any, params: Any) -> Any:
        return WireResult({"value": math.nan})

    server.add_request_handler("test/not_json", None, not_json)
    app = server.streamable_http_app(stateless_http=True)
    async with server.session_manager.run():
        response = await asgi_request(app, "POST", {**HEADERS, "mcp-protocol-version": HANDSHAKE},
                                      b'{"jsonrpc":"2.0","id":"n","method":"test/not_json"}')
        assert response.status == 200 and response.messages()[-1]["error"]["code"] == -32603
