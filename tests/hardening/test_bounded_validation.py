"""Validation reports and JSON Schema keywords applied to data from the other side do work bounded
by the data's size, on both sides (docs/hardening-audit.md, issue 31 items 1-3).

Asserted on counts and sizes, never on a clock: the size of an answer, the number of canonical
forms `uniqueItems` builds, the trace-event count at sizes k and 4k (`assert_linear`), and that
a ping queued behind a hostile request is answered. `anyio.fail_after` with a generous bound is
only a hang guard.
"""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from hardening_support import StdioTarget
from test_complexity import assert_linear

from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared import json_schema_check
from mcp.shared.json_schema_check import MAX_MESSAGE_CHARS, compile_validator

HOSTILE = Path(__file__).parent / "servers" / "hostile_output_server.py"
GUARD = 120.0
"""Seconds: a bound on the wait so a regression fails instead of hanging, not a speed claim."""


def answers_by_id(target: StdioTarget, count: int) -> dict[str, tuple[int, dict[str, Any]]]:
    """The next `count` answers, by id, each with its size in bytes on the wire."""
    answers: dict[str, tuple[int, dict[str, Any]]] = {}
    while len(answers) < count:
        message = target.read(timeout=GUARD)
        answers[message["id"]] = (len(json.dumps(message)), message)
    return answers


def test_a_million_wrong_typed_items_get_a_bounded_report_and_the_ping_behind_them_an_answer() -> None:
    """Was: pydantic's report of all 1 000 000 errors: about 1 GB, a 177 MB answer, the loop held."""
    target = StdioTarget()
    try:
        target.initialize()
        target.send({"jsonrpc": "2.0", "id": "huge", "method": "tools/call",
                     "params": {"name": "total", "arguments": {"numbers": ["x"] * 1_000_000}}})
        target.send({"jsonrpc": "2.0", "id": "small", "method": "tools/call",
                     "params": {"name": "total", "arguments": {"numbers": ["x", 2, "y"]}}})
        target.send({"jsonrpc": "2.0", "id": "ping", "method": "ping"})
        answers = answers_by_id(target, 3)
        size, huge = answers["huge"]
        text = huge["result"]["content"][0]["text"]
        assert huge["result"]["isError"]
        assert size < 2_000  # was 177 MB
        assert text.startswith("Error executing tool total: 1 validation error for totalArguments\nnumbers.0\n")
        assert text.endswith("only the first error of each list, set, tuple or dict is reported)")
        small = answers["small"][1]["result"]["content"][0]["text"]
        assert small.startswith("Error executing tool total: 2 validation errors for totalArguments\nnumbers.0\n")
        assert "\nnumbers.2\n" in small and "only the first error" not in small  # pydantic's own text, whole
        assert answers["ping"][1]["result"] == {}
    finally:
        assert target.close() == 0


def test_unique_items_in_an_input_schema_takes_one_pass_and_answers_duplicates_in_bounded_text() -> None:
    """Was: the stock `uniqueItems` compared objects pairwise: a 51 KB request held every client 25 s."""
    target = StdioTarget()
    try:
        target.initialize()
        rows = [{"n": i} for i in range(100_000)]
        target.send({"jsonrpc": "2.0", "id": "distinct", "method": "tools/call",
                     "params": {"name": "distinct", "arguments": {"rows": rows}}})
        target.send({"jsonrpc": "2.0", "id": "twice", "method": "tools/call",
                     "params": {"name": "distinct", "arguments": {"rows": [*rows, {"n": 5}]}}})
        target.send({"jsonrpc": "2.0", "id": "ping", "method": "ping"})
        answers = answers_by_id(target, 3)
        assert answers["distinct"][1]["result"]["content"][0]["text"] == "100000"
        size, twice = answers["twice"]
        assert twice["result"]["isError"]
        assert twice["result"]["content"][0]["text"].endswith("has non-unique elements (at /rows)")
        assert size < 4 * MAX_MESSAGE_CHARS
        assert answers["ping"][1]["result"] == {}
    finally:
        assert target.close() == 0


