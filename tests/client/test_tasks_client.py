"""The tasks client (issue 28, item 3): `Client.call_tool` on a tool the server runs as a task
(SEP-2663) polls `tasks/get` to the end, answering the task's input requests through
`tasks/update`; `as_task=True` hands back a `TaskHandle` to watch, answer and cancel the task;
an unknown task id is a clear error. Against our own server: in memory, over a real stdio
subprocess and over a real uvicorn on 127.0.0.1."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from pydantic import BaseModel

from mcp import Client, MCPError, StdioServerParameters
from mcp.client.tasks import TaskCancelledError, TaskHandle, TaskNotFoundError, Tasks
from mcp.server.mcpserver import AcceptedElicitation, MCPServer
from mcp.server.tasks import TERMINAL_STATUSES, InMemoryTaskStore, TaskContext, TaskState
from mcp.server.tasks import Tasks as ServerTasks
from mcp.types import ElicitResult
from mcp.types.jsonrpc import INVALID_PARAMS, REQUEST_TIMEOUT

sys.path.insert(0, str(Path(__file__).parents[1] / "server" / "http"))
from httpkit import serving

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.wire_invalid_ok({"result": {"resultType": "task"}}, strict=False,
                                reason="CreateTaskResult (resultType 'task') is the tasks extension's result shape, "
                                "by design not a core CallToolResult"),
]

GUARD = 30.0
"""Seconds any test may take before it fails: a bound, never a measure."""

STDIO_SERVER = str(Path(__file__).parent / "servers" / "stdio_task_tools.py")
FASTMCP_SERVER = str(Path(__file__).parents[1] / "ecosystem" / "scripts" / "fastmcp_task_server.py")


def fastmcp_tasks_python() -> str:
    """An interpreter with FastMCP's task server (`fastmcp-tasks`, on the official SDK):
    `MCP_FASTMCP_TASKS_PYTHON`, else the ecosystem checks' cached venv (built on first use)."""
    named = os.environ.get("MCP_FASTMCP_TASKS_PYTHON")
    if named:
        return named
    sys.path.insert(0, str(Path(__file__).parents[1] / "ecosystem"))
    try:
        from venvs import library_venv  # pyright: ignore[reportMissingImports, reportUnknownVariableType]
    finally:
        sys.path.pop(0)
    return str(library_venv("fastmcp-tasks"))  # pyright: ignore[reportUnknownArgumentType]


class Confirmation(BaseModel):
    confirm: bool


def studio() -> tuple[MCPServer, ServerTasks, dict[str, Any]]:
    """Task tools polled every 20 ms; `seen` records what their bodies observed."""
    tasks = ServerTasks(poll_interval_ms=20)
    seen: dict[str, Any] = {"started": anyio.Event(), "stopped": anyio.Event()}

    @tasks.tool()
    async def remove(item: str, ctx: TaskContext) -> str:
        """Reports what it does, then asks for a confirmation."""
        await ctx.set_status_message(f"looking at {item}")
        await anyio.sleep(0.05)
        answer = await ctx.elicit(f"Remove {item}?", Confirmation)
        confirmed = isinstance(answer, AcceptedElicitation) and answer.data.confirm  # pyright: ignore
        return f"removed {item}" if confirmed else f"kept {item}"

    @tasks.tool()
    async def forever(ctx: TaskContext) -> str:
        seen["started"].set()
        try:
            await anyio.sleep_forever()
        except anyio.get_cancelled_exc_class():
            seen["stopped"].set()
            raise
        return "never"  # pragma: no cover

    @tasks.tool()
    async def count(upto: int) -> dict[str, int]:
        await anyio.sleep(0.05)
        return {"total": upto}

    @tasks.tool()
    async def broken() -> str:
        raise MCPError(-32603, "backend unavailable", {"retry": True})

    mcp = MCPServer("studio", extensions=[tasks])

    @mcp.tool()
    def plain(name: str) -> str:
        return f"Hi {name}"

    return mcp, tasks, seen


async def confirm(context: Any, params: Any) -> ElicitResult:
    return ElicitResult(action="accept", content={"confirm": True})


@asynccontextmanager
async def connected(target: Any, tasks: ServerTasks | None = None, **options: Any) -> AsyncIterator[Client]:
    try:
        with anyio.fail_after(GUARD):
            async with Client(target, extensions=[Tasks()], elicitation_callback=confirm, **options) as client:
                yield client
    finally:
        if tasks is not None:
            await tasks.aclose()


