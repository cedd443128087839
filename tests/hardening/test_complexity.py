"""The work spent on client input grows linearly with its size (docs/hardening-audit.md).

Method, never a clock: Python-level parsers are run under `sys.settrace` and their trace events
(lines executed, calls made) are counted, a deterministic measure; hypothesis draws a unit of input
and a size k, and the count at 4k must stay within 4 times the count at k plus a constant (a
quadratic parser needs 16 times). The C-level primitives these parsers call (`str.split`, `find`,
`b64decode`, set lookups) are single passes. Regular expressions run by Python's `re` on client
input are checked by their structure: none has an unbounded repeat, so each attempt does bounded
work and a search is linear. JSON Schema `pattern`s run on the linear engine (Rust `regex`, via
pydantic-core): a pattern that takes Python's `re` exponential time is answered over a real stdio
server, with a ping behind it, within one generous budget.
"""

from __future__ import annotations

import base64
import re
import sys
import time
from collections.abc import Callable
from typing import Any

import pytest
from hardening_support import StdioTarget, fuzz_settings
from hypothesis import given
from hypothesis import strategies as st

from mcp._protocol import http as h
from mcp.client.output_validation import compile_validator, linear_search
from mcp.server._host_check import check
from mcp.server.mcpserver.handlers import page
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared import _uri_matcher, path_security
from mcp.shared.exceptions import MCPError
from mcp.shared.uri_template import UriTemplate


def steps(fn: Callable[[], Any]) -> int:
    """Trace events (lines and calls, in any Python function) while `fn` runs."""
    count = 0

    def tracer(frame: Any, event: str, arg: Any) -> Any:
        nonlocal count
        count += 1
        return tracer

    previous = sys.gettrace()
    sys.settrace(tracer)
    try:
        fn()
    except (MCPError, ValueError):
        pass
    finally:
        sys.settrace(previous)
    return count


def assert_linear(make: Callable[[int], Callable[[], Any]], k: int) -> None:
    small, large = steps(make(k)), steps(make(4 * k))
    assert large <= 4 * small + 200, f"{small} steps at size {k}, {large} at {4 * k}: more than linear"


def test_the_measure_tells_a_quadratic_parser_from_a_linear_one() -> None:
    def quadratic(text: str) -> int:  # what a backtracking scan does: every start, then a walk
        return sum(1 for i in range(len(text)) for j in range(i, len(text)) if text[j] == "/")

    with pytest.raises(AssertionError, match="more than linear"):
        assert_linear(lambda n: (lambda: quadratic("-" * n)), 50)
    assert_linear(lambda n: (lambda: [c for c in "-" * n if c == "/"]), 50)


SIZES = st.integers(min_value=50, max_value=2000)
UNITS = st.text(alphabet="-._~,;=/ ab%", min_size=1, max_size=4)
SETTINGS = fuzz_settings(30)


@SETTINGS
@given(unit=UNITS, k=SIZES)
def test_matching_a_resource_template_is_linear_in_the_uri(unit: str, k: int) -> None:
    templates = [UriTemplate.parse(t) for t in ("pair://{name}-{date}", "dots://{a}.{b}", "list://{a},{b}",
                                                 "path://{+rest}/end", "q://x{?a,b}")]
    for template in templates:
        assert_linear(lambda n, t=template: (lambda: t.match(t.template.split("{")[0] + unit * n + "/")), k)


@SETTINGS
@given(unit=st.sampled_from(["text/plain;q=0.1", "application/json", "*/*", " ;,", "text/event-stream;a=b"]), k=SIZES)
def test_reading_accept_and_content_type_headers_is_linear(unit: str, k: int) -> None:
    def accepts(n: int) -> Callable[[], Any]:
        h._accepts.cache_clear()  # pyright: ignore[reportPrivateUsage]  # a cached header costs nothing: measure the parse
        header = ", ".join([unit] * n)
        return lambda: h.accepts(header)

    assert_linear(accepts, k)
    assert_linear(lambda n: (lambda: h.is_json_content_type("application/json;" + unit * n)), k)


@SETTINGS
@given(unit=UNITS, k=SIZES)
def test_checking_host_and_origin_and_mcp_header_values_is_linear(unit: str, k: int) -> None:
    settings = TransportSecuritySettings(enable_dns_rebinding_protection=True)
    assert_linear(lambda n: (lambda: check(settings, "localhost:" + unit * n, "http://localhost:" + unit * n)), k)
    encoded = lambda n: "=?base64?" + base64.b64encode((unit * n).encode()).decode() + "?="  # noqa: E731
    assert_linear(lambda n: (lambda: h.decode_header_value(encoded(n))), k)
    assert_linear(lambda n: (lambda: h.header_mismatch(
        {"method": "tools/call", "params": {"name": unit * n}}, {"mcp-method": "tools/call", "mcp-name": unit * n})), k)


