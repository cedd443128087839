"""The Streamable HTTP endpoint in-process (`httpx.ASGITransport`), fed the same hostile input.

One app serves the whole module on a background event loop (a blocking portal), with one
handshake-era session opened at the start. Each example POSTs one body, in that session or on
the 2026-07-28 wire (routing headers derived from the body), then a valid `tools/call` in the
same era must succeed. Properties:

- never a 500 (an exception escaping the app is a 500 here, not a test crash);
- unparsable bodies get 400 + -32700, malformed envelopes 400 + -32600;
- notifications and responses get 202 with an empty body;
- a well-formed request gets one JSON-RPC answer with its id: a result, or an error the client
  caused, with the HTTP status the spec maps it to on the 2026-07-28 wire; never -32603;
- every message the server's peer sends passes the schema check (the suite's wire tap);
- at the end no request is in flight and the only session is the one opened by the test.
"""

from __future__ import annotations

import base64
import importlib.util
import itertools
import json
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import anyio.from_thread
import httpx
import pytest
from hardening_support import (
    CASES,
    CLIENT_FAULT_CODES,
    HANDSHAKE,
    HERE,
    INIT,
    INTERNAL_ERROR,
    JSON,
    MODERN,
    MODERN_META,
    WRONG_VALUES,
    Expected,
    asgi_request,
    envelope_error,
    expected_for,
    fuzz_settings,
    mutated_messages,
    strict_decode,
    wire_lines,
)
from hypothesis import given
from hypothesis import strategies as st

from mcp._protocol.http import status_for_modern_error

ACCEPT = "application/json, text/event-stream"
INVALID_REQUEST, INVALID_PARAMS = -32600, -32602


def expected_over_http(body: bytes, era: str) -> Expected:
    """`expected_for`, but a body that is no valid JSON-RPC message is refused as the official
    Streamable HTTP entries refuse it, with a null id: the handshake-era transport fails its
    validation (-32602), the 2026-07-28 entry says it is no single request or notification (-32600)."""
    from mcp._protocol import messages

    expected = expected_for(body, http=True)
    ok, value = strict_decode(body)
    if not ok:
        return expected
    try:
        kind = messages.classify(value)
    except messages.InvalidMessage:
        kind = None
    if era != MODERN:
        return Expected(None, frozenset({INVALID_PARAMS})) if kind is None else expected
    if isinstance(value, dict) and "id" not in value:  # a notification: acknowledged when well formed
        params = value.get("params")
        well_formed = (value.get("jsonrpc") == "2.0" and isinstance(value.get("method"), str)
                       and (params is None or isinstance(params, dict)))
        return Expected() if well_formed else Expected(None, frozenset({INVALID_REQUEST}))
    if kind is not messages.REQUEST:
        return Expected(None, frozenset({INVALID_REQUEST}))
    if envelope_error(value) is not None:  # a request all the same (extra members are ignored)
        return Expected(value["id"], CLIENT_FAULT_CODES, result_ok=True)
    return expected
_NAME_PARAM = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}


