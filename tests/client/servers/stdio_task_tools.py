"""A stdio server with task tools (spawned by test_tasks_client.py): a tool that reports its
status and asks for a confirmation, polled every 20 ms."""

from __future__ import annotations

import anyio
from pydantic import BaseModel

from mcp.server.mcpserver import AcceptedElicitation, MCPServer
from mcp.server.tasks import TaskContext, Tasks

tasks = Tasks(poll_interval_ms=20)


class Confirmation(BaseModel):
    confirm: bool


@tasks.tool()
async def remove(item: str, ctx: TaskContext) -> str:
    await ctx.set_status_message(f"looking at {item}")
    await anyio.sleep(0.05)
    answer = await ctx.elicit(f"Remove {item}?", Confirmation)
    confirmed = isinstance(answer, AcceptedElicitation) and answer.data.confirm  # pyright: ignore[reportUnknownMemberType]
    return f"removed {item}" if confirmed else f"kept {item}"


mcp = MCPServer("stdio-task-tools", extensions=[tasks])

if __name__ == "__main__":
    mcp.run()
