"""The tasks extension (SEP-2663) through `Client(mcp)` on the 2026-07-28 wire: task creation,
polling, input parking, cancellation, the -32021 gates, MRTR composition and task lifetimes."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated, Any

import anyio
import pytest
from pydantic import BaseModel

from mcp import Client, MCPError
from mcp.client import advertise
from mcp.server.mcpserver import AcceptedElicitation, Context, Elicit, MCPServer, Resolve
from mcp.server.tasks import EXTENSION_ID, InMemoryTaskStore, TaskContext, Tasks
from mcp.types import ElicitResult

pytestmark = pytest.mark.anyio

task_results = pytest.mark.wire_invalid_ok(
    {"result": {"resultType": "task"}},
    reason="CreateTaskResult (resultType 'task') is the tasks extension's result shape, by design not a core "
    "CallToolResult (the conformance harness validates it as a plain Result)")

DECLARES = [advertise(EXTENSION_ID)]


class Confirmation(BaseModel):
    confirm: bool


class UserName(BaseModel):
    name: str


async def answer_elicitation(ctx: Any, params: Any) -> ElicitResult:
    return ElicitResult(action="accept", content={"confirm": True})


def studio(tasks: Tasks | None = None) -> tuple[MCPServer, Tasks, dict[str, Any]]:
    """A server with one tool of each kind; `seen` records what the task bodies observed."""
    tasks = tasks if tasks is not None else Tasks()
    seen: dict[str, Any] = {}

    @tasks.tool()
    async def sleeper(seconds: float, ctx: TaskContext) -> str:
        """Sleeps, then answers."""
        seen["is_task"], seen["task_id"] = ctx.is_task, ctx.task_id
        if "running" in seen:  # a test waiting for the body to start
            seen["running"].set()
        try:
            await anyio.sleep(seconds)
            if "gate" in seen:  # a test holding the task in "working" until it has looked
                await seen["gate"].wait()
        except BaseException:
            seen["interrupted"] = True
            if "stopped" in seen:  # a test waiting for the body to be stopped
                seen["stopped"].set()
            raise
        return f"slept {seconds:g}s"

    @tasks.tool(task_support="required")
    def blocking(label: str, ctx: TaskContext) -> str:
        """A sync function: runs on a worker thread."""
        seen["blocking_task"] = ctx.task_id
        return f"blocked {label}"

    @tasks.tool()
    async def confirm(item: str, ctx: TaskContext) -> str:
        """Parks for a confirmation."""
        await ctx.set_status_message(f"about to remove {item}")
        answer = await ctx.elicit(f"Remove {item}?", Confirmation)
        if isinstance(answer, AcceptedElicitation) and answer.data.confirm:  # pyright: ignore[reportUnknownMemberType]
            return f"removed {item}"
        return f"kept {item}"

    @tasks.tool()
    async def two_questions(ctx: TaskContext) -> str:
        """Asks two questions at once."""
        answers: dict[str, Any] = {}

        async def ask(slot: str, schema: type[BaseModel]) -> None:
            answers[slot] = await ctx.elicit(f"{slot}?", schema)

        async with anyio.create_task_group() as group:
            group.start_soon(ask, "name", UserName)
            group.start_soon(ask, "confirm", Confirmation)
        return f"{answers['name'].data.name} / {answers['confirm'].data.confirm}"

    @tasks.tool()
    async def tool_error() -> str:
        """Fails as a tool."""
        raise RuntimeError("bad input")

    @tasks.tool()
    async def protocol_error() -> str:
        """Fails with a JSON-RPC error."""
        raise MCPError(-32603, "backend unavailable", {"retry": True})

    def ask_name() -> Elicit[UserName]:
        return Elicit("Who are you?", UserName)

    @tasks.tool(task_support="required")
    async def greet_later(user_name: Annotated[UserName, Resolve(ask_name)]) -> str:
        """Asks the name first (multi-round-trip), then greets as a task."""
        return f"Hello, {user_name.name}!"

    mcp = MCPServer("studio", extensions=[tasks])

    @mcp.tool()
    def plain(name: str) -> str:
        return f"Hi {name}"

    return mcp, tasks, seen


@asynccontextmanager
async def connected(mcp: MCPServer, tasks: Tasks, **options: Any) -> AsyncIterator[Client]:
    try:
        async with Client(mcp, **options) as client:
            yield client
    finally:
        await tasks.aclose()


async def call(client: Client, name: str, arguments: dict[str, Any] | None = None, **params: Any) -> dict[str, Any]:
    return await client.session.send_request_raw("tools/call", {"name": name, "arguments": arguments or {}, **params})


async def task_request(client: Client, method: str, task_id: str, **params: Any) -> dict[str, Any]:
    return await client.session.send_request_raw(method, {"taskId": task_id, **params})


async def wait_for(client: Client, task_id: str, *statuses: str, keys: int = 0) -> dict[str, Any]:
    wanted = set(statuses) or {"completed", "failed", "cancelled"}
    with anyio.fail_after(5):
        while True:  # tasks/get is how the protocol watches a task: a client polls it
            task = await task_request(client, "tasks/get", task_id)
            if task["status"] in wanted and len(task.get("inputRequests") or {}) >= keys:
                return task
            await anyio.sleep(0.01)


def task_fields(result: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in result.items() if k not in ("_meta", "createdAt", "lastUpdatedAt", "taskId")}


# -- creation and polling --------------------------------------------------------------------------


@task_results
async def test_a_declaring_client_gets_a_flat_task_handle_then_polls_the_inlined_result() -> None:
    mcp, tasks, seen = studio()
    seen["gate"] = gate = anyio.Event()  # a busy machine could finish 0.05 s before the first look
    async with connected(mcp, tasks, extensions=DECLARES) as client:
        assert client.server_capabilities.extensions == {EXTENSION_ID: {}}
        assert "tasks" not in client.server_capabilities.model_dump(exclude_none=True)
        created = await call(client, "sleeper", {"seconds": 0.05})
        assert task_fields(created) == {"resultType": "task", "status": "working", "ttlMs": 3_600_000,
                                        "pollIntervalMs": 500}
        assert created["createdAt"].endswith("Z") and created["createdAt"] == created["lastUpdatedAt"]
        task_id = created["taskId"]
        assert len(task_id) >= 32  # an unguessable bearer handle
        working = await task_request(client, "tasks/get", task_id)  # resolves at once (durable create)
        assert working["taskId"] == task_id and working["resultType"] == "complete"
        assert working["status"] == "working" and "result" not in working
        gate.set()
        done = await wait_for(client, task_id)
    assert done["status"] == "completed" and done["resultType"] == "complete"
    assert done["result"] == {"content": [{"type": "text", "text": "slept 0.05s"}],
                              "structuredContent": {"result": "slept 0.05s"}, "isError": False,
                              "resultType": "complete"}
    assert "requestState" not in done and "requestState" not in created
    assert seen == {"is_task": True, "task_id": task_id, "gate": gate}


async def test_without_the_extension_a_task_tool_runs_synchronously_and_tasks_methods_are_gated() -> None:
    mcp, tasks, seen = studio()
    async with connected(mcp, tasks) as client:
        result = await call(client, "sleeper", {"seconds": 0})
        assert result["resultType"] == "complete" and result["content"][0]["text"] == "slept 0s"
        assert seen == {"is_task": False, "task_id": None}
        assert (await client.call_tool("plain", {"name": "Ann"})).content[0].text == "Hi Ann"  # pyright: ignore
        for method, extra in (("tasks/get", {}), ("tasks/update", {"inputResponses": {}}), ("tasks/cancel", {})):
            with pytest.raises(MCPError) as caught:
                await task_request(client, method, "any-id", **extra)
            assert caught.value.code == -32021
            assert caught.value.data == {"requiredCapabilities": {"extensions": {EXTENSION_ID: {}}}}


async def test_a_required_task_tool_refuses_a_client_without_the_extension() -> None:
    mcp, tasks, _ = studio()
    async with connected(mcp, tasks) as client:
        with pytest.raises(MCPError) as caught:
            await call(client, "blocking", {"label": "x"})
    assert caught.value.code == -32021
    assert caught.value.data == {"requiredCapabilities": {"extensions": {EXTENSION_ID: {}}}}


@task_results
async def test_a_per_request_declaration_opts_a_single_call_in() -> None:
    mcp, tasks, _ = studio()
    async with connected(mcp, tasks) as client:
        meta = {"io.modelcontextprotocol/clientCapabilities": {"extensions": {EXTENSION_ID: {}}}}
        created = await client.session.peer.send_request("tools/call", {
            "name": "sleeper", "arguments": {"seconds": 0},
            "_meta": {**(client.session.modern_meta or {}), **meta}})
        assert created["resultType"] == "task"
        plain = await call(client, "sleeper", {"seconds": 0})
        assert plain["resultType"] == "complete"


@task_results
async def test_sync_tools_stay_sync_even_with_a_legacy_task_hint() -> None:
    mcp, tasks, seen = studio()
    async with connected(mcp, tasks, extensions=DECLARES) as client:
        result = await call(client, "plain", {"name": "Bo"}, task={"ttl": 60000, "pollInterval": 100})
        assert result["resultType"] == "complete" and "taskId" not in result
        created = await call(client, "blocking", {"label": "b"})
        done = await wait_for(client, created["taskId"])
    assert done["result"]["content"][0]["text"] == "blocked b"
    assert seen["blocking_task"] == created["taskId"]


@task_results
async def test_tool_errors_complete_with_is_error_and_protocol_errors_fail_with_the_error_inlined() -> None:
    mcp, tasks, _ = studio()
    async with connected(mcp, tasks, extensions=DECLARES) as client:
        completed = await wait_for(client, (await call(client, "tool_error"))["taskId"])
        failed = await wait_for(client, (await call(client, "protocol_error"))["taskId"])
    assert completed["status"] == "completed" and completed["result"]["isError"] is True
    assert completed["result"]["content"][0]["text"] == "Error executing tool tool_error"  # masked: a crash
    assert failed["status"] == "failed" and "result" not in failed
    assert failed["error"] == {"code": -32603, "message": "backend unavailable", "data": {"retry": True}}
    assert failed["statusMessage"] == "backend unavailable"


async def test_invalid_arguments_are_answered_synchronously_without_a_task() -> None:
    mcp, tasks, _ = studio()
    async with connected(mcp, tasks, extensions=DECLARES) as client:
        result = await call(client, "sleeper", {"seconds": "soon"})
    assert result["resultType"] == "complete" and result["isError"] is True and "taskId" not in result


# -- cancellation, removed methods, unknown tasks --------------------------------------------------


@task_results
async def test_cancel_stops_a_running_task_and_is_an_idempotent_empty_ack() -> None:
    mcp, tasks, seen = studio()
    seen["running"], seen["stopped"] = running, stopped = anyio.Event(), anyio.Event()
    async with connected(mcp, tasks, extensions=DECLARES) as client:
        task_id = (await call(client, "sleeper", {"seconds": 60}))["taskId"]
        with anyio.fail_after(5):
            await running.wait()
        ack = await task_request(client, "tasks/cancel", task_id)
        assert set(ack) == {"resultType", "_meta"} and ack["resultType"] == "complete"
        cancelled = await task_request(client, "tasks/get", task_id)
        assert cancelled["status"] == "cancelled" and "result" not in cancelled and "error" not in cancelled
        assert await task_request(client, "tasks/cancel", task_id) == ack  # terminal: same ack
        with anyio.fail_after(5):
            await stopped.wait()
        assert (await task_request(client, "tasks/get", task_id))["status"] == "cancelled"


async def test_removed_methods_and_unknown_tasks() -> None:
    mcp, tasks, _ = studio()
    async with connected(mcp, tasks, extensions=DECLARES) as client:
        for method in ("tasks/result", "tasks/list"):
            with pytest.raises(MCPError) as caught:
                await client.session.send_request_raw(method, {"taskId": "x"})
            assert caught.value.code == -32601
        for method, extra in (("tasks/get", {}), ("tasks/update", {"inputResponses": {}}), ("tasks/cancel", {})):
            with pytest.raises(MCPError) as caught:
                await task_request(client, method, "no-such-task", **extra)
            assert caught.value.code == -32602
        with pytest.raises(MCPError) as caught:
            await client.session.send_request_raw("tasks/get", {"taskId": 7})
        assert caught.value.code == -32602


# -- input_required ---------------------------------------------------------------------------------


@task_results
async def test_a_task_parks_in_input_required_until_tasks_update_answers() -> None:
    mcp, tasks, _ = studio()
    async with connected(mcp, tasks, extensions=DECLARES, elicitation_callback=answer_elicitation) as client:
        task_id = (await call(client, "confirm", {"item": "cache"}))["taskId"]
        parked = await wait_for(client, task_id, "input_required")
        assert parked["statusMessage"] == "about to remove cache"
        [(key, request)] = parked["inputRequests"].items()
        assert request == {"method": "elicitation/create", "params": {
            "mode": "form", "message": "Remove cache?",
            "requestedSchema": {"type": "object", "properties": {"confirm": {"title": "Confirm", "type": "boolean"}},
                                "required": ["confirm"], "title": "Confirmation"}}}
        ignored = await task_request(client, "tasks/update", task_id,
                                     inputResponses={"unknown": {"x": 1}, key: "not a result object"})
        assert set(ignored) == {"resultType", "_meta"}
        assert (await task_request(client, "tasks/get", task_id))["inputRequests"] == parked["inputRequests"]
        await task_request(client, "tasks/update", task_id,
                           inputResponses={key: {"action": "accept", "content": {"confirm": True}}})
        done = await wait_for(client, task_id)
        again = await task_request(client, "tasks/update", task_id, inputResponses={key: {"action": "decline"}})
    assert done["result"]["content"][0]["text"] == "removed cache"
    assert again["resultType"] == "complete"


@task_results
async def test_parallel_questions_are_answered_one_at_a_time() -> None:
    mcp, tasks, _ = studio()
    async with connected(mcp, tasks, extensions=DECLARES, elicitation_callback=answer_elicitation) as client:
        task_id = (await call(client, "two_questions"))["taskId"]
        parked = await wait_for(client, task_id, "input_required", keys=2)
        first, second = parked["inputRequests"]
        await task_request(client, "tasks/update", task_id,
                           inputResponses={first: {"action": "accept", "content": {"name": "Ada", "confirm": True}}})
        partial = await task_request(client, "tasks/get", task_id)
        assert partial["status"] == "input_required" and list(partial["inputRequests"]) == [second]
        await task_request(client, "tasks/update", task_id,
                           inputResponses={second: {"action": "accept", "content": {"name": "Ada", "confirm": True}}})
        done = await wait_for(client, task_id)
    assert done["result"]["content"][0]["text"] == "Ada / True"


@task_results
async def test_a_task_cannot_ask_what_the_client_cannot_answer() -> None:
    mcp, tasks, _ = studio()
    async with connected(mcp, tasks, extensions=DECLARES) as client:  # no elicitation capability
        failed = await wait_for(client, (await call(client, "confirm", {"item": "x"}))["taskId"])
    assert failed["status"] == "failed"
    assert failed["error"]["code"] == -32021
    assert failed["error"]["data"] == {"requiredCapabilities": {"elicitation": {}}}


async def test_asking_mid_call_needs_the_extension_on_the_stateless_wire() -> None:
    mcp, tasks, _ = studio()
    async with connected(mcp, tasks, elicitation_callback=answer_elicitation) as client:
        with pytest.raises(MCPError) as caught:
            await call(client, "confirm", {"item": "x"})
    assert caught.value.code == -32021
    assert caught.value.data == {"requiredCapabilities": {"extensions": {EXTENSION_ID: {}}}}


async def test_the_handshake_era_runs_task_tools_synchronously_with_the_back_channel() -> None:
    mcp, tasks, _ = studio()
    async with connected(mcp, tasks, mode="legacy", elicitation_callback=answer_elicitation,
                         extensions=DECLARES) as client:
        result = await client.call_tool("confirm", {"item": "logs"})
        assert result.content[0].text == "removed logs"  # pyright: ignore[reportAttributeAccessIssue]
        with pytest.raises(MCPError) as caught:
            await client.session.send_request_raw("tasks/get", {"taskId": "x"})
        assert caught.value.code == -32601  # not a 2025-11-25 method we serve
        with pytest.raises(MCPError) as caught:
            await client.call_tool("blocking", {"label": "x"})
        assert caught.value.code == -32021


# -- multi-round-trip composition -----------------------------------------------------------------


@task_results
async def test_mrtr_rounds_run_synchronously_and_the_last_round_creates_the_task() -> None:
    mcp, tasks, _ = studio()
    async with connected(mcp, tasks, extensions=DECLARES, elicitation_callback=answer_elicitation) as client:
        first = await call(client, "greet_later")
        assert first["resultType"] == "input_required" and "taskId" not in first
        assert list(first["inputRequests"]) == ["user_name"]
        created = await call(client, "greet_later", requestState=first["requestState"],
                             inputResponses={"user_name": {"action": "accept", "content": {"name": "Alice"}}})
        assert created["resultType"] == "task"
        assert "requestState" not in created and "inputRequests" not in created
        done = await wait_for(client, created["taskId"])
        with pytest.raises(MCPError) as caught:  # the seal still protects round 2
            await call(client, "greet_later", requestState=first["requestState"] + "x",
                       inputResponses={"user_name": {"action": "accept", "content": {"name": "Eve"}}})
    assert done["result"]["content"][0]["text"] == "Hello, Alice!"
    assert caught.value.code == -32602


# -- lifetimes, TTL, capacity ---------------------------------------------------------------------


@task_results
async def test_a_task_past_its_ttl_is_stopped_and_forgotten() -> None:
    mcp, tasks, seen = studio(Tasks(ttl_ms=150))
    seen["stopped"] = stopped = anyio.Event()
    async with connected(mcp, tasks, extensions=DECLARES) as client:
        created = await call(client, "sleeper", {"seconds": 30})
        assert created["ttlMs"] == 150
        with anyio.fail_after(5):
            await stopped.wait()
            # the store forgets it by its own (wall) clock, a moment apart from the run's deadline:
            # ask until it does (the server's state, which no event of ours can see)
            while True:
                try:
                    await task_request(client, "tasks/get", created["taskId"])
                except MCPError as refused:
                    caught = refused
                    break
                await anyio.sleep(0.01)
    assert caught.code == -32602


@task_results
async def test_a_tool_may_set_its_own_ttl_and_poll_interval_is_configurable() -> None:
    tasks = Tasks(poll_interval_ms=2000)

    @tasks.tool(ttl_ms=90_000)
    async def quick() -> str:
        return "ok"

    mcp = MCPServer("ttl", extensions=[tasks])
    async with connected(mcp, tasks, extensions=DECLARES) as client:
        created = await call(client, "quick")
        await wait_for(client, created["taskId"])
    assert (created["ttlMs"], created["pollIntervalMs"]) == (90_000, 2000)


@task_results
async def test_a_full_store_refuses_new_tasks_without_losing_running_ones() -> None:
    mcp, tasks, _ = studio(Tasks(store=InMemoryTaskStore(max_tasks=1)))
    async with connected(mcp, tasks, extensions=DECLARES) as client:
        running = (await call(client, "sleeper", {"seconds": 30}))["taskId"]
        with pytest.raises(MCPError) as caught:
            await call(client, "sleeper", {"seconds": 0})
        assert caught.value.code == -32603
        await task_request(client, "tasks/cancel", running)
        replacement = await call(client, "sleeper", {"seconds": 0})  # a finished task makes room
        await wait_for(client, replacement["taskId"])
        with pytest.raises(MCPError):
            await task_request(client, "tasks/get", running)


@task_results
async def test_tasks_started_inside_running_end_with_that_scope() -> None:
    mcp, tasks, seen = studio()
    seen["running"] = running = anyio.Event()
    async with Client(mcp, extensions=DECLARES) as client:
        async with tasks.running():
            task_id = (await call(client, "sleeper", {"seconds": 30}))["taskId"]
            with anyio.fail_after(5):
                await running.wait()
        stopped = await task_request(client, "tasks/get", task_id)
    assert stopped["status"] == "cancelled" and seen["interrupted"] is True
    assert stopped["statusMessage"] == "The server stopped before the task finished"


@task_results
async def test_tasks_outlive_the_client_connection_that_created_them() -> None:
    mcp, tasks, _ = studio()
    try:
        async with Client(mcp, extensions=DECLARES) as client:
            task_id = (await call(client, "sleeper", {"seconds": 0.1}))["taskId"]
        async with Client(mcp, extensions=DECLARES) as client:
            done = await wait_for(client, task_id)
    finally:
        await tasks.aclose()
    assert done["status"] == "completed"


# -- registration ---------------------------------------------------------------------------------


def test_registration_mistakes_fail_early() -> None:
    tasks = Tasks()
    with pytest.raises(TypeError, match="Did you forget to call it"):
        tasks.tool(lambda: "x")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="task_support"):
        tasks.tool(task_support="sometimes")  # type: ignore[arg-type]

    @tasks.tool()
    def job() -> str:
        return "x"

    with pytest.raises(ValueError, match="registered twice"):
        tasks.add_tool(job)
    with pytest.raises(ValueError, match="ttl_ms"):
        Tasks(ttl_ms=0)
    with pytest.raises(ValueError, match="poll_interval_ms"):
        Tasks(poll_interval_ms=1.5)  # type: ignore[arg-type]
    MCPServer("built", extensions=[tasks])
    with pytest.raises(RuntimeError, match="before the server is built"):
        tasks.tool()(lambda: "late")


async def test_task_tools_are_listed_like_any_tool_and_callable_directly() -> None:
    mcp, _, _ = studio()
    names = [tool.name for tool in await mcp.list_tools()]
    assert {"sleeper", "blocking", "confirm", "greet_later", "plain"} <= set(names)
    sleeper = next(tool for tool in await mcp.list_tools() if tool.name == "sleeper")
    assert sleeper.description == "Sleeps, then answers."
    assert set(sleeper.input_schema["properties"]) == {"seconds"}  # the TaskContext is not an argument
    result = await mcp.call_tool("sleeper", {"seconds": 0})
    assert result.content[0].text == "slept 0s"


async def test_a_plain_context_parameter_also_gets_the_task_context() -> None:
    tasks = Tasks()
    seen: list[Any] = []

    @tasks.tool()
    async def probe(ctx: Context) -> str:
        seen.append(ctx)
        return "ok"

    mcp = MCPServer("probe", extensions=[tasks])
    async with connected(mcp, tasks) as client:
        await call(client, "probe")
    assert isinstance(seen[0], TaskContext) and not seen[0].is_task
