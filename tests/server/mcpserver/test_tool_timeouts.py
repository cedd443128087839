"""Tool timeouts on the server (issue 28, item 2): `@mcp.tool(timeout=...)` and
`MCPServer(tool_timeout=...)`. A tool past its bound is stopped (an async one cancelled, a sync one
told through `anyio.from_thread.check_cancelled()` and `ctx.cancelled`, its late result dropped),
the caller gets an `is_error` result saying it timed out and after how long, and the server serves
other calls meanwhile. Bounds that cannot work are refused when the tool is registered.

Real clocks over a real stdio subprocess and a real uvicorn: tools would run 30 s, their bounds
are 0.3-2 s, and every wait is bounded by `GUARD`; nothing asserts how fast anything was.
"""

from __future__ import annotations

import importlib.util
import math
import os
import sys
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

import anyio
import pytest

from mcp import Client, StdioServerParameters
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolTimeoutError
from mcp.shared.exceptions import ToolError

sys.path.insert(0, str(Path(__file__).parents[1] / "http"))
from httpkit import serving

pytestmark = pytest.mark.anyio

GUARD = 20.0
"""Seconds any exchange may take before the test fails: a bound, never a measure."""

BOUND = 10.0
"""Seconds within which a timed-out call must be answered (its tool would run 30 s)."""

SERVER = Path(__file__).parent / "servers" / "tool_timeouts.py"


