"""A client that gives up on a call tells the server, on the wire (issue 28, item 2): when
`read_timeout_seconds` or `max_total_timeout` runs out, the next thing the server reads after the
`tools/call` is `notifications/cancelled` naming that call's id. Seen by a bare JSON-RPC server
process that records every line it reads (`servers/never_answers_a_call.py`), so what is checked
is the bytes on the pipe, not our engine's idea of them.

Over Streamable HTTP (a real uvicorn) the server's tool is seen stopping: on the handshake-era
wire by the `notifications/cancelled` POST, on 2026-07-28 by the response stream closing (that
revision's cancellation; no notification is POSTed there).

Real clocks, bounded: timeouts of 0.3-0.5 s, every wait within `GUARD`.
"""

from __future__ import annotations

import json
import sys
import threading
from pathlib import Path
from typing import Any

import anyio
import pytest

from mcp import Client, MCPError, StdioServerParameters
from mcp.server.mcpserver import MCPServer
from mcp.types.jsonrpc import REQUEST_TIMEOUT

sys.path.insert(0, str(Path(__file__).parents[1] / "server" / "http"))
from httpkit import serving

pytestmark = pytest.mark.anyio

GUARD = 20.0
"""Seconds any test may take before it fails: a bound, never a measure."""

SILENT = str(Path(__file__).parent / "servers" / "never_answers_a_call.py")


async def read_until_cancelled(record: Path) -> list[dict[str, Any]]:
    """The messages the server process read, once one of them is `notifications/cancelled`."""
    while True:
        if record.exists():
            messages = [json.loads(line) for line in record.read_text().splitlines() if line]
            if any(m.get("method") == "notifications/cancelled" for m in messages):
                return messages
        await anyio.sleep(0.02)


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
@pytest.mark.parametrize("timeouts", [
    {"read_timeout_seconds": 0.3},
    {"read_timeout_seconds": 5.0, "reset_timeout_on_progress": True, "max_total_timeout": 0.5},
], ids=["read_timeout_seconds", "max_total_timeout"])
async def test_a_call_the_client_gives_up_on_is_cancelled_on_the_wire(
        tmp_path: Path, mode: str, timeouts: dict[str, Any]) -> None:
    record = tmp_path / "wire.jsonl"
    params = StdioServerParameters(command=sys.executable, args=[SILENT, str(record)])
    with anyio.fail_after(GUARD):
        async with Client(params, mode=mode) as client:
            with pytest.raises(MCPError) as raised:
                await client.call_tool("hang", {}, **timeouts)
            messages = await read_until_cancelled(record)
    assert raised.value.code == REQUEST_TIMEOUT
    [call] = [m for m in messages if m.get("method") == "tools/call"]
    cancelled = messages[messages.index(call) + 1:]
    assert [m["method"] for m in cancelled] == ["notifications/cancelled"]
    assert cancelled[0]["params"]["requestId"] == call["id"]
    assert "id" not in cancelled[0]
    if "max_total_timeout" in timeouts:  # the reason names what gave up
        assert cancelled[0]["params"]["reason"] == "max_total_timeout of 0.5s reached"
    else:
        assert cancelled[0]["params"]["reason"] == "timed out after 0.3s"


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
@pytest.mark.parametrize("timeouts", [
    {"read_timeout_seconds": 0.3},
    {"read_timeout_seconds": 5.0, "reset_timeout_on_progress": True, "max_total_timeout": 0.5},
], ids=["read_timeout_seconds", "max_total_timeout"])
async def test_over_http_the_server_stops_the_call_the_client_gave_up_on(mode: str, timeouts: dict[str, Any]) -> None:
    stopped = threading.Event()  # set on uvicorn's thread, read here

    def build() -> Any:
        mcp = MCPServer("silent")

        @mcp.tool()
        async def hang() -> str:
            try:
                await anyio.sleep(30)
            finally:
                stopped.set()
            return "woke up"

        return mcp.streamable_http_app()

    with serving(build) as base, anyio.fail_after(GUARD):
        async with Client(f"{base}/mcp", mode=mode) as client:
            with pytest.raises(MCPError) as raised:
                await client.call_tool("hang", {}, **timeouts)
            while not stopped.is_set():
                await anyio.sleep(0.02)
    assert raised.value.code == REQUEST_TIMEOUT