def test_unique_items_builds_one_canonical_form_per_item(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = 0
    original = json_schema_check.canonical

    def counted(value: Any) -> Any:
        nonlocal calls
        calls += 1
        return original(value)

    monkeypatch.setattr(json_schema_check, "canonical", counted)
    check = compile_validator({"type": "array", "uniqueItems": True})
    assert check([{"n": i, "tags": [i, str(i)]} for i in range(10_000)]) is None
    assert calls == 10_000 * 5  # one per JSON value: each item, its two members, its two tags


@pytest.mark.parametrize("k", [200])
def test_unique_items_over_objects_is_linear(k: int) -> None:
    check = compile_validator({"type": "array", "uniqueItems": True})
    assert_linear(lambda n: lambda: check([{"n": i} for i in range(n)]), k)


def test_unique_items_keeps_json_schema_equality() -> None:
    check = compile_validator({"type": "array", "uniqueItems": True})
    assert check([1, 1.0]) is not None
    assert check([{"a": 1, "b": [1, 2]}, {"b": [1.0, 2], "a": 1}]) is not None
    assert check([1, True]) is None and check([0, False]) is None and check([[1], [True]]) is None
    assert check(["1", 1, None, [], {}]) is None


def test_a_million_errors_against_an_input_schema_build_a_bounded_number_of_error_objects(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import jsonschema.exceptions

    made = 0
    original = jsonschema.exceptions.ValidationError.__init__

    def counted(self: Any, *args: Any, **kwargs: Any) -> None:
        nonlocal made
        made += 1
        original(self, *args, **kwargs)

    monkeypatch.setattr(jsonschema.exceptions.ValidationError, "__init__", counted)
    for schema in ({"type": "array", "items": {"type": "integer"}},
                   {"anyOf": [{"type": "array", "items": {"type": "integer"}}, {"type": "null"}]}):
        made = 0
        error = compile_validator(schema)(["x"] * 1_000_000)
        assert error is not None and "is not of type 'integer'" in error
        assert made <= 3 * json_schema_check.MAX_ERRORS


def test_a_pattern_the_linear_engine_cannot_compile_is_never_run_by_python_re(caplog: pytest.LogCaptureFixture) -> None:
    schema = {"type": "string", "pattern": "^(?=a)(a+)+$"}
    with caplog.at_level(logging.WARNING, "mcp.json_schema"):
        from_peer = compile_validator(schema)
        own = compile_validator(schema, schema_from_peer=False)
    word = "a" * 40 + "!"  # Python's re: about 2**40 steps
    assert from_peer(word) is None  # a server's output schema: not checked, warned
    assert own(word) == "cannot be checked safely: the pattern '^(?=a)(a+)+$' needs a backtracking regex engine"
    assert sum("needs a backtracking regex engine" in r.getMessage() for r in caplog.records) == 2


def test_pattern_properties_with_unevaluated_properties_are_not_checked_by_python_re() -> None:
    schema = {"type": "object", "patternProperties": {"^(a+)+$": {}}, "unevaluatedProperties": False}
    assert compile_validator(schema)({"a" * 40 + "!": 1}) is None
    assert "cannot be checked safely" in (compile_validator(schema, schema_from_peer=False)({"b": 1}) or "")


@pytest.mark.anyio
async def test_a_hostile_servers_output_schemas_do_not_freeze_the_client() -> None:
    """Was: a lookahead `pattern` fell back to Python's `re` (every thread frozen, no timeout
    fired) and `uniqueItems` over 100 000 objects was quadratic."""
    params = StdioServerParameters(command=sys.executable, args=[str(HOSTILE)])
    with anyio.fail_after(GUARD):
        async with Client(stdio_client(params)) as client:
            looked = await client.call_tool("lookahead", {})
            assert looked.structured_content == {"word": "a" * 40 + "!"}  # not checkable: accepted, warned
            many = await client.call_tool("rows", {"size": 100_000})
            assert many.content[0].text == "100000"  # type: ignore[union-attr]
            with pytest.raises(RuntimeError) as caught:
                await client.call_tool("rows", {"size": 100_000, "duplicate": True})
            message = str(caught.value)
            assert message.startswith("Invalid structured content returned by tool rows: [{'n': 0}, {'n': 1}")
            assert message.endswith("has non-unique elements (at /rows)")
            assert len(message) < 2 * MAX_MESSAGE_CHARS


def test_counting_values_stops_at_the_limit_and_counts_every_kind() -> None:
    from mcp.shared.json_schema_check import has_more_values_than

    assert not has_more_values_than({"a": [1] * 998}, 1000)  # the object, the array, 998 items
    assert has_more_values_than({"a": [1] * 999}, 1000)
    assert has_more_values_than([[None] * 1000] * 1000, 1000)
    assert not has_more_values_than("x" * 1_000_000, 1)  # one value, however long
