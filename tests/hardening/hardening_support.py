"""Shared machinery of the hardening tests: budgets, a stdio subprocess with bounded reads,
request shapes derived from the spec schemas, and the mutations applied to them.

Budgets (see README.md): `MCP_FUZZ_EXAMPLES` overrides every fuzz test's example count (CI
defaults are per test and small); `MCP_SOAK_SESSIONS` / `MCP_SOAK_CALLS` size the soak tests.
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
import re
import selectors
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

HERE = Path(__file__).resolve().parent
TARGET = HERE / "servers" / "target_server.py"
SPEC_DIR = Path(os.environ.get("MCP_SPEC_DIR") or HERE.parent.parent.parent / "shared" / "spec")

HANDSHAKE = "2025-11-25"
MODERN = "2026-07-28"
VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
CAPS_KEY = "io.modelcontextprotocol/clientCapabilities"
MODERN_META: dict[str, Any] = {VERSION_KEY: MODERN, CAPS_KEY: {}}
INIT = {"jsonrpc": "2.0", "id": "init", "method": "initialize",
        "params": {"protocolVersion": HANDSHAKE, "capabilities": {}, "clientInfo": {"name": "fuzz", "version": "1"}}}

PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, INTERNAL_ERROR = -32700, -32600, -32601, -32602, -32603
CLIENT_FAULT_CODES = frozenset({INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS,
                                -32002,  # resource not found
                                -32020, -32021, -32022})  # header mismatch, missing capability, unsupported version
"""What a well-formed envelope with bad params may be answered with: never -32603 (that would
mean the server treated the client's mistake as its own failure) and never -32700."""
PROMPT_FAULT_CODES = CLIENT_FAULT_CODES | {0, INTERNAL_ERROR}
"""prompts/get also as the official SDK 2.3.0 answers a prompt's unknown name or bad arguments (the
`ValueError` of `MCPServer.get_prompt`): code 0 with its text on the handshake-era wire, -32603
"Internal server error" on the 2026-07-28 wire (the spec's prompts page only says SHOULD -32602)."""

# -- budgets ----------------------------------------------------------------------------------

CASES: Counter[str] = Counter()
"""Examples run per fuzz family (reported at the end of the session by conftest.py)."""


def wire_lines(text: str) -> list[str]:
    """Lines as SSE and stdio framing define them (CRLF, LF or CR only): `str.splitlines` would
    also split inside JSON strings carrying U+0085, U+2028 or U+2029."""
    return re.split(r"\r\n|\r|\n", text)


def examples(ci_default: int) -> int:
    override = os.environ.get("MCP_FUZZ_EXAMPLES")
    return int(override) if override else ci_default


def fuzz_settings(ci_default: int, **extra: Any) -> settings:
    return settings(max_examples=examples(ci_default), deadline=None, derandomize=False,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.function_scoped_fixture], **extra)


def soak_size(sessions: int, calls: int) -> tuple[int, int]:
    """(sessions, calls per session), from the environment when set."""
    return (int(os.environ.get("MCP_SOAK_SESSIONS", sessions)), int(os.environ.get("MCP_SOAK_CALLS", calls)))


# -- JSON values ------------------------------------------------------------------------------

SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(), st.integers(min_value=-(2**80), max_value=2**80),
    st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=40),
    st.sampled_from(["", "2.0", "\ud800", "\x00", "tools/call", "2026-07-28", "2025-11-25", "é" * 3]),
)
JSON = st.recursive(SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=12), inner, max_size=4)), max_leaves=12)

WRONG_VALUES: list[Any] = [None, True, False, 0, -1, 1.5, 2**70, "", "x", "\ud800", [], [1], {}, {"a": []},
                           [[[[[]]]]], "y" * 5000]
"""Replacements for a field: one of every JSON type, edge numbers, a lone surrogate, big values."""


def deep(levels: int) -> Any:
    value: Any = []
    for _ in range(levels):
        value = [value]
    return value


# -- request shapes from the spec ---------------------------------------------------------------


@cache
def schema(version: str) -> dict[str, Any]:
    return json.loads((SPEC_DIR / version / "schema.json").read_text())


