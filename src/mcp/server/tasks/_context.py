"""`TaskContext`: the `Context` a task tool receives, plus what only a task can do (park for input)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from mcp.server.mcpserver.context import Context
from mcp.shared.exceptions import MCPError
from mcp.types.jsonrpc import MISSING_REQUIRED_CLIENT_CAPABILITY

if TYPE_CHECKING:
    from mcp.server.tasks._run import TaskRun

EXTENSION_ID = "io.modelcontextprotocol/tasks"


class TaskContext(Context):
    """Annotate a task tool's parameter with `TaskContext` (instead of `Context`) to receive it.

    When the call became a task (`is_task`), `elicit()` and `input()` park the task in
    `input_required` until the client answers through `tasks/update`. When the call runs
    synchronously instead (the client did not declare the extension), they use the handshake-era
    back-channel, and on the 2026-07-28 wire, which has none, fail with -32021 naming the tasks
    extension. Progress and log notifications are not sent from a task (SEP-2663).
    """

    __slots__ = ("_task",)

    def __init__(self, context: Context | None = None, task: TaskRun | None = None) -> None:
        super().__init__(*(context.binding if context is not None else (None, None)))
        self._task = task

    @property
    def is_task(self) -> bool:
        """True when this call is running as a task (its caller got a `CreateTaskResult`)."""
        return self._task is not None

    @property
    def task_id(self) -> str | None:
        return None if self._task is None else self._task.task_id

    @property
    def cancelled(self) -> bool:
        if self._task is not None:
            return self._task.flag.cancelled
        return super().cancelled

    async def set_status_message(self, message: str | None) -> None:
        """The task's `statusMessage` (shown by `tasks/get`); a no-op outside a task."""
        if self._task is not None:
            await self._task.set_status_message(message)

    async def elicit(self, message: str, schema: type[Any]) -> Any:
        """Ask the user for form input; returns `AcceptedElicitation(data=...)`,
        `DeclinedElicitation()` or `CancelledElicitation()`."""
        from mcp.server.elicitation import form_schema, validated_result

        requested = form_schema(schema)
        if self._task is None:
            self._require_back_channel()
            return await super().elicit(message, schema)
        answer = await self._task.ask("elicitation/create",
                                      {"mode": "form", "message": message, "requestedSchema": requested})
        return validated_result(schema, cast("dict[str, Any]", answer) if isinstance(answer, dict) else {})

    async def input(self, method: str, params: dict[str, Any], *, key: str | None = None) -> Any:
        """Any server-to-client request (`elicitation/create`, `sampling/createMessage`,
        `roots/list`): its raw result. `key` names it in `inputRequests` (unique per task)."""
        if self._task is None:
            self._require_back_channel()
            return await self.session.send_request(method, params)
        return await self._task.ask(method, params, key=key)

    def _require_back_channel(self) -> None:
        if not self.session.has_back_channel:
            raise MCPError(MISSING_REQUIRED_CLIENT_CAPABILITY,
                           f"This tool asks for input while it runs: declare the {EXTENSION_ID} extension",
                           {"requiredCapabilities": {"extensions": {EXTENSION_ID: {}}}})
