"""The engine's `Peer` fed random message sequences, checked against an exact model.

Sequences mix valid and malformed envelopes, ids of every JSON type drawn from a small pool (so
duplicates are common), `notifications/cancelled` naming ids of every type, notifications with
ids, and responses to ids nobody asked. Everything is buffered before the peer runs, and the
peer admits what is buffered in order before any handler task starts, so the model is exact:
each message's answers (a multiset of (id, outcome)), the concurrency cap, and that the peer ends
normally with its tables empty.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

import anyio
import pytest
from hardening_support import CASES, JSON, WRONG_VALUES, envelope_error, fuzz_settings
from hypothesis import given
from hypothesis import strategies as st

from mcp._engine.peer import Peer
from mcp._engine.seam import WireSendStream
from mcp._protocol import messages as m
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage

ID_POOL = [1, 2, "1", "a", 0, -5, 2**63, None, True, 1.0, [1], {"id": 1}, ""]
METHODS = ["fuzz/a", "fuzz/b", "notifications/cancelled", "notifications/x"]

id_null_errors = pytest.mark.wire_invalid_ok(
    lambda sender, message, version: message.get("id") is None and "error" in message,
    reason="JSON-RPC 2.0: an envelope whose id cannot be read is answered with id null", strict=False)


def key(request_id: Any) -> tuple[str, Any]:
    return (type(request_id).__name__, request_id if not isinstance(request_id, list | dict) else repr(request_id))


@st.composite
def messages(draw: st.DrawFn) -> Any:
    shape = draw(st.sampled_from(["request", "request", "request", "notification", "cancel", "cancel",
                                  "result", "error", "junk"]))
    request_id = draw(st.sampled_from(ID_POOL))
    if shape == "junk":
        return draw(st.one_of(JSON, st.sampled_from(WRONG_VALUES)))
    if shape == "cancel":
        params: Any = draw(st.one_of(st.builds(lambda rid: {"requestId": rid}, st.sampled_from(ID_POOL)),
                                     st.sampled_from(WRONG_VALUES)))
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": params}
    elif shape == "result":
        message = {"jsonrpc": "2.0", "id": request_id, "result": draw(JSON)}
    elif shape == "error":
        message = {"jsonrpc": "2.0", "id": request_id, "error": draw(st.one_of(
            st.just({"code": -1, "message": "m"}), st.dictionaries(st.text(max_size=5), JSON, max_size=3)))}
    else:
        message = {"jsonrpc": "2.0", "method": draw(st.sampled_from(METHODS))}
        if shape == "request":
            message["id"] = request_id
        if draw(st.booleans()):
            message["params"] = draw(st.one_of(st.just({}), st.sampled_from(WRONG_VALUES)))
    if draw(st.integers(min_value=0, max_value=15)) == 0:  # an occasional broken envelope field
        message[draw(st.sampled_from(["jsonrpc", "method", "id"]))] = draw(st.sampled_from(WRONG_VALUES))
    return message


def model(sequence: list[Any], cap: int) -> Counter[tuple[tuple[str, Any], Any]]:
    """The answers `sequence` must get: JSON-RPC 2.0 + MCP, the peer's documented rules."""
    answers: Counter[tuple[tuple[str, Any], Any]] = Counter()
    in_flight: dict[tuple[str, Any], bool] = {}  # id -> cancelled
    for message in sequence:
        verdict = envelope_error(message)
        if verdict is not None:
            if verdict[0]:
                answers[(key(verdict[1]), -32600)] += 1
            continue  # a response: never answered
        if "id" not in message:
            params = message.get("params")
            if message["method"] == "notifications/cancelled" and isinstance(params, dict):
                target = params.get("requestId")
                if type(target) in (str, int) and key(target) in in_flight:
                    in_flight[key(target)] = True
            continue
        request_key = key(message["id"])
        if len(in_flight) >= cap:
            answers[(request_key, -32603)] += 1
        elif request_key in in_flight:
            answers[(request_key, -32600)] += 1
        else:
            in_flight[request_key] = False
    for request_key, cancelled in in_flight.items():
        if not cancelled:
            answers[(request_key, "result")] += 1
    return answers


