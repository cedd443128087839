"""Matching a resource template is linear in the URI over a real stdio server: a long URI
against `pair://{name}-{date}` is answered, and so is a `ping` sent right behind it.

Was (issue 15): the template compiled to a backtracking regex, quadratic in the URI for two
variables split by a literal the values may contain. A 64 KiB URI (the longest
`UriTemplate.match` looks at by default) that does not fit held the event loop for 23 s or
more, and every request behind it waited. The reads below are bounded by one generous budget
for all answers together; a quadratic matcher spends minutes on them.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from hardening_support import StdioTarget

BUDGET = 60.0
"""Seconds for every answer together: a bound on the wait, not an assertion on speed."""

AT_THE_CAP = 65_000
"""Just under `DEFAULT_MAX_URI_LENGTH` (65 536), so the matcher scans the whole URI."""


def read_answers(target: StdioTarget, ids: list[str]) -> dict[str, dict[str, Any]]:
    deadline = time.monotonic() + BUDGET
    answers: dict[str, dict[str, Any]] = {}
    while len(answers) < len(ids):
        message = target.read(timeout=max(deadline - time.monotonic(), 0.1))
        if message.get("id") in ids:
            answers[message["id"]] = message
    return answers


@pytest.fixture
def stdio() -> Any:
    target = StdioTarget()
    target.initialize()
    yield target
    assert target.close() == 0, target.stderr_text[-3000:]


def read_resource(request_id: str, uri: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "resources/read", "params": {"uri": uri}}


def test_long_uris_against_a_two_variable_template_are_answered_and_a_ping_behind_them_too(
    stdio: StdioTarget,
) -> None:
    misses = [f"miss{i}" for i in range(6)]
    for request_id in misses:  # all dashes, then a `/` no value may hold: nothing fits
        stdio.send(read_resource(request_id, "pair://" + "-" * (AT_THE_CAP - 8) + "/"))
    stdio.send(read_resource("hit", "pair://" + "-" * (AT_THE_CAP - 9) + "x"))
    stdio.send(read_resource("huge", "pair://" + "-" * 3_000_000 + "x"))  # past the cap: not scanned
    stdio.send({"jsonrpc": "2.0", "id": "ping", "method": "ping"})

    answers = read_answers(stdio, [*misses, "hit", "huge", "ping"])

    for request_id in [*misses, "huge"]:
        error = answers[request_id]["error"]
        assert error["message"].startswith("Unknown resource"), error
    (content,) = answers["hit"]["result"]["contents"]
    assert content["text"] == f"{AT_THE_CAP - 9 - 1} x"  # the name takes every dash but the last
    assert answers["ping"] == {"jsonrpc": "2.0", "id": "ping", "result": {}}


@pytest.mark.anyio
async def test_long_uris_over_http_are_answered_and_another_sessions_ping_too() -> None:
    """Over Streamable HTTP (in-process ASGI) the matcher ran on the event loop shared by every
    session: another session's ping waited for the misses. The bodies stay far under the 4 MiB
    request limit (the 3 MB URI too)."""
    import json

    import anyio
    from hardening_support import HANDSHAKE, INIT, asgi_request
    from test_fuzz_http import load_target

    mcp = load_target().build()
    app = mcp.streamable_http_app()
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
    answers: dict[str, Any] = {}

    async def post(session: dict[str, str], message: dict[str, Any]) -> None:
        response = await asgi_request(app, "POST", session, json.dumps(message).encode(), timeout=BUDGET)
        (answers[message["id"]],) = response.messages()

    async with mcp.session_manager.run():
        sessions = []
        for _ in range(2):
            opened = await asgi_request(app, "POST", headers, json.dumps(INIT).encode())
            sessions.append({**headers, "mcp-session-id": opened.headers["mcp-session-id"],
                             "mcp-protocol-version": HANDSHAKE})
        attacker, bystander = sessions
        with anyio.fail_after(BUDGET):
            async with anyio.create_task_group() as tg:
                for i in range(6):
                    tg.start_soon(post, attacker, read_resource(f"miss{i}", "pair://" + "-" * (AT_THE_CAP - 8) + "/"))
                tg.start_soon(post, attacker, read_resource("huge", "pair://" + "-" * 3_000_000 + "x"))
                tg.start_soon(post, bystander, {"jsonrpc": "2.0", "id": "ping", "method": "ping"})

    for request_id in [*(f"miss{i}" for i in range(6)), "huge"]:
        assert answers[request_id]["error"]["message"].startswith("Unknown resource"), answers[request_id]
    assert answers["ping"] == {"jsonrpc": "2.0", "id": "ping", "result": {}}