_SEMANTIC: dict[str, dict[str, Any]] = {
    # Values the target server recognises, so the unmutated shape reaches the handler.
    "tools/call": {"name": "echo", "arguments": {"text": "hi"}},
    "prompts/get": {"name": "greet", "arguments": {"name": "Ada"}},
    "resources/read": {"uri": "data://static"},
    "resources/subscribe": {"uri": "data://static"},
    "resources/unsubscribe": {"uri": "data://static"},
    "completion/complete": {"ref": {"type": "ref/prompt", "name": "greet"}, "argument": {"name": "name", "value": "A"}},
    "logging/setLevel": {"level": "error"},
    "initialize": {"protocolVersion": HANDSHAKE, "capabilities": {}, "clientInfo": {"name": "fuzz", "version": "1"}},
}


def _resolve(version: str, node: Any) -> Any:
    while isinstance(node, dict) and "$ref" in node:
        node = schema(version)["$defs"][node["$ref"].rsplit("/", 1)[-1]]
    return node


def instance(version: str, node: Any, depth: int = 0) -> Any:
    """A minimal value of a schema node: required properties only, first alternative of a union."""
    node = _resolve(version, node)
    if not isinstance(node, dict) or depth > 8:
        return {}
    if "const" in node:
        return node["const"]
    if "enum" in node:
        return node["enum"][0]
    for union in ("anyOf", "oneOf"):
        if union in node:
            return instance(version, node[union][0], depth + 1)
    kind = node.get("type")
    if isinstance(kind, list):
        kind = kind[0]
    if kind == "object" or "properties" in node:
        props = node.get("properties", {})
        return {name: instance(version, props.get(name, {}), depth + 1) for name in node.get("required", [])}
    return {"string": "x", "integer": 1, "number": 1.5, "boolean": True, "array": [], "null": None}.get(kind, {})


@cache
def request_shapes(version: str) -> list[tuple[str, dict[str, Any] | None]]:
    """(method, params) for every client request of `version`, params minimal and valid-looking."""
    defs = schema(version)["$defs"]
    shapes: list[tuple[str, dict[str, Any] | None]] = []
    for member in defs["ClientRequest"]["anyOf"]:
        definition = defs[member["$ref"].rsplit("/", 1)[-1]]
        method = definition["properties"]["method"]["const"]
        params_node = definition["properties"].get("params")
        params: dict[str, Any] | None = None
        if params_node is not None:
            built: dict[str, Any] = instance(version, params_node)
            built.update(copy.deepcopy(_SEMANTIC.get(method, {})))
            if version == MODERN:
                built["_meta"] = copy.deepcopy(MODERN_META)
            if version == MODERN or "params" in definition.get("required", []) or built:
                params = built
        shapes.append((method, params))
    return shapes


@cache
def notification_shapes(version: str) -> list[tuple[str, dict[str, Any] | None]]:
    defs = schema(version)["$defs"]
    union = defs.get("ClientNotification", {}).get("anyOf", [])
    shapes: list[tuple[str, dict[str, Any] | None]] = []
    for member in union:
        definition = defs[member["$ref"].rsplit("/", 1)[-1]]
        params_node = definition["properties"].get("params")
        shapes.append((definition["properties"]["method"]["const"],
                       instance(version, params_node) if params_node is not None else None))
    return shapes


