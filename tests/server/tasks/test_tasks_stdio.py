"""The tasks extension over stdio: a task keeps running between the requests of one connection."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from mcp import Client, StdioServerParameters
from mcp.client import advertise
from mcp.server.tasks import EXTENSION_ID
from mcp.types import ElicitResult

pytestmark = pytest.mark.anyio

SERVER = str(Path(__file__).parent / "servers" / "stdio_tasks.py")


async def can_elicit(ctx: Any, params: Any) -> ElicitResult:
    return ElicitResult(action="accept", content={"confirm": True})


async def settle(client: Client, task_id: str, *statuses: str) -> dict[str, Any]:
    wanted = set(statuses) or {"completed", "failed", "cancelled"}
    with anyio.fail_after(10):
        while True:  # tasks/get is how the protocol watches a task: a client polls it
            task = await client.session.send_request_raw("tasks/get", {"taskId": task_id})
            if task["status"] in wanted:
                return task
            await anyio.sleep(0.02)


async def test_a_stdio_server_runs_tasks_in_the_background_and_takes_input_through_tasks_update() -> None:
    params = StdioServerParameters(command=sys.executable, args=[SERVER])
    with anyio.fail_after(20):
        async with Client(params, extensions=[advertise(EXTENSION_ID)], elicitation_callback=can_elicit) as client:
            created = await client.session.send_request_raw("tools/call", {"name": "sleeper",
                                                                           "arguments": {"seconds": 0.1}})
            assert created["resultType"] == "task"
            done = await settle(client, created["taskId"])
            assert done["result"]["content"][0]["text"] == "slept 0.1s"
            task_id = (await client.session.send_request_raw(
                "tools/call", {"name": "confirm", "arguments": {"item": "tmp"}}))["taskId"]
            [key] = (await settle(client, task_id, "input_required"))["inputRequests"]
            await client.session.send_request_raw("tasks/update", {
                "taskId": task_id, "inputResponses": {key: {"action": "accept", "content": {"confirm": True}}}})
            assert (await settle(client, task_id))["result"]["content"][0]["text"] == "removed tmp"