async def run_peer(sequence: list[Any], cap: int) -> tuple[list[dict[str, Any]], Peer]:
    inbox_send, inbox = anyio.create_memory_object_stream[Any](math.inf)
    outbox, outbox_receive = anyio.create_memory_object_stream[SessionMessage](math.inf)
    notified: list[Any] = []

    async def on_request(message: dict[str, Any], metadata: Any) -> None:
        await anyio.sleep(0)  # a checkpoint: where a cancelled request stops
        await peer.send(m.result_response(message["id"], {}))

    async def on_notification(message: dict[str, Any], metadata: Any) -> None:
        notified.append(message)

    peer = Peer(inbox, WireSendStream(outbox), role="server", on_request=on_request, on_notification=on_notification,
                max_concurrent_requests=cap)
    for message in sequence:
        inbox_send.send_nowait(SessionMessage(message))
    inbox_send.close()
    with anyio.fail_after(10):
        await peer.run()
    outbox.close()
    with outbox_receive:
        sent = [item.message async for item in outbox_receive]
    return sent, peer


def outcome(message: dict[str, Any]) -> Any:
    return "result" if "result" in message else message["error"]["code"]


@id_null_errors
@fuzz_settings(700)
@given(st.lists(messages(), max_size=25), st.sampled_from([1, 2, 3, 1024]), st.sampled_from(["asyncio", "trio"]))
def test_every_request_gets_exactly_the_answers_the_model_predicts(sequence: list[Any], cap: int, backend: str) -> None:
    CASES["peer: message sequences"] += 1
    final = {"jsonrpc": "2.0", "id": "final", "method": "fuzz/a"}
    sequence = [*sequence, final]
    sent, peer = anyio.run(run_peer, sequence, cap, backend=backend)
    assert Counter((key(message["id"]), outcome(message)) for message in sent) == model(sequence, cap)
    assert peer._in_flight == {} and peer._active == 0 and peer._pending == {}


# -- answers to our own requests ---------------------------------------------------------------


@st.composite
def responses(draw: st.DrawFn) -> dict[str, Any]:
    request_id = draw(st.sampled_from([1, 1, 1, 2, "1", None, True, [1]]))
    if draw(st.booleans()):
        return {"jsonrpc": "2.0", "id": request_id, "result": draw(JSON)}
    error = draw(st.one_of(st.builds(lambda c, t: {"code": c, "message": t}, st.integers(-40000, 40000), st.text(max_size=5)),
                           st.dictionaries(st.sampled_from(["code", "message", "data"]), JSON, max_size=3)))
    return {"jsonrpc": "2.0", "id": request_id, "error": error}


def expected_outcome(answers: list[dict[str, Any]]) -> Any:
    """The first answer to id 1 that is a valid response decides; later ones are ignored."""
    for answer in answers:
        verdict = envelope_error(answer)
        if verdict is None or verdict[0] or answer.get("id") != 1 or type(answer.get("id")) is not int:
            continue
        if "result" in answer:
            return ("result", answer["result"] if type(answer["result"]) is dict else {})
        error = answer["error"]
        if type(error.get("code")) is int and type(error.get("message")) is str:
            return ("error", error["code"])
        return ("error", -32603)
    return ("error", -32000)  # the connection closed first


@id_null_errors
@fuzz_settings(400)
@given(st.lists(responses(), max_size=8), st.sampled_from(["asyncio", "trio"]))
def test_an_outgoing_request_ends_with_its_first_valid_answer_and_never_raises_anything_else(
        answers: list[dict[str, Any]], backend: str) -> None:
    CASES["peer: answers to our requests"] += 1

    async def scenario() -> Any:
        inbox_send, inbox = anyio.create_memory_object_stream[Any](math.inf)
        outbox, outbox_receive = anyio.create_memory_object_stream[SessionMessage](math.inf)

        async def ignore(message: dict[str, Any], metadata: Any) -> None:
            return None

        peer = Peer(inbox, WireSendStream(outbox), role="server", on_request=ignore, on_notification=ignore)
        result: list[Any] = []

        async def call() -> None:
            try:
                result.append(("result", await peer.send_request("fuzz/ask")))
            except MCPError as exc:
                result.append(("error", exc.code))

        async with anyio.create_task_group() as tg:
            tg.start_soon(call)
            await anyio.wait_all_tasks_blocked()  # the request is on the wire and awaited
            for answer in answers:
                inbox_send.send_nowait(SessionMessage(answer))
            inbox_send.close()
            with anyio.fail_after(10):
                await peer.run()
        outbox.close()
        outbox_receive.close()
        assert peer._pending == {}
        return result[0]

    assert anyio.run(scenario, backend=backend) == expected_outcome(answers)
