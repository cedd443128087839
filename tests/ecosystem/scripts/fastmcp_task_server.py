"""FastMCP's task server (the `fastmcp-tasks` package, SEP-2663 on docket's in-memory backend),
on stdio: spawned by tests/client/test_tasks_client.py with an interpreter that has FastMCP installed."""

from __future__ import annotations

import asyncio
from typing import Any

from fastmcp import Context, FastMCP
from fastmcp_tasks import TasksExtension

from mcp.types import ElicitRequest, ElicitRequestFormParams, InputRequiredResult

mcp = FastMCP("fastmcp-tasks")
mcp.add_extension(TasksExtension())


@mcp.tool(task=True)
async def slow_sum(a: int, b: int) -> int:
    await asyncio.sleep(0.2)
    return a + b


@mcp.tool(task=True)
async def ask_name(ctx: Context) -> Any:
    """FastMCP's tasks ask by returning an `InputRequiredResult` (its guard pattern); the task
    re-runs with the client's answers on `ctx.input_responses`."""
    answers: Any = ctx.input_responses or {}
    if "name" not in answers:
        form = ElicitRequestFormParams(message="Your name?", requested_schema={
            "type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]})
        return InputRequiredResult(input_requests={"name": ElicitRequest(params=form)})
    return f"Hello, {answers['name'].content['name']}"


if __name__ == "__main__":
    mcp.run()
