"""`messages.classify` against every JSON type in every envelope field.

Property: it returns a kind or raises `InvalidMessage`, never anything else; its verdict agrees
with an independent statement of JSON-RPC 2.0 + MCP (`hardening_support.envelope_error`); what
it accepts is safe to act on (hashable ids of the right type, params an object).
"""

from __future__ import annotations

from typing import Any

from hardening_support import CASES, JSON, WRONG_VALUES, envelope_error, fuzz_settings
from hypothesis import given
from hypothesis import strategies as st

from mcp._protocol import messages as m

FIELDS = ["jsonrpc", "id", "method", "params", "result", "error"]
ANY_VALUE = st.one_of(st.sampled_from(WRONG_VALUES), JSON)


@st.composite
def envelopes(draw: st.DrawFn) -> Any:
    """Dicts built from the envelope's fields, each absent or holding a value of any type,
    biased toward the well-formed values so every branch is reached."""
    if draw(st.integers(min_value=0, max_value=9)) == 0:
        return draw(JSON)
    message: dict[str, Any] = {}
    good = {"jsonrpc": "2.0", "id": draw(st.one_of(st.integers(), st.text(max_size=4))),
            "method": draw(st.sampled_from(["ping", "tools/call", "notifications/cancelled", "x"])),
            "params": {}, "result": {}, "error": {"code": -1, "message": "m"}}
    for field in FIELDS:
        choice = draw(st.sampled_from(["absent", "absent", "good", "good", "any"]))
        if choice == "good":
            message[field] = good[field]
        elif choice == "any":
            message[field] = draw(ANY_VALUE)
    for _ in range(draw(st.integers(min_value=0, max_value=2))):
        message[draw(st.text(max_size=6))] = draw(ANY_VALUE)
    return message


@fuzz_settings(3000)
@given(envelopes())
def test_classify_agrees_with_the_reference_and_only_raises_invalid_message(message: Any) -> None:
    CASES["classify: envelopes"] += 1
    verdict = envelope_error(message)
    try:
        kind = m.classify(message)
    except m.InvalidMessage as exc:
        assert verdict is not None and verdict[0] is True, f"rejected a valid message {message!r}: {exc.reason}"
        assert exc.request_id == verdict[1] and type(exc.request_id) is type(verdict[1])
        response = m.invalid_message_response(exc)
        assert response["error"]["code"] == -32600 and response["id"] == verdict[1]
        return
    assert verdict is None or verdict[0] is False, f"accepted an invalid message {message!r}"
    if kind in (m.REQUEST, m.NOTIFICATION):
        assert verdict is None
        assert isinstance(message["method"], str)
        assert message.get("params") is None or type(message["params"]) is dict
        assert (kind is m.REQUEST) == ("id" in message)
        if kind is m.REQUEST:
            assert type(message["id"]) in (str, int)
            hash(message["id"])
    else:
        assert kind in (m.RESULT, m.ERROR)
        assert type(message.get("id")) in (str, int, type(None))
        hash(message.get("id"))
        if kind is m.ERROR:
            assert type(message["error"]) is dict


@fuzz_settings(300)
@given(st.sampled_from(FIELDS[:4]), ANY_VALUE)
def test_every_json_type_in_every_request_field(field: str, value: Any) -> None:
    CASES["classify: field types"] += 1
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    message[field] = value
    verdict = envelope_error(message)
    try:
        m.classify(message)
    except m.InvalidMessage as exc:
        assert verdict is not None and exc.request_id == verdict[1]
    else:
        assert verdict is None or verdict[0] is False


def test_ids_of_every_json_type() -> None:
    CASES["classify: id types"] += 1
    for request_id in WRONG_VALUES:
        for shape in ({"method": "ping"}, {"result": {}}, {"error": {"code": 1, "message": "m"}}):
            message = {"jsonrpc": "2.0", "id": request_id, **shape}
            good = type(request_id) in (str, int) or (request_id is None and "error" in shape)
            if good:
                m.classify(message)
            else:
                try:
                    m.classify(message)
                except m.InvalidMessage as exc:
                    assert exc.request_id is None
                else:
                    raise AssertionError(f"accepted id {request_id!r} in {shape}")