@SETTINGS
@given(unit=UNITS, k=SIZES)
def test_decoding_a_cursor_and_checking_a_path_are_linear(unit: str, k: int) -> None:
    items = list(range(10))
    assert_linear(lambda n: (lambda: page(items, unit * n, 5)), k)
    assert_linear(lambda n: (lambda: page(items, base64.urlsafe_b64encode(b"o:" + b"9" * n).decode(), 5)), k)
    assert_linear(lambda n: (lambda: path_security.contains_path_traversal(unit * n)), k)


@pytest.mark.anyio
async def test_cursors_and_event_ids_longer_than_any_we_mint_are_refused_unparsed() -> None:
    from mcp.server.event_store import InMemoryEventStore

    with pytest.raises(MCPError, match="invalid cursor"):
        page(list(range(10)), "A" * 65, 5)
    store = InMemoryEventStore()
    await store.store_event("s", {"jsonrpc": "2.0", "method": "x"})
    sent: list[Any] = []

    async def collect(event: Any) -> None:
        sent.append(event)

    assert await store.replay_events_after("0" * 20 + "1", collect) is None and sent == []


def repeats(pattern: re.Pattern[str]) -> list[tuple[int, int]]:
    """(min, max) of every repeat in `pattern`'s parse tree."""
    from re import _parser  # type: ignore[attr-defined]

    found: list[tuple[int, int]] = []

    def walk(items: Any) -> None:
        for op, arg in items:
            name = str(op)
            if name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
                found.append((arg[0], arg[1]))
                walk(arg[2])
            elif name in ("SUBPATTERN", "ATOMIC_GROUP"):
                walk(arg[-1])
            elif name == "BRANCH":
                for branch in arg[1]:
                    walk(branch)

    walk(_parser.parse(pattern.pattern, pattern.flags))
    return found


def test_python_regexes_applied_to_client_input_have_no_unbounded_repeat() -> None:
    from re import _constants  # type: ignore[attr-defined]

    applied = [path_security._SEPARATORS, path_security._DRIVE,  # resource paths from URIs
               *(_uri_matcher._class_pattern(stops) for stops in ("-", ".", ",", "/?#", "/", "&="))]  # URI scans
    for pattern in applied:
        assert all(high != _constants.MAXREPEAT for _, high in repeats(pattern)), pattern.pattern


@SETTINGS
@given(text=st.text(alphabet="ab-.x", max_size=40))
def test_the_linear_engine_agrees_with_python_re_on_ordinary_patterns(text: str) -> None:
    for pattern in ["^a+$", "b", "^[a-z]+(-[a-z]+)*$", r"\.x", "^(ab|a)b*$", "x{2,3}"]:
        assert linear_search(pattern)(text) == (re.search(pattern, text) is not None), pattern


def test_a_catastrophic_pattern_is_matched_in_one_pass() -> None:
    check_word = compile_validator({"type": "object", "properties": {"w": {"type": "string", "pattern": "^(a+)+$"},
                                                                     "p": {"patternProperties": {"^(x+)+$": {"type": "integer"}}}}})
    assert check_word({"w": "a" * 100})is None
    assert "does not match" in (check_word({"w": "a" * 100_000 + "!"}) or "")  # Python's re: forever
    assert check_word({"p": {"x" * 100_000 + "!": "not checked", "xx": 1}}) is None
    assert "is not of type 'integer'" in (check_word({"p": {"xxx": "one"}}) or "")


BUDGET = 60.0
"""Seconds for every answer together: a bound on the wait, not an assertion on speed."""


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
def test_a_tool_argument_against_a_backtracking_pattern_is_refused_and_a_ping_behind_it_answered(backend: str) -> None:
    """Was: a verbatim input schema's `pattern` ran on Python's `re`: `^(a+)+$` against 64 000 `a`s
    and a `!` was never answered, its worker thread (the event loop itself, for an async tool)
    spinning at full CPU for longer than anyone waits."""
    target = StdioTarget("--backend", backend)
    try:
        target.initialize()
        target.send({"jsonrpc": "2.0", "id": "bad", "method": "tools/call",
                     "params": {"name": "patterned", "arguments": {"word": "a" * 64_000 + "!"}}})
        target.send({"jsonrpc": "2.0", "id": "good", "method": "tools/call",
                     "params": {"name": "patterned", "arguments": {"word": "aaa"}}})
        target.send({"jsonrpc": "2.0", "id": "ping", "method": "ping"})
        deadline = time.monotonic() + BUDGET
        answers: dict[str, Any] = {}
        while len(answers) < 3:
            message = target.read(timeout=max(deadline - time.monotonic(), 0.1))
            answers[message["id"]] = message
        bad = answers["bad"]["result"]
        assert bad["isError"] and "Invalid arguments: " in bad["content"][0]["text"]
        assert "does not match '^(a+)+$'" in bad["content"][0]["text"]
        assert answers["good"]["result"]["content"][0]["text"] == "aaa"
        assert answers["ping"]["result"] == {}
    finally:
        assert target.close() == 0