async def until(handle: TaskHandle, status: str) -> None:
    while handle.status != status:  # tasks/get is how a client watches a task (bounded by the GUARD)
        await anyio.sleep(0.02)
        await handle.refresh()


# -- the transparent call -------------------------------------------------------------------------


async def test_a_task_is_polled_to_its_result_with_its_questions_answered_and_its_status_reported() -> None:
    mcp, tasks, _ = studio()
    reports: list[tuple[float, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        reports.append((progress, message))

    async with connected(mcp, tasks) as client:
        result = await client.call_tool("remove", {"item": "tmp"}, progress_callback=on_progress)
        structured = await client.call_tool("count", {"upto": 3})
    assert result.content[0].text == "removed tmp" and not result.is_error
    assert structured.structured_content == {"total": 3}
    assert reports and reports[0] == (1.0, "looking at tmp")
    assert [progress for progress, _ in reports] == [float(n) for n in range(1, len(reports) + 1)]


async def test_a_failed_task_raises_its_error_and_a_plain_tool_is_unchanged() -> None:
    mcp, tasks, _ = studio()
    async with connected(mcp, tasks) as client:
        with pytest.raises(MCPError) as raised:
            await client.call_tool("broken", {})
        assert (await client.call_tool("plain", {"name": "Ann"})).content[0].text == "Hi Ann"
    assert (raised.value.code, raised.value.message, raised.value.data) == (-32603, "backend unavailable",
                                                                             {"retry": True})


async def test_giving_up_on_a_polled_task_cancels_it_on_the_server() -> None:
    mcp, tasks, seen = studio()
    async with connected(mcp, tasks) as client:
        with pytest.raises(MCPError) as raised:
            await client.call_tool("forever", {}, max_total_timeout=0.5)
        await seen["stopped"].wait()  # tasks/cancel reached the task
    assert raised.value.code == REQUEST_TIMEOUT


async def test_without_the_extension_declared_the_server_answers_at_once() -> None:
    mcp, tasks, _ = studio()
    try:
        with anyio.fail_after(GUARD):
            async with Client(mcp, elicitation_callback=confirm) as client:
                with pytest.raises(MCPError) as raised:  # no task: the tool asks over a back-channel there is not
                    await client.call_tool("remove", {"item": "tmp"})
                assert (await client.call_tool("count", {"upto": 2})).structured_content == {"total": 2}
                with pytest.raises(ValueError, match="needs the tasks extension declared"):
                    await client.call_tool("count", {"upto": 2}, as_task=True)
    finally:
        await tasks.aclose()
    assert raised.value.code == -32021


# -- the handle -----------------------------------------------------------------------------------


async def test_a_handle_shows_the_question_takes_the_answer_and_gives_the_result() -> None:
    mcp, tasks, _ = studio()
    async with connected(mcp, tasks) as client:
        handle = await client.call_tool("remove", {"item": "logs"}, as_task=True)
        assert isinstance(handle, TaskHandle) and handle.task_id and not handle.done
        await until(handle, "input_required")
        [(key, request)] = handle.input_requests.items()
        assert request["method"] == "elicitation/create" and request["params"]["message"] == "Remove logs?"
        assert handle.status_message == "looking at logs"
        await handle.respond({key: ElicitResult(action="accept", content={"confirm": False})})
        result = await handle.result(answer_input=False)
        assert handle.status == "completed" and handle.done
    assert result.content[0].text == "kept logs"


async def test_a_handle_cancels_its_task_whose_result_is_then_an_error() -> None:
    mcp, tasks, seen = studio()
    async with connected(mcp, tasks) as client:
        handle = await client.call_tool("forever", {}, as_task=True)
        await seen["started"].wait()
        await handle.cancel()
        await seen["stopped"].wait()
        with pytest.raises(TaskCancelledError) as raised:
            await handle.result()
    assert handle.status == "cancelled" and raised.value.task_id == handle.task_id


async def test_a_call_the_server_answers_at_once_gives_a_handle_that_is_already_completed() -> None:
    mcp, tasks, _ = studio()
    async with connected(mcp, tasks) as client:
        handle = await client.call_tool("plain", {"name": "Bo"}, as_task=True)
        assert handle.task_id is None and handle.done
        assert (await handle.result()).content[0].text == "Hi Bo"


async def test_a_task_is_taken_up_by_its_id_and_an_unknown_id_is_a_clear_error() -> None:
    mcp, tasks, _ = studio()
    async with connected(mcp, tasks) as client:
        task_id = (await client.call_tool("count", {"upto": 5}, as_task=True)).task_id
        again = await client.get_task(task_id, tool_name="count")
        assert (await again.result()).structured_content == {"total": 5}
        with pytest.raises(TaskNotFoundError) as raised:
            await client.get_task("no-such-task")
    assert raised.value.task_id == "no-such-task" and raised.value.code == INVALID_PARAMS
    assert "'no-such-task' is not known to the server" in raised.value.message


class NeverFinishes(InMemoryTaskStore):
    """A broken server's store: it loses the end of every task, which stays `working` for ever."""

    async def update(self, task_id: str, **changes: Any) -> TaskState | None:
        if changes.get("status") in TERMINAL_STATUSES:
            return await self.get(task_id)
        return await super().update(task_id, **changes)


@pytest.mark.parametrize("anyio_backend", ["asyncio"])  # one run: it waits out the grace of a few seconds
async def test_a_task_still_working_past_its_ttl_ends_the_polling_with_a_timeout(anyio_backend: str) -> None:
    tasks = ServerTasks(store=NeverFinishes(clock=lambda: 0.0), ttl_ms=100, poll_interval_ms=20)

    @tasks.tool()
    async def quick() -> str:
        return "done, but the store forgets it"

    async with connected(MCPServer("broken", extensions=[tasks]), tasks) as client:
        with pytest.raises(MCPError) as raised:
            await client.call_tool("quick", {})
    assert raised.value.code == REQUEST_TIMEOUT and "past its ttlMs (100 ms)" in raised.value.message


def test_poll_intervals_that_cannot_work_are_refused() -> None:
    for options in ({"min_poll_interval": 0}, {"max_poll_interval": -1}, {"default_poll_interval": float("inf")},
                    {"min_poll_interval": 2.0, "max_poll_interval": 1.0}):
        with pytest.raises(ValueError):
            Tasks(**options)
    polling = Tasks(min_poll_interval=0.1, max_poll_interval=2.0, default_poll_interval=0.7)
    assert [polling.poll_interval(ms) for ms in (1, 500, 60_000, None)] == [0.1, 0.5, 2.0, 0.7]


# -- over real transports -------------------------------------------------------------------------


async def test_over_stdio_a_task_is_polled_to_its_result_and_a_handle_works_too() -> None:
    params = StdioServerParameters(command=sys.executable, args=[STDIO_SERVER])
    async with connected(params) as client:
        result = await client.call_tool("remove", {"item": "a"})
        handle = await client.call_tool("remove", {"item": "b"}, as_task=True)
        assert handle.task_id is not None
        second = await handle.result()
    assert result.content[0].text == "removed a" and second.content[0].text == "removed b"


@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_over_http_a_task_outlives_its_post_and_is_polled_to_its_result(anyio_backend: str) -> None:
    mcp, _, _ = studio()
    with serving(lambda: mcp.streamable_http_app()) as base:
        async with connected(f"{base}/mcp") as client:
            result = await client.call_tool("remove", {"item": "c"})
            handle = await client.call_tool("count", {"upto": 7}, as_task=True)
            assert (await handle.result()).structured_content == {"total": 7}
            with pytest.raises(TaskNotFoundError):
                await client.get_task("no-such-task")
    assert result.content[0].text == "removed c"


@pytest.mark.timeout(900)  # the first run on a machine builds FastMCP's task server venv (cached after)
async def test_against_fastmcps_task_server_tasks_are_polled_answered_and_unknown_ids_refused() -> None:
    """Interop: FastMCP's `fastmcp-tasks` (docket in memory) over stdio. Its tasks ask for input by
    returning an `InputRequiredResult` the task re-runs with; its 5 s poll interval is capped here."""
    python = fastmcp_tasks_python()
    params = StdioServerParameters(command=python, args=[FASTMCP_SERVER])
    with anyio.fail_after(60):
        async with Client(params, extensions=[Tasks(max_poll_interval=0.1)], elicitation_callback=name_ada) as client:
            assert "io.modelcontextprotocol/tasks" in (client.server_capabilities.extensions or {})
            summed = await client.call_tool("slow_sum", {"a": 2, "b": 3})
            handle = await client.call_tool("ask_name", {}, as_task=True)
            assert handle.task_id is not None
            greeted = await handle.result()
            with pytest.raises(TaskNotFoundError):
                await client.get_task("no-such-task")
    assert summed.structured_content == {"result": 5}
    assert greeted.content[0].text == "Hello, Ada"


async def name_ada(context: Any, params: Any) -> ElicitResult:
    return ElicitResult(action="accept", content={"name": "Ada"})
