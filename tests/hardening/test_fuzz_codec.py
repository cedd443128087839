"""`codec.decode` never raises anything but `ParseError`; `codec.encode_line` never lets a
decoded value take a writer down.

Inputs: random bytes, invalid UTF-8, truncated JSON, 100k-level nesting, huge strings, arrays
and numbers, the non-JSON literals NaN/Infinity, lone surrogates, float overflow.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hardening_support import CASES, JSON, fuzz_settings
from hypothesis import given
from hypothesis import strategies as st

from mcp._protocol.codec import (
    EncodeError,
    ParseError,
    decode,
    encode_bytes,
    encode_line,
    encode_response_bytes,
)


def decodes_or_parse_error(data: bytes | str) -> tuple[bool, Any]:
    try:
        return True, decode(data)
    except ParseError:
        return False, None


def strict_reference(data: bytes) -> tuple[bool, Any]:
    """RFC 8259 as the stdlib sees it, minus the literals it accepts beyond the RFC."""
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


def same(one: Any, two: Any) -> bool:
    return json.dumps(one, sort_keys=True) == json.dumps(two, sort_keys=True)


@fuzz_settings(800)
@given(st.binary(max_size=200))
def test_random_bytes_decode_or_raise_parse_error(data: bytes) -> None:
    CASES["codec: random bytes"] += 1
    ok, value = decodes_or_parse_error(data)
    ref_ok, ref_value = strict_reference(data)
    assert ok == ref_ok
    if ok:
        assert same(value, ref_value)


@fuzz_settings(600)
@given(JSON, st.data())
def test_truncated_and_corrupted_json_raises_parse_error_only(value: Any, data: st.DataObject) -> None:
    CASES["codec: truncated/corrupted JSON"] += 1
    text = json.dumps(value).encode()
    cut = data.draw(st.integers(min_value=0, max_value=len(text)))
    decodes_or_parse_error(text[:cut])
    if text:
        at = data.draw(st.integers(min_value=0, max_value=len(text) - 1))
        byte = data.draw(st.integers(min_value=0, max_value=255))
        decodes_or_parse_error(text[:at] + bytes([byte]) + text[at + 1:])
    ok, back = decodes_or_parse_error(text)
    assert ok and same(back, value)


@fuzz_settings(300)
@given(st.binary(min_size=1, max_size=40).filter(lambda b: not _is_utf8(b)))
def test_invalid_utf8_is_a_parse_error(data: bytes) -> None:
    CASES["codec: invalid UTF-8"] += 1
    with pytest.raises(ParseError, match="UTF-8"):
        decode(b'{"a":"' + data + b'"}')


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


@pytest.mark.parametrize("text", [
    "[" * 100_000 + "]" * 100_000,
    '{"a":' * 100_000 + "1" + "}" * 100_000,
    "[" * 100_000,
    '{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":' + "[" * 100_000 + "]" * 100_000 + "}}",
])
def test_absurd_nesting_is_a_parse_error(text: str) -> None:
    CASES["codec: deep nesting"] += 1
    with pytest.raises(ParseError):
        decode(text.encode())


@pytest.mark.parametrize("text", ["NaN", "[Infinity]", '{"a":-Infinity}', "1" * 5000, "[" + "9" * 100_000 + "]"])
def test_non_json_literals_and_huge_integers_are_parse_errors(text: str) -> None:
    CASES["codec: non-JSON literals"] += 1
    with pytest.raises(ParseError):
        decode(text)


def test_huge_strings_and_arrays_decode() -> None:
    CASES["codec: huge values"] += 1
    assert decode(b'"' + b"s" * 5_000_000 + b'"') == "s" * 5_000_000
    assert len(decode(b"[" + b"1," * 1_000_000 + b"1]")) == 1_000_001
    assert decode(b'"' + b"\\u00e9" * 100_000 + b'"') == "é" * 100_000


# -- the writer's side ------------------------------------------------------------------------

HOSTILE = st.one_of(JSON, st.sampled_from(["\ud800", "a\udfffb", 1e308 * 10, -1e308 * 10, [1e999], {"k": "\udc80"}]))


@fuzz_settings(600)
@given(HOSTILE, st.one_of(st.integers(), st.text(max_size=5)))
def test_encode_line_answers_every_response_with_one_valid_utf8_json_line(value: Any, request_id: Any) -> None:
    CASES["codec: encode_line"] += 1
    for message in ({"jsonrpc": "2.0", "id": request_id, "result": {"value": value}},
                    {"jsonrpc": "2.0", "id": request_id, "error": {"code": 1, "message": "m", "data": value}}):
        line = encode_line(message)
        assert line.endswith(b"\n") and line.count(b"\n") == 1
        back = json.loads(line.decode("utf-8"))  # strict UTF-8: no surrogates on the wire
        assert back["id"] == request_id
        if _finite(value):
            assert back == message
        else:
            assert back["error"]["code"] == -32603


@fuzz_settings(200)
@given(HOSTILE)
def test_encode_line_refuses_an_unencodable_notification_with_encode_error_only(value: Any) -> None:
    CASES["codec: encode_line"] += 1
    message = {"jsonrpc": "2.0", "method": "notifications/message", "params": {"data": value}}
    try:
        line = encode_line(message)
    except EncodeError:
        assert not _finite(value)
    else:
        assert json.loads(line.decode("utf-8")) == message


def _finite(value: Any) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, list):
        return all(_finite(v) for v in value)
    if isinstance(value, dict):
        return all(_finite(v) for v in value.values())
    return True


def test_encode_line_survives_values_json_cannot_carry() -> None:
    """Too deep, of a type no encoder knows, or not finite: a response becomes an internal
    error to the same id, anything else raises `EncodeError`."""
    CASES["codec: encode_line"] += 1
    nested: Any = []
    for _ in range(100_000):
        nested = [nested]
    for bad in (nested, object(), {type("Opaque", (), {})()}, math.nan):
        answer = json.loads(encode_line({"jsonrpc": "2.0", "id": 7, "result": {"x": bad}}))
        assert answer == {"jsonrpc": "2.0", "id": 7,
                          "error": {"code": -32603, "message": "Internal error: the response could not be encoded"}}
        with pytest.raises(EncodeError):
            encode_line({"jsonrpc": "2.0", "method": "x", "params": {"x": bad}})


@fuzz_settings(300)
@given(HOSTILE, st.one_of(st.integers(), st.text(max_size=5)))
def test_encode_bytes_is_strict_utf8_json_or_encode_error(value: Any, request_id: Any) -> None:
    CASES["codec: encode_bytes"] += 1
    response = {"jsonrpc": "2.0", "id": request_id, "result": {"value": value}}
    try:
        body = encode_bytes(response)
    except EncodeError:
        assert not _finite(value)
        body = encode_response_bytes(response)
        assert json.loads(body.decode("utf-8"))["error"]["code"] == -32603
    else:
        assert json.loads(body.decode("utf-8")) == response
        assert encode_response_bytes(response) == body


def test_encode_line_writes_values_pydantic_knows_as_pydantic_does() -> None:
    CASES["codec: encode_line"] += 1
    import datetime
    import enum

    class Colour(enum.Enum):
        RED = "red"

    message = {"jsonrpc": "2.0", "id": 1, "result": {"when": datetime.date(2026, 12, 1), "colour": Colour.RED,
                                                     "pair": (1, 2), "raw": b"abc"}}
    assert json.loads(encode_line(message)) == {
        "jsonrpc": "2.0", "id": 1, "result": {"when": "2026-12-01", "colour": "red", "pair": [1, 2], "raw": "abc"}}


def test_text_that_mentions_nan_or_infinity_is_written_unchanged() -> None:
    CASES["codec: encode_line"] += 1
    message = {"jsonrpc": "2.0", "id": 1, "result": {"text": "NaN and Infinity are not JSON", "x": 1.5}}
    assert json.loads(encode_line(message)) == message
    assert json.loads(encode_bytes(message)) == message
