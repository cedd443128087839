"""The tasks extension (SEP-2663) fixtures the conformance harness's `tasks-*` scenarios call.

`install(mcp)` adds them to the everything server: `greet` as a plain tool, the rest as task tools
of a `Tasks` extension built with the public API (`mcp.server.tasks`).
"""

from __future__ import annotations

from typing import Annotated

import anyio
from pydantic import BaseModel

from mcp import MCPError
from mcp.server.extension import install_extensions
from mcp.server.mcpserver import AcceptedElicitation, Elicit, MCPServer, Resolve
from mcp.server.tasks import TaskContext, Tasks
from mcp.types.jsonrpc import INTERNAL_ERROR


class Confirmation(BaseModel):
    confirm: bool


class UserName(BaseModel):
    name: str


def greet(name: str) -> str:
    """Greets someone, synchronously (never a task)."""
    return f"Hello, {name}!"


def ask_user_name() -> Elicit[UserName]:
    return Elicit("What is your name?", UserName)


def tasks_extension() -> Tasks:
    """A `Tasks` extension holding every task fixture."""
    tasks = Tasks()

    @tasks.tool()
    async def slow_compute(seconds: float, label: str = "") -> str:
        """Sleeps `seconds` seconds, then answers (a task when the client declared the extension)."""
        await anyio.sleep(seconds)
        return f"Computed {label or 'result'} after {seconds:g}s"

    @tasks.tool()
    async def confirm_delete(filename: str, ctx: TaskContext) -> str:
        """Asks for confirmation (the task parks in input_required), then deletes or keeps the file."""
        answer = await ctx.elicit(f"Delete {filename}?", Confirmation)
        if isinstance(answer, AcceptedElicitation) and answer.data.confirm:  # pyright: ignore[reportUnknownMemberType]
            return f"Deleted {filename}"
        return f"Kept {filename}"

    @tasks.tool()
    async def multi_input(ctx: TaskContext) -> str:
        """Asks two questions at once; each can be answered on its own through tasks/update."""
        answers: dict[str, object] = {}

        async def ask(slot: str, message: str, schema: type[BaseModel]) -> None:
            answers[slot] = await ctx.elicit(message, schema)

        async with anyio.create_task_group() as group:
            group.start_soon(ask, "name", "What is your name?", UserName)
            group.start_soon(ask, "confirm", "Shall I proceed?", Confirmation)
        name = answers["name"]
        who = name.data.name if isinstance(name, AcceptedElicitation) else "nobody"  # pyright: ignore[reportUnknownMemberType, reportAttributeAccessIssue]
        return f"Both inputs received ({who})"

    @tasks.tool(task_support="required")
    async def failing_job() -> str:
        """Runs only as a task, then fails as a tool (completed, result.isError)."""
        await anyio.sleep(0.5)  # works a while first: the harness may see it "working"
        raise RuntimeError("failing_job failed on purpose")

    @tasks.tool()
    async def protocol_error_job() -> str:
        """Fails with a JSON-RPC error (the task ends failed, with the error inlined)."""
        await anyio.sleep(0.1)  # works a moment first, like a real job
        raise MCPError(INTERNAL_ERROR, "protocol_error_job failed on purpose")

    @tasks.tool(task_support="required")
    async def test_tool_with_task(user_name: Annotated[UserName, Resolve(ask_user_name)]) -> str:
        """Asks the user's name first (multi-round-trip), then becomes a task that greets them."""
        await anyio.sleep(0.1)  # works a moment first, like a real job
        return f"Hello, {user_name.name}!"

    return tasks


def install(mcp: MCPServer) -> Tasks:
    """Register the tasks fixtures on `mcp` (`greet`, and the `Tasks` extension with the rest)."""
    mcp.add_tool(greet)
    tasks = tasks_extension()
    install_extensions(mcp, [tasks])
    return tasks