def load_target() -> Any:
    spec = importlib.util.spec_from_file_location("hardening_target_server", HERE / "servers" / "target_server.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def wrap(value: str) -> str:
    return "=?base64?" + base64.b64encode(value.encode("utf-8", "surrogatepass")).decode() + "?="


def modern_headers(message: Any) -> dict[str, str]:
    headers = {"mcp-protocol-version": MODERN}
    if isinstance(message, dict) and isinstance(message.get("method"), str):
        method = message["method"]
        if method.isascii() and method.isprintable():
            headers["mcp-method"] = method
        params = message.get("params")
        name_key = _NAME_PARAM.get(method)
        if name_key and isinstance(params, dict) and isinstance(params.get(name_key), str):
            headers["mcp-name"] = wrap(params[name_key])
    return headers


class HttpProber:
    """One app, one httpx client, one handshake session; `exchange` posts and checks."""

    def __init__(self, portal: anyio.from_thread.BlockingPortal, client: httpx.AsyncClient, mcp: Any,
                 app: Any) -> None:
        self.portal = portal
        self.app = app
        self.client = client
        self.mcp = mcp
        self.session_id = ""
        self.ids = itertools.count()

    async def post(self, body: bytes, headers: dict[str, str]) -> httpx.Response:
        with anyio.fail_after(10):  # a hang is a failure, not a stuck suite
            return await self.client.post("/mcp", content=body, headers={
                "content-type": "application/json", "accept": ACCEPT, **headers})

    async def delete(self, session_id: str) -> httpx.Response:
        with anyio.fail_after(10):
            return await self.client.delete("/mcp", headers={"mcp-session-id": session_id})

    def session_headers(self) -> dict[str, str]:
        return {"mcp-session-id": self.session_id, "mcp-protocol-version": HANDSHAKE}

    def exchange(self, body: bytes, era: str, extra_headers: dict[str, str] | None = None) -> None:
        expected = expected_over_http(body, era)
        try:
            value = json.loads(body)
        except (ValueError, RecursionError):
            value = None
        headers = modern_headers(value) if era == MODERN else self.session_headers()
        headers.update(extra_headers or {})
        if isinstance(value, dict) and value.get("method") == "subscriptions/listen" and "id" in value:
            self._listen(body, headers, expected, loose=bool(extra_headers))
            self.probe(era)
            return
        response = self.portal.call(self.post, body, headers)
        assert response.status_code != 500, f"500 for {body[:300]!r}: {response.text[:500]}"
        created = response.headers.get("mcp-session-id")
        if created is not None and created != self.session_id:  # an initialize that opened a session
            deleted = self.portal.call(self.delete, created)
            assert deleted.status_code == 200, (deleted.status_code, response.text[:300])
        if extra_headers:
            self._check_loosely(response, body)
        elif expected.silent:
            assert response.status_code == 202 and response.content == b"", (body[:300], response.status_code,
                                                                               response.text[:300])
        else:
            answer = self._answer(response)
            expected.check(answer)
            if expected.codes is not None and expected.codes & {-32700, -32600, -32602} == expected.codes:
                assert response.status_code == 400, (response.status_code, answer)
            elif era == MODERN:
                status = 200 if "result" in answer else status_for_modern_error(answer["error"]["code"])
                assert response.status_code == status, (response.status_code, answer)
        self.probe(era)

    def _listen(self, body: bytes, headers: dict[str, str], expected: Any, *, loose: bool) -> None:
        """A listen request that is valid opens an endless stream: read its acknowledgement, then
        disconnect; the app must end the stream by itself (`asgi_request` fails on a hang)."""
        all_headers = {"content-type": "application/json", "accept": ACCEPT, **headers}
        response = self.portal.call(lambda: asgi_request(self.app, "POST", all_headers, body,
                                                         disconnect_when=lambda r: b"\n\n" in r.body))
        assert response.status != 500, response.body[:500]
        if loose:
            return
        if response.completed and not response.headers.get("content-type", "").startswith("text/event-stream"):
            if response.status == 202:
                assert expected.silent
                return
            expected.check(response.messages()[0])
            return
        first = response.messages()[0]
        if "method" in first:
            assert first["method"] == "notifications/subscriptions/acknowledged", first
            assert first["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == expected.id, first
        else:
            expected.check(first)

    def _check_loosely(self, response: httpx.Response, body: bytes) -> None:
        """Odd headers: any client-fault answer is fine, as long as it is one."""
        if response.status_code == 202:
            return
        if response.headers.get("content-type", "").startswith(("application/json", "text/event-stream")):
            answer = self._answer(response)
            # prompts/get may say -32603 for the client's bad arguments, as the official 2.3.0 does
            allowed = expected_for(body, http=True).codes or CLIENT_FAULT_CODES
            if "error" in answer and INTERNAL_ERROR not in allowed:
                assert answer["error"]["code"] != INTERNAL_ERROR, (body[:300], answer)
        else:
            assert response.status_code in (400, 404, 405, 406, 415), (response.status_code, response.text[:300])

    def _answer(self, response: httpx.Response) -> dict[str, Any]:
        kind = response.headers.get("content-type", "")
        if kind.startswith("text/event-stream"):
            events = [json.loads(line[5:]) for line in wire_lines(response.text) if line.startswith("data:")
                      and line[5:].strip()]
            answers = [e for e in events if "result" in e or "error" in e]
            assert len(answers) == 1, f"expected one answer on the stream, got {events!r}"
            return answers[0]
        assert kind.startswith("application/json"), (response.status_code, kind, response.text[:300])
        answer = response.json()
        assert isinstance(answer, dict), answer
        return answer

    def probe(self, era: str) -> None:
        token = f"t{next(self.ids)}"
        params: dict[str, Any] = {"name": "echo", "arguments": {"text": token}}
        if era == MODERN:
            params["_meta"] = MODERN_META
        message = {"jsonrpc": "2.0", "id": token, "method": "tools/call", "params": params}
        headers = modern_headers(message) if era == MODERN else self.session_headers()
        response = self.portal.call(self.post, json.dumps(message).encode(), headers)
        assert response.status_code == 200, response.text[:500]
        answer = self._answer(response)
        assert answer["id"] == token and answer["result"]["content"][0]["text"] == token, answer


@pytest.fixture(scope="module")
def http() -> Iterator[HttpProber]:
    mcp = load_target().build()
    app = mcp.streamable_http_app()

    @asynccontextmanager
    async def serving() -> AsyncIterator[HttpProber]:
        async with mcp.session_manager.run():
            transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
            async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
                yield HttpProber(portal, client, mcp, app)

    with anyio.from_thread.start_blocking_portal("asyncio") as portal, \
            portal.wrap_async_context_manager(serving()) as prober:
        response = portal.call(prober.post, json.dumps(INIT).encode(), {})
        assert response.status_code == 200, response.text
        prober.session_id = response.headers["mcp-session-id"]
        portal.call(prober.post, b'{"jsonrpc":"2.0","method":"notifications/initialized"}', prober.session_headers())
        yield prober
        manager = mcp.session_manager
        assert manager.session_count == 1, manager.session_count
        session = manager._sessions[prober.session_id].server_session
        assert session.peer._in_flight == {} and session.peer._active == 0 and session.peer._pending == {}


@pytest.fixture
def checked(wire_check: Any) -> Iterator[Any]:
    yield wire_check


def no_new_wire_failures(recorder: Any, before: int) -> None:
    assert recorder.failures[before:] == [], recorder.failures[before:]


@fuzz_settings(1000)
@given(st.data(), st.sampled_from([HANDSHAKE, MODERN]))
def test_http_requests_with_a_wrong_field_anywhere(http: HttpProber, checked: Any, data: st.DataObject,
                                                   era: str) -> None:
    CASES[f"http: mutated {era} requests"] += 1
    before = len(checked.failures)
    message = data.draw(mutated_messages(era, f"h{next(http.ids)}"))
    http.exchange(json.dumps(message).encode(), era)
    no_new_wire_failures(checked, before)


BODIES = st.one_of(
    st.binary(max_size=80),
    JSON.map(lambda v: json.dumps(v).encode()),
    st.dictionaries(st.sampled_from(["jsonrpc", "id", "method", "params", "result", "error"]),
                    st.one_of(st.sampled_from(WRONG_VALUES), JSON, st.just("2.0")), max_size=5)
    .map(lambda v: json.dumps(v).encode()),
    st.sampled_from([b"", b"{", b"[]", b"NaN", b'{"jsonrpc":"2.0","id":[1],"result":{}}',
                     b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":{}}}',
                     b'{"jsonrpc":"2.0","id":"s","method":"\\ud800"}', b"\xff",
                     b'{"jsonrpc":"2.0","id":"d","method":"tools/call","params":{"name":[],"arguments":{}}}']),
)


@fuzz_settings(600)
@given(BODIES, st.sampled_from([HANDSHAKE, MODERN]))
def test_http_random_bodies(http: HttpProber, checked: Any, body: bytes, era: str) -> None:
    CASES["http: random bodies"] += 1
    before = len(checked.failures)
    http.exchange(body, era)
    no_new_wire_failures(checked, before)


HEADER_NAMES = ["mcp-protocol-version", "mcp-method", "mcp-name", "mcp-session-id", "accept", "content-type",
                "last-event-id", "mcp-param-text"]
HEADER_VALUES = st.one_of(st.sampled_from(["", "2026-07-28", "2025-11-25", "v999", "tools/call", "=?base64?!!?=",
                                           "=?base64?ZWNobw==?=", "*/*", "text/plain", "application/json; x=1"]),
                          st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), max_size=20))


@fuzz_settings(400)
@given(st.data(), st.sampled_from([HANDSHAKE, MODERN]),
       st.dictionaries(st.sampled_from(HEADER_NAMES), HEADER_VALUES, min_size=1, max_size=3))
def test_http_odd_headers(http: HttpProber, checked: Any, data: st.DataObject, era: str,
                          headers: dict[str, str]) -> None:
    CASES["http: odd headers"] += 1
    before = len(checked.failures)
    message = data.draw(mutated_messages(era, f"h{next(http.ids)}"))
    if "mcp-session-id" in headers and headers["mcp-session-id"] == "":
        headers["mcp-session-id"] = "no-such-session"
    http.exchange(json.dumps(message).encode(), era, headers)
    no_new_wire_failures(checked, before)
