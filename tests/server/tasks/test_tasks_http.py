"""The tasks extension over Streamable HTTP (2026-07-28, stateless): every request is its own POST,
so a task must keep running after the response that created it; `Mcp-Name` carries the task id."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from pydantic import BaseModel

from mcp.server.mcpserver import AcceptedElicitation, MCPServer
from mcp.server.tasks import EXTENSION_ID, TaskContext, Tasks

sys.path.insert(0, str(Path(__file__).parents[1] / "http"))
from httpkit import anyio_backend, connect, modern, modern_headers, modern_meta, wire

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.wire_invalid_ok({"result": {"resultType": "task"}},
                                reason="CreateTaskResult (resultType 'task') is the tasks extension's result "
                                "shape, by design not a core CallToolResult"),
]

CAPS = {"extensions": {EXTENSION_ID: {}}, "elicitation": {}}


__all__ = ["anyio_backend", "wire"]  # the per-wire fixtures, used by every test here


class Confirmation(BaseModel):
    confirm: bool


def server() -> tuple[MCPServer, Tasks]:
    tasks = Tasks()

    @tasks.tool()
    async def sleeper(seconds: float) -> str:
        await anyio.sleep(seconds)
        return f"slept {seconds:g}s"

    @tasks.tool()
    async def confirm(item: str, ctx: TaskContext) -> str:
        answer = await ctx.elicit(f"Remove {item}?", Confirmation)
        return f"removed {item}" if isinstance(answer, AcceptedElicitation) else f"kept {item}"

    return MCPServer("http-tasks", extensions=[tasks]), tasks


async def rpc(client: Any, request_id: int, method: str, params: dict[str, Any],
              capabilities: dict[str, Any] | None = None, **headers: str) -> tuple[int, dict[str, Any]]:
    message = modern(request_id, method, params, meta=modern_meta(CAPS if capabilities is None else capabilities))
    extra = {"mcp_name": params["taskId"]} if "taskId" in params else {}
    response = await client.post("/mcp", json=message, headers=modern_headers(message, **{**extra, **headers}))
    return response.status_code, response.json()


async def poll(client: Any, task_id: str, *statuses: str) -> dict[str, Any]:
    wanted = set(statuses) or {"completed", "failed", "cancelled"}
    for request_id in range(100, 1000):  # tasks/get is how the protocol watches a task: a client polls it
        _, body = await rpc(client, request_id, "tasks/get", {"taskId": task_id})
        if body["result"]["status"] in wanted:
            return body["result"]
        await anyio.sleep(0.02)
    raise AssertionError("the task never settled")


async def test_a_task_outlives_the_post_that_created_it_and_takes_input_later(wire: str) -> None:
    mcp, tasks = server()
    try:
        with anyio.fail_after(20):
            async with connect(wire, mcp.streamable_http_app()) as client:
                status, body = await rpc(client, 1, "tools/call", {"name": "sleeper", "arguments": {"seconds": 0.1}})
                assert status == 200 and body["result"]["resultType"] == "task"
                done = await poll(client, body["result"]["taskId"])
                assert done["result"]["content"][0]["text"] == "slept 0.1s"

                _, body = await rpc(client, 2, "tools/call", {"name": "confirm", "arguments": {"item": "db"}})
                task_id = body["result"]["taskId"]
                parked = await poll(client, task_id, "input_required")
                [key] = parked["inputRequests"]
                status, ack = await rpc(client, 3, "tasks/update", {
                    "taskId": task_id, "inputResponses": {key: {"action": "accept", "content": {"confirm": True}}}})
                assert status == 200 and ack["result"]["resultType"] == "complete"
                assert (await poll(client, task_id))["result"]["content"][0]["text"] == "removed db"
    finally:
        await tasks.aclose()


async def test_tasks_methods_check_the_routing_header_and_the_declaration(wire: str) -> None:
    mcp, tasks = server()
    try:
        with anyio.fail_after(20):
            async with connect(wire, mcp.streamable_http_app()) as client:
                _, body = await rpc(client, 1, "tools/call", {"name": "sleeper", "arguments": {"seconds": 30}})
                task_id = body["result"]["taskId"]
                status, body = await rpc(client, 2, "tasks/get", {"taskId": task_id}, mcp_name="another-task")
                assert (status, body["error"]["code"]) == (400, -32020)
                status, body = await rpc(client, 3, "tasks/get", {"taskId": task_id}, capabilities={})
                assert (status, body["error"]["code"]) == (400, -32021)
                assert body["error"]["data"] == {"requiredCapabilities": {"extensions": {EXTENSION_ID: {}}}}
                status, body = await rpc(client, 4, "tasks/get", {"taskId": "unknown"})
                assert (status, body["error"]["code"]) == (400, -32602)
                status, body = await rpc(client, 5, "tasks/result", {"taskId": task_id})
                assert (status, body["error"]["code"]) == (404, -32601)
                status, body = await rpc(client, 6, "tasks/cancel", {"taskId": task_id})
                assert status == 200 and body["result"]["resultType"] == "complete"
                assert (await poll(client, task_id))["status"] == "cancelled"
    finally:
        await tasks.aclose()
