"""The MCP tasks extension (SEP-2663, `io.modelcontextprotocol/tasks`), server side.

```python
from mcp.server.mcpserver import MCPServer
from mcp.server.tasks import TaskContext, Tasks

tasks = Tasks()


@tasks.tool()  # a task when the client declared the extension on the request
async def render(scene: str, ctx: TaskContext) -> str:
    await ctx.set_status_message("rendering")
    ...


mcp = MCPServer("studio", extensions=[tasks])
```

See `mcp.server.tasks._extension` for how calls become tasks and where they run.
"""

from mcp.server.tasks._context import EXTENSION_ID, TaskContext
from mcp.server.tasks._extension import Tasks, TaskSupport
from mcp.server.tasks._models import CreateTaskResult, GetTaskResult
from mcp.server.tasks._store import (
    DEFAULT_POLL_INTERVAL_MS,
    DEFAULT_TTL_MS,
    TERMINAL_STATUSES,
    InMemoryTaskStore,
    TaskState,
    TaskStatus,
    TaskStore,
    TaskStoreFull,
)

__all__ = [
    "DEFAULT_POLL_INTERVAL_MS",
    "DEFAULT_TTL_MS",
    "EXTENSION_ID",
    "TERMINAL_STATUSES",
    "CreateTaskResult",
    "GetTaskResult",
    "InMemoryTaskStore",
    "TaskContext",
    "TaskState",
    "TaskStatus",
    "TaskStore",
    "TaskStoreFull",
    "TaskSupport",
    "Tasks",
]
