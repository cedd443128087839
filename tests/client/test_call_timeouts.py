"""The client's timeouts on one call (issue 28, item 2): `read_timeout_seconds` that progress
restarts (`reset_timeout_on_progress`), a bound on the whole call whatever progress says
(`max_total_timeout`), the server told with `notifications/cancelled` when the client gives up
(it stops the tool), and timeouts that cannot work refused.

Real clocks: a tool that reports progress every 0.05 s outlives a one-second timeout it restarts;
waits are bounded by `GUARD`, and nothing asserts how long anything took.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from mcp import Client, MCPError, StdioServerParameters
from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolRequest, CallToolRequestParams, CallToolResult
from mcp.types.jsonrpc import REQUEST_TIMEOUT

pytestmark = pytest.mark.anyio

GUARD = 30.0
"""Seconds any test may take before it fails: a bound, never a measure."""

PROGRESS_FOREVER = str(Path(__file__).parent / "servers" / "progress_forever.py")


def server(seen: dict[str, Any]) -> MCPServer:
    """`steady(steps)` reports progress every 0.05 s for `steps` steps; `busy` for ever; `silent`
    says nothing for ever. `seen["stopped"]` is set when the client's cancellation stops a tool."""
    mcp = MCPServer("clocks")
    seen["stopped"] = anyio.Event()

    async def stopped_on_cancel(work: Any) -> Any:
        try:
            return await work()
        except anyio.get_cancelled_exc_class():
            seen["stopped"].set()
            raise

    @mcp.tool()
    async def steady(steps: int, ctx: Context) -> str:
        for step in range(steps):
            await anyio.sleep(0.05)
            await ctx.report_progress(step + 1, steps)
        return f"{steps} steps"

    @mcp.tool()
    async def busy(ctx: Context) -> str:
        async def work() -> str:
            step = 0
            while True:
                step += 1
                await ctx.report_progress(step)
                await anyio.sleep(0.05)

        return await stopped_on_cancel(work)

    @mcp.tool()
    async def silent() -> str:
        return await stopped_on_cancel(anyio.sleep_forever)

    return mcp


async def test_progress_restarts_an_explicit_timeout_only_when_the_call_asks_for_it() -> None:
    seen: dict[str, Any] = {}
    with anyio.fail_after(GUARD):
        async with Client(server(seen), mode="legacy") as client:
            # 40 steps of 0.05 s: at least 2 s of work, past the 1 s timeout every report restarts
            result = await client.call_tool("steady", {"steps": 40}, read_timeout_seconds=1.0,
                                            reset_timeout_on_progress=True)
            assert result.content[0].text == "40 steps"
            with pytest.raises(MCPError) as raised:  # the official meaning: the timeout bounds the call
                await client.call_tool("steady", {"steps": 40}, read_timeout_seconds=1.0)
    assert raised.value.code == REQUEST_TIMEOUT


async def test_progress_reports_reach_the_callback_while_they_restart_the_timeout() -> None:
    seen: dict[str, Any] = {}
    reports: list[float] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        reports.append(progress)

    with anyio.fail_after(GUARD):
        async with Client(server(seen)) as client:
            result = await client.call_tool("steady", {"steps": 30}, read_timeout_seconds=1.0,
                                            progress_callback=on_progress, reset_timeout_on_progress=True)
    assert result.content[0].text == "30 steps"
    assert reports == [float(step) for step in range(1, 31)]


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_max_total_timeout_ends_a_call_whose_progress_never_stops_and_the_server_is_told(mode: str) -> None:
    seen: dict[str, Any] = {}
    with anyio.fail_after(GUARD):
        async with Client(server(seen), mode=mode) as client:
            with pytest.raises(MCPError) as raised:
                await client.call_tool("busy", {}, read_timeout_seconds=1.0, reset_timeout_on_progress=True,
                                       max_total_timeout=1.5)
            await seen["stopped"].wait()  # notifications/cancelled stopped the tool
            assert (await client.call_tool("steady", {"steps": 1})).content[0].text == "1 steps"  # still connected
    assert raised.value.code == REQUEST_TIMEOUT
    assert "max_total_timeout" in raised.value.message


async def test_an_explicit_timeout_that_runs_out_tells_the_server_which_stops_the_tool() -> None:
    seen: dict[str, Any] = {}
    with anyio.fail_after(GUARD):
        async with Client(server(seen), mode="legacy") as client:
            with pytest.raises(MCPError) as raised:
                await client.call_tool("silent", {}, read_timeout_seconds=0.5)
            await seen["stopped"].wait()
    assert (raised.value.code, raised.value.message) == (REQUEST_TIMEOUT, "Request 'tools/call' timed out")


async def test_the_session_takes_the_same_timeouts_on_send_request() -> None:
    seen: dict[str, Any] = {}
    request = CallToolRequest(params=CallToolRequestParams(name="busy", arguments={}))
    with anyio.fail_after(GUARD):
        async with Client(server(seen), mode="legacy") as client:
            with pytest.raises(MCPError) as raised:
                await client.session.send_request(request, CallToolResult, 1.0, reset_timeout_on_progress=True,
                                                  max_total_timeout=1.0)
            await seen["stopped"].wait()
            steady = CallToolRequest(params=CallToolRequestParams(name="steady", arguments={"steps": 30}))
            result = await client.session.send_request(steady, CallToolResult, 1.0, reset_timeout_on_progress=True)
            assert result.content[0].text == "30 steps"  # type: ignore[union-attr]
            result = await client.session.call_tool("steady", {"steps": 30}, 1.0, reset_timeout_on_progress=True)
            assert result.content[0].text == "30 steps"
    assert raised.value.code == REQUEST_TIMEOUT


async def test_over_stdio_the_bound_on_the_whole_call_cancels_the_tool_in_the_server_process(tmp_path: Path) -> None:
    record = tmp_path / "record"
    params = StdioServerParameters(command=sys.executable, args=[PROGRESS_FOREVER, str(record)])
    with anyio.fail_after(GUARD):
        async with Client(params) as client:
            with pytest.raises(MCPError) as raised:
                await client.call_tool("busy", {}, read_timeout_seconds=1.0, reset_timeout_on_progress=True,
                                       max_total_timeout=1.5)
            while not record.exists():  # the server process writes it when the cancellation reaches the tool
                await anyio.sleep(0.05)
    assert raised.value.code == REQUEST_TIMEOUT
    assert record.read_text() == "cancelled"


@pytest.mark.parametrize("options", [
    {"max_total_timeout": 0}, {"max_total_timeout": -1.0}, {"max_total_timeout": float("nan")},
    {"read_timeout_seconds": 0, "reset_timeout_on_progress": True},
    {"read_timeout_seconds": -2.0, "reset_timeout_on_progress": True},
])
async def test_a_timeout_of_zero_or_less_is_refused_before_anything_is_sent(options: dict[str, Any]) -> None:
    seen: dict[str, Any] = {}
    request = CallToolRequest(params=CallToolRequestParams(name="steady", arguments={"steps": 1}))
    with anyio.fail_after(GUARD):
        async with Client(server(seen), mode="legacy") as client:
            with pytest.raises(ValueError, match="must be a positive number of seconds"):
                await client.call_tool("steady", {"steps": 1}, **options)
            with pytest.raises(ValueError, match="must be a positive number of seconds"):
                await client.session.call_tool("steady", {"steps": 1}, **options)
            rest = dict(options)  # send_request's timeout is positional (the official name differs)
            timeout = rest.pop("read_timeout_seconds", None)
            with pytest.raises(ValueError, match="must be a positive number of seconds"):
                await client.session.send_request(request, CallToolResult, timeout, **rest)
