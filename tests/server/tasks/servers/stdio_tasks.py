"""A stdio server with task tools (spawned by test_tasks_stdio.py)."""

from __future__ import annotations

import anyio
from pydantic import BaseModel

from mcp.server.mcpserver import AcceptedElicitation, MCPServer
from mcp.server.tasks import TaskContext, Tasks

tasks = Tasks()


class Confirmation(BaseModel):
    confirm: bool


@tasks.tool()
async def sleeper(seconds: float) -> str:
    await anyio.sleep(seconds)
    return f"slept {seconds:g}s"


@tasks.tool()
async def confirm(item: str, ctx: TaskContext) -> str:
    answer = await ctx.elicit(f"Remove {item}?", Confirmation)
    return f"removed {item}" if isinstance(answer, AcceptedElicitation) else f"kept {item}"


mcp = MCPServer("stdio-tasks", extensions=[tasks])

if __name__ == "__main__":
    mcp.run()