def paths(value: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every path into a JSON value (the value itself included)."""
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from paths(item, (*prefix, index))


def replaced(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    out = copy.copy(value)
    out[path[0]] = new if len(path) == 1 else replaced(value[path[0]], path[1:], new)
    return out


def removed(value: Any, path: tuple[Any, ...]) -> Any:
    out = copy.copy(value)
    if len(path) == 1:
        del out[path[0]]
        return out
    out[path[0]] = removed(value[path[0]], path[1:])
    return out


@st.composite
def mutated_messages(draw: st.DrawFn, version: str, request_id: Any) -> dict[str, Any]:
    """A client request of `version` with one field (anywhere, envelope included) replaced by a
    value of another type, removed, or joined by an unknown field."""
    method, params = draw(st.sampled_from(request_shapes(version)))
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    path = draw(st.sampled_from(list(paths(message))[1:]))
    how = draw(st.sampled_from(["replace", "replace", "replace", "remove", "extra"]))
    if how == "remove":
        return removed(message, path)
    if how == "extra":
        target = path[:-1]
        holder = message
        for key in target:
            holder = holder[key]
        if isinstance(holder, dict):
            return replaced(message, (*target, draw(st.text(min_size=1, max_size=8))), draw(JSON))
    new = draw(st.one_of(st.sampled_from(WRONG_VALUES), JSON))
    return replaced(message, path, new)


# -- the expected answer to one message ------------------------------------------------------


def envelope_error(message: Any) -> tuple[bool, Any] | None:
    """For a message the server must reject as a JSON-RPC envelope: (True, id it must echo).
    None when the envelope is a well-formed request or notification. An independent statement of
    JSON-RPC 2.0 + MCP (ids are strings or integers), not a call into the code under test."""
    if not isinstance(message, dict):
        return True, None
    good_id = "id" in message and type(message["id"]) in (str, int)
    echo = message["id"] if good_id else None
    if message.get("jsonrpc") != "2.0":
        return True, echo
    if "method" not in message or message["method"] is None:
        if "result" in message:
            return (False, None) if good_id else (True, None)
        if isinstance(message.get("error"), dict) and (good_id or message.get("id") is None):
            return False, None
        return True, echo
    if not isinstance(message["method"], str):
        return True, echo
    if "params" in message and message["params"] is not None and not isinstance(message["params"], dict):
        return True, echo
    if "id" in message and not good_id:
        return True, None
    return None


def is_response(message: Any) -> bool:
    """A message the server must ignore (a response to nothing it asked)."""
    verdict = envelope_error(message)
    return verdict is not None and verdict[0] is False


# -- a stdio server subprocess ----------------------------------------------------------------


class StdioTarget:
    """The target server as a subprocess with time-bounded, line-oriented reads.

    stderr goes to a temporary file, never a pipe: a server logging every rejected input must
    not block on a full pipe the test does not read."""

    def __init__(self, *args: str) -> None:
        self.args = args
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 (closed by close())
        self.proc = subprocess.Popen([sys.executable, str(TARGET), *args], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self._stderr, bufsize=0)
        assert self.proc.stdout is not None
        os.set_blocking(self.proc.stdout.fileno(), False)
        self._selector = selectors.DefaultSelector()
        self._selector.register(self.proc.stdout, selectors.EVENT_READ)
        self._buffer = b""
        self.received = 0
        self.stderr_text = ""

    def alive(self) -> bool:
        return self.proc.poll() is None

    def send_raw(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, message: Any) -> None:
        self.send_raw(json.dumps(message).encode() + b"\n")

    def read(self, timeout: float = 10.0) -> dict[str, Any]:
        """The next message; `TimeoutError` when none arrives within `timeout` seconds."""
        assert self.proc.stdout is not None
        while b"\n" not in self._buffer:
            if not self._selector.select(timeout):
                raise TimeoutError(f"no message from the server within {timeout}s (buffered {self._buffer[:200]!r})")
            chunk = self.proc.stdout.read(1 << 16)
            if not chunk:
                raise EOFError(f"the server closed stdout; exit code {self.proc.poll()}; stderr:\n{self.stderr()[-3000:]}")
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        self.received += 1
        return json.loads(line)

    def request(self, message: dict[str, Any], timeout: float = 10.0) -> dict[str, Any]:
        """Send a request and return its response (no other message may come first)."""
        self.send(message)
        answer = self.read(timeout)
        assert answer.get("id") == message["id"], f"expected the answer to {message['id']!r}, got {answer!r}"
        return answer

    def initialize(self) -> dict[str, Any]:
        answer = self.request(INIT)
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return answer

    def stderr(self) -> str:
        self._stderr.seek(0)
        return self._stderr.read().decode(errors="replace")

    def close(self, timeout: float = 15.0) -> int:
        """EOF on stdin, then the exit code (killed only as a last resort, which fails the caller)."""
        if self.proc.stdin is not None and not self.proc.stdin.closed:
            with contextlib.suppress(BrokenPipeError):
                self.proc.stdin.close()
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError(f"the server did not exit within {timeout}s of EOF") from None
        finally:
            self._selector.close()
            if self.proc.stdout is not None:
                self.proc.stdout.close()
            self.stderr_text = self.stderr()
            self._stderr.close()


# -- what a server must answer ------------------------------------------------------------------


def strict_decode(data: bytes) -> tuple[bool, Any]:
    """(True, value) when `data` is one JSON text in strict UTF-8 (no NaN/Infinity), else (False, None)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return False, None

    def no_constants(name: str) -> Any:
        raise ValueError(name)

    try:
        return True, json.loads(text, parse_constant=no_constants)
    except (ValueError, RecursionError):
        return False, None


class Expected:
    """The answer one line must get: `codes` None means silence; otherwise one response to `id`
    whose outcome is "result" or an error code in `codes`."""

    __slots__ = ("codes", "id", "result_ok")

    def __init__(self, request_id: Any = None, codes: frozenset[int] | None = None, result_ok: bool = False) -> None:
        self.id = request_id
        self.codes = codes
        self.result_ok = result_ok

    @property
    def silent(self) -> bool:
        return self.codes is None and not self.result_ok

    def check(self, answer: dict[str, Any]) -> None:
        assert "id" in answer and answer["id"] == self.id and type(answer["id"]) is type(self.id), (
            f"answer {answer!r} does not carry the id {self.id!r}")
        if "result" in answer:
            assert self.result_ok, f"expected an error in {sorted(self.codes or ())}, got a result: {answer!r}"
            return
        error = answer.get("error")
        assert isinstance(error, dict) and isinstance(error.get("message"), str), f"malformed answer {answer!r}"
        assert self.codes is not None and error.get("code") in self.codes, (
            f"expected {'a result or ' if self.result_ok else ''}an error in {sorted(self.codes or ())}, got {answer!r}")


def expected_for(line: bytes, *, http: bool = False) -> Expected:
    """What a server must answer to one stdio line or HTTP body (JSON-RPC 2.0 + MCP, stated
    independently). Blank lines are skipped on stdio; a blank body is a parse error."""
    if not line.strip() and not http:
        return Expected()
    ok, value = strict_decode(line)
    if not ok:
        return Expected(None, frozenset({PARSE_ERROR}))
    verdict = envelope_error(value)
    if verdict is not None:
        return Expected(verdict[1], frozenset({INVALID_REQUEST})) if verdict[0] else Expected()
    if "id" not in value:
        return Expected()  # a notification: silence, whatever its method or params
    if value.get("method") == "prompts/get":
        return Expected(value["id"], PROMPT_FAULT_CODES, result_ok=True)
    return Expected(value["id"], CLIENT_FAULT_CODES, result_ok=True)


# -- a raw ASGI client: streams, and disconnects when told ---------------------------------------


class AsgiResponse:
    __slots__ = ("body", "completed", "headers", "status")

    def __init__(self) -> None:
        self.status = 0
        self.headers: dict[str, str] = {}
        self.body = b""
        self.completed = False
        """The app ended the response itself (False: the client disconnected first)."""

    def messages(self) -> list[Any]:
        """The JSON-RPC messages of the body (one JSON document, or SSE `data:` events)."""
        if self.headers.get("content-type", "").startswith("text/event-stream"):
            return [json.loads(line[5:]) for line in wire_lines(self.body.decode())
                    if line.startswith("data:") and line[5:].strip()]
        return [json.loads(self.body)] if self.body else []


async def asgi_request(app: Any, method: str, headers: dict[str, str], body: bytes = b"", *,
                       disconnect_when: Any = None, disconnect: Any = None, timeout: float = 10.0) -> AsgiResponse:
    """Call an ASGI app once, as an HTTP/1.1 server would. The client disconnects when
    `disconnect_when(response)` turns true (checked after every chunk) or when the anyio Event
    `disconnect` is set; the app must then return by itself. A hang raises TimeoutError."""
    import anyio

    response = AsgiResponse()
    gone = disconnect if disconnect is not None else anyio.Event()
    body_sent = False

    async def receive() -> dict[str, Any]:
        nonlocal body_sent
        if not body_sent:
            body_sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        await gone.wait()
        return {"type": "http.disconnect"}

    async def send(event: dict[str, Any]) -> None:
        if gone.is_set():
            raise OSError("client disconnected")
        if event["type"] == "http.response.start":
            response.status = event["status"]
            response.headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in event.get("headers", [])}
            return
        response.body += event.get("body", b"")
        if not event.get("more_body", False):
            response.completed = True
            gone.set()  # after a complete response the connection's receive reports disconnect
        elif disconnect_when is not None and disconnect_when(response):
            gone.set()

    scope = {"type": "http", "asgi": {"version": "3.0", "spec_version": "2.4"}, "http_version": "1.1",
             "method": method, "scheme": "http", "path": "/mcp", "raw_path": b"/mcp", "query_string": b"",
             "root_path": "", "server": ("127.0.0.1", 80), "client": ("127.0.0.1", 50000),
             "headers": [(b"host", b"127.0.0.1"), *((k.lower().encode("latin-1"), v.encode("latin-1"))
                                                     for k, v in headers.items())]}
    with anyio.fail_after(timeout):
        await app(scope, receive, send)
    return response