def server_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("tool_timeouts_server", SERVER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@asynccontextmanager
async def connected(transport: str, record: Path) -> AsyncIterator[Client]:
    """A client of the timeouts server: a stdio subprocess, or uvicorn on a free loopback port."""
    if transport == "stdio":
        params = StdioServerParameters(command=sys.executable, args=[str(SERVER), str(record)], env=dict(os.environ))
        async with Client(params) as client:
            yield client
        return
    build: Callable[[Path], MCPServer] = server_module().build
    with serving(lambda: build(record).streamable_http_app()) as base:
        async with Client(f"{base}/mcp") as client:
            yield client


async def recorded(record: Path, tool: str, wanted: str) -> None:
    """Wait (within the caller's bound) until the server process wrote `wanted` for `tool`."""
    path = record / tool
    while not (path.exists() and path.read_text() == wanted):
        await anyio.sleep(0.02)


def text_of(result: Any) -> str:
    return result.content[0].text


transports = pytest.mark.parametrize("transport", ["stdio", "http"])


@transports
async def test_an_async_tool_past_its_timeout_is_cancelled_and_the_caller_told_how_long_it_had(
        transport: str, tmp_path: Path) -> None:
    with anyio.fail_after(GUARD):
        async with connected(transport, tmp_path) as client:
            started = time.monotonic()
            with anyio.fail_after(BOUND):
                result = await client.call_tool("sleepy", {})
            assert time.monotonic() - started < BOUND
            await recorded(tmp_path, "sleepy", "cancelled")
            assert (await client.call_tool("echo", {"text": "still serving"})).content[0].text == "still serving"
    assert result.is_error
    assert text_of(result) == "Error executing tool sleepy: timed out after 0.3 seconds"


@transports
async def test_other_calls_are_served_while_a_tool_runs_towards_its_timeout(transport: str, tmp_path: Path) -> None:
    answers: list[str] = []
    with anyio.fail_after(GUARD):
        async with connected(transport, tmp_path) as client:

            async def call_stalls() -> None:
                result = await client.call_tool("stalls", {})
                answers.append(text_of(result))

            async with anyio.create_task_group() as tg:
                tg.start_soon(call_stalls)
                await recorded(tmp_path, "stalls", "started")  # it runs, 2 s from its bound
                for n in range(3):
                    answers.append(text_of(await client.call_tool("echo", {"text": f"echo {n}"})))
    assert answers == ["echo 0", "echo 1", "echo 2", "Error executing tool stalls: timed out after 2 seconds"]


@transports
async def test_a_sync_tool_is_told_through_check_cancelled_and_stops(transport: str, tmp_path: Path) -> None:
    with anyio.fail_after(GUARD):
        async with connected(transport, tmp_path) as client:
            with anyio.fail_after(BOUND):
                result = await client.call_tool("grinding", {})
            await recorded(tmp_path, "grinding", "stopped by check_cancelled")
    assert result.is_error
    assert text_of(result) == "Error executing tool grinding: timed out after 0.3 seconds"


@transports
async def test_a_sync_tool_sees_ctx_cancelled_and_its_late_result_is_dropped(transport: str, tmp_path: Path) -> None:
    with anyio.fail_after(GUARD):
        async with connected(transport, tmp_path) as client:
            with anyio.fail_after(BOUND):
                result = await client.call_tool("polling", {})
            await recorded(tmp_path, "polling", "saw ctx.cancelled")  # it returned its value after this
            after = await client.call_tool("echo", {"text": "next"})
    assert result.is_error
    assert text_of(result) == "Error executing tool polling: timed out after 0.3 seconds"
    assert text_of(after) == "next"


async def test_the_servers_default_bounds_a_tool_without_its_own_and_a_tools_own_timeout_wins(
        tmp_path: Path) -> None:
    with anyio.fail_after(GUARD):
        async with connected("stdio", tmp_path) as client:
            defaulted = await client.call_tool("defaulted", {})
            generous = await client.call_tool("generous", {})  # runs 1 s: past the default, within its own 5 s
            exempt = await client.call_tool("exempt", {})  # math.inf: no bound
    assert (defaulted.is_error, text_of(defaulted)) == (True, "Error executing tool defaulted: timed out after 0.6 seconds")
    assert (generous.is_error, text_of(generous)) == (False, "finished within its own timeout")
    assert (exempt.is_error, text_of(exempt)) == (False, "finished without a bound")


# -- in process ----------------------------------------------------------------------------------


async def test_mcpserver_call_tool_raises_the_timeout_as_a_tool_error() -> None:
    mcp = MCPServer("direct")

    @mcp.tool(timeout=0.2)
    async def sleepy() -> str:
        await anyio.sleep(30)
        return "woke up"

    with anyio.fail_after(BOUND), pytest.raises(ToolTimeoutError) as raised:
        await mcp.call_tool("sleepy", {})
    assert isinstance(raised.value, ToolError)
    assert str(raised.value) == "Error executing tool sleepy: timed out after 0.2 seconds"


async def test_a_tool_that_finishes_within_its_timeout_answers_as_usual() -> None:
    mcp = MCPServer("quick", tool_timeout=5)

    @mcp.tool()
    def add(a: int, b: int) -> int:
        return a + b

    @mcp.tool(timeout=5)
    async def fails() -> str:
        raise ToolError("deliberately")

    async with Client(mcp) as client:
        result = await client.call_tool("add", {"a": 2, "b": 3})
        failed = await client.call_tool("fails", {})
    assert result.structured_content == {"result": 5}
    assert (failed.is_error, text_of(failed)) == (True, "Error executing tool fails: deliberately")


@pytest.mark.parametrize("timeout", [0, -1, 0.0, -0.5, math.nan, True, "5"])
def test_a_tool_timeout_that_is_not_a_positive_number_is_refused_at_registration(timeout: Any) -> None:
    mcp = MCPServer("refusing")

    def slow() -> str:
        return "never registered"

    with pytest.raises(ValueError, match=r"^timeout of tool 'slow' must be a positive number of seconds"):
        mcp.tool(timeout=timeout)(slow)
    with pytest.raises(ValueError, match=r"^timeout of tool 'named' must be a positive number of seconds"):
        mcp.add_tool(slow, name="named", timeout=timeout)
    assert anyio.run(mcp.list_tools) == []  # nothing was registered


@pytest.mark.parametrize("timeout", [0, -3, math.nan, False])
def test_a_server_wide_timeout_that_is_not_a_positive_number_is_refused(timeout: Any) -> None:
    with pytest.raises(ValueError, match=r"^tool_timeout must be a positive number of seconds"):
        MCPServer("refusing", tool_timeout=timeout)


def test_the_environment_gives_the_server_wide_timeout_and_the_constructor_wins(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_TOOL_TIMEOUT", "1.5")
    assert MCPServer("from-env").settings.tool_timeout == 1.5
    assert MCPServer("given", tool_timeout=4).settings.tool_timeout == 4
    monkeypatch.setenv("MCP_TOOL_TIMEOUT", "")
    assert MCPServer("unset").settings.tool_timeout is None
    for bad in ("0", "-1", "soon", "nan"):
        monkeypatch.setenv("MCP_TOOL_TIMEOUT", bad)
        with pytest.raises(ValueError, match=r"^MCP_TOOL_TIMEOUT=.*: expected a positive number of seconds"):
            MCPServer("bad-env")
