"""A stdio server inside a bare `asyncio.run` serves like one under `anyio.run`: requests taken
straight from the pipe's read callback (where no task is running) must not need anyio's loop
detection, and handlers that do wait still get working cancel scopes and timeouts."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest
from tests.interaction.test_stdio_wire import RawServer

SERVER = Path(__file__).parent / "servers" / "plain_asyncio.py"


def _call(request_id: int, name: str, **arguments: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {"name": name, "arguments": arguments}}


@pytest.fixture(params=["mcpserver", "lowlevel"])
def server(request: pytest.FixtureRequest) -> Iterator[RawServer]:
    raw = RawServer(request.param, script=SERVER)
    raw.initialize()
    yield raw
    assert raw.close() == 0


def _flavour(server: RawServer) -> str:
    """Which server the fixture started: its last command-line argument."""
    return cast("list[str]", server.proc.args)[-1]


def test_tool_calls_are_answered_under_a_bare_asyncio_run(server: RawServer) -> None:
    names = ["add", "add_later"] if _flavour(server) == "mcpserver" else ["add"]
    request_id = 0
    for name in names:
        for a in range(5):
            request_id += 1
            answer = server.request(_call(request_id, name, a=a, b=10))
            assert answer == {"jsonrpc": "2.0", "id": request_id, "result": {
                "content": [{"type": "text", "text": str(a + 10)}], "structuredContent": {"result": a + 10},
                "isError": False}}


def test_a_low_level_handler_that_waits_inside_a_timeout_is_answered(server: RawServer) -> None:
    if _flavour(server) != "lowlevel":
        pytest.skip("the low-level server's handler")
    for request_id in range(1, 4):
        answer = server.request(_call(request_id, "add", a=request_id, b=1, wait=True))
        assert answer["result"]["structuredContent"] == {"result": request_id + 1}


def test_many_requests_in_one_write_are_all_answered(server: RawServer) -> None:
    import json

    server.send_raw(b"".join(json.dumps(_call(i, "add", a=i, b=i)).encode() + b"\n" for i in range(1, 51)))
    answers = {answer["id"]: answer["result"]["structuredContent"]["result"] for answer in
               (server.read() for _ in range(50))}
    assert answers == {i: 2 * i for i in range(1, 51)}
