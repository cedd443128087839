"""The tasks extension (SEP-2663, `io.modelcontextprotocol/tasks`), client side.

```python
from mcp import Client
from mcp.client.tasks import Tasks

async with Client(server, extensions=[Tasks()], elicitation_callback=ask_person) as client:
    result = await client.call_tool("render", {"scene": "a"})  # a task: polled to its end
    handle = await client.call_tool("render", {"scene": "b"}, as_task=True)
    print(handle.status, handle.status_message)
    result = await handle.result()  # or handle.cancel(), handle.respond({...})
```

Declaring `Tasks()` lets the server answer a `tools/call` with a task (`resultType: "task"`)
instead of its result; the server decides per call. Without `as_task`, `Client.call_tool` then
polls `tasks/get` at the server's `pollIntervalMs` (kept within the extension's bounds), answers
the task's input requests (`input_required`) with the client's callbacks through `tasks/update`,
and returns the `CallToolResult` the server inlines once the task completed, exactly what a
synchronous call would have returned. A task sends no progress notifications (SEP-2663): the
call's `progress_callback` is told of each new status or status message instead. A caller that
gives up on a transparent call (a timeout, a cancellation) cancels the task with `tasks/cancel`:
nobody else holds its id.

`as_task=True` returns a `TaskHandle` instead, to watch, answer and cancel the task yourself; a
call the server answered at once gives a handle that is already `completed`. `Client.get_task(id)`
takes up a task by its id (after a reconnect); an id the server does not know raises
`TaskNotFoundError`.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

import anyio

from mcp._protocol.extension_ids import TASKS_EXTENSION_ID
from mcp.client.extensions import ClaimContext, ClientExtension, ResultClaim
from mcp.shared.exceptions import MCPError
from mcp.types import CallToolResult, Result
from mcp.types.jsonrpc import INVALID_PARAMS, REQUEST_TIMEOUT

if TYPE_CHECKING:
    from mcp.client.session import ClientSession

__all__ = [
    "TASKS_EXTENSION_ID",
    "TERMINAL_STATUSES",
    "CreateTaskResult",
    "DetailedTask",
    "TaskCancelledError",
    "TaskHandle",
    "TaskNotFoundError",
    "Tasks",
]

TERMINAL_STATUSES = frozenset({"completed", "failed", "cancelled"})
"""Once a task reaches one of these, its state never changes again."""

_TTL_GRACE_SECONDS = 5.0
"""How long past a task's `ttlMs` it is still polled (clocks differ, the last poll takes time)."""

ProgressCallback = Callable[[float, "float | None", "str | None"], Awaitable[None]]


class CreateTaskResult(Result):
    """A `tools/call` answered with a task: `resultType: "task"` and the `Task` fields, flat."""

    result_type: Literal["task"] = "task"
    task_id: str
    status: str
    status_message: str | None = None
    created_at: str | None = None
    last_updated_at: str | None = None
    ttl_ms: int | None = None
    poll_interval_ms: int | None = None


class DetailedTask(Result):
    """`tasks/get`: the task's state, with what its status carries inlined (`inputRequests` while
    `input_required`, `result` once `completed`, `error` once `failed`)."""

    task_id: str
    status: str
    status_message: str | None = None
    created_at: str | None = None
    last_updated_at: str | None = None
    ttl_ms: int | None = None
    poll_interval_ms: int | None = None
    input_requests: dict[str, Any] | None = None
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None


class TaskNotFoundError(MCPError):
    """The server does not know this task id: it never existed, its TTL ran out, or it belongs to
    another principal. The server's own error is kept (`code`, `data`)."""

    def __init__(self, task_id: str, error: MCPError) -> None:
        super().__init__(error.code, f"Task {task_id!r} is not known to the server (never created, expired, or "
                                     f"not yours): {error.message}", error.data)
        self.task_id = task_id


class TaskCancelledError(RuntimeError):
    """The task ended `cancelled` (by `tasks/cancel`, or by the server): it has no result."""

    def __init__(self, task_id: str, status_message: str | None) -> None:
        why = f": {status_message}" if status_message else ""
        super().__init__(f"Task {task_id!r} was cancelled{why}")
        self.task_id = task_id
        self.status_message = status_message


class Tasks(ClientExtension):
    """Declare the tasks extension: `Client(server, extensions=[Tasks()])`.

    The server's `pollIntervalMs` is followed, kept within `min_poll_interval` and
    `max_poll_interval` seconds (a server's 1 ms does not become a busy loop, an hour does not
    hide a finished task); `default_poll_interval` when it suggests none."""

    identifier = TASKS_EXTENSION_ID

    def __init__(self, *, min_poll_interval: float = 0.01, max_poll_interval: float = 5.0,
                 default_poll_interval: float = 0.5) -> None:
        for name, value in (("min_poll_interval", min_poll_interval), ("max_poll_interval", max_poll_interval),
                            ("default_poll_interval", default_poll_interval)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < math.inf:
                raise ValueError(f"{name} must be a positive number of seconds, got {value!r}")
        if min_poll_interval > max_poll_interval:
            raise ValueError("min_poll_interval must not exceed max_poll_interval")
        self.min_poll_interval = min_poll_interval
        self.max_poll_interval = max_poll_interval
        self.default_poll_interval = default_poll_interval

    def claims(self) -> Sequence[ResultClaim[Any]]:
        return (ResultClaim(result_type="task", model=CreateTaskResult, resolve=self._resolve),)

    def poll_interval(self, poll_interval_ms: int | None) -> float:
        """Seconds to wait before the next `tasks/get`, from the server's suggestion."""
        if poll_interval_ms is None:
            return self.default_poll_interval
        return min(max(poll_interval_ms / 1000, self.min_poll_interval), self.max_poll_interval)

    async def _resolve(self, created: CreateTaskResult, ctx: ClaimContext) -> Any:
        """The transparent path: poll the task to its end, then hand back its result."""
        handle = TaskHandle(ctx.session, ctx.tool_name, created=created, polling=self,
                            read_timeout_seconds=ctx.read_timeout_seconds, progress_callback=ctx.progress_callback)
        return await handle.result(cancel_on_exit=True)


def tasks_of(session: ClientSession) -> Tasks | None:
    """The `Tasks` extension the session declares (None: it does not)."""
    for extension in session.extensions:
        if isinstance(extension, Tasks):
            return extension
    return None


class TaskHandle:
    """One task: its last known state, and what a client can do with it.

    `status`, `status_message` and `input_requests` are as of the last `refresh()` (or the
    creation); `result()` polls to the end; `respond()` answers input requests; `cancel()`."""

    def __init__(self, session: ClientSession, tool_name: str, *, created: CreateTaskResult | None = None,
                 task: DetailedTask | None = None, result: Any = None, polling: Tasks | None = None,
                 read_timeout_seconds: float | None = None, progress_callback: ProgressCallback | None = None) -> None:
        self._session = session
        self.tool_name = tool_name
        self._polling = polling or Tasks()
        self._timeout = read_timeout_seconds
        self._progress = progress_callback
        self._reports = 0
        self._result: Any = result
        self._error: dict[str, Any] | None = None
        self.task_id: str | None = None
        """None when the server answered at once (the handle is then `completed`)."""
        self.status = "completed"
        self.status_message: str | None = None
        self.input_requests: dict[str, Any] = {}
        """Outstanding server requests by key (`{"method": ..., "params": ...}`), while `input_required`."""
        self.poll_interval_ms: int | None = None
        self.ttl_ms: int | None = None
        self._since = anyio.current_time()
        """When this client first saw the task: its `ttlMs` (its whole life) bounds the polling from here."""
        source = task or created
        if source is not None:
            self.task_id = source.task_id
            self._absorb(source)

    def __repr__(self) -> str:
        return f"TaskHandle(task_id={self.task_id!r}, tool={self.tool_name!r}, status={self.status!r})"

    @property
    def done(self) -> bool:
        """Whether the task reached a terminal status (its state never changes again)."""
        return self.status in TERMINAL_STATUSES

    def _absorb(self, task: CreateTaskResult | DetailedTask) -> bool:
        """Take the server's view of the task; True when its status or status message changed."""
        changed = (task.status, task.status_message) != (self.status, self.status_message)
        self.status = task.status
        self.status_message = task.status_message
        if task.poll_interval_ms is not None:
            self.poll_interval_ms = task.poll_interval_ms
        if task.ttl_ms is not None:
            self.ttl_ms = task.ttl_ms
        if isinstance(task, DetailedTask):
            self.input_requests = dict(task.input_requests or {}) if task.status == "input_required" else {}
            if task.status == "completed":
                self._result = task.result if task.result is not None else {"content": []}
            elif task.status == "failed":
                self._error = task.error or {"code": -32603, "message": "Internal error"}
        return changed

    async def _request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        task_id = self.task_id
        assert task_id is not None
        try:
            return await self._session.send_request_raw(method, {"taskId": task_id, **params}, timeout=self._timeout)
        except MCPError as exc:
            if exc.code == INVALID_PARAMS and "not found" in exc.message.lower():
                raise TaskNotFoundError(task_id, exc) from None
            raise

    async def refresh(self) -> DetailedTask:
        """`tasks/get`: the task's current state (also kept on the handle)."""
        if self.task_id is None:
            raise RuntimeError("The server answered this call at once: there is no task to ask about")
        task = DetailedTask.model_validate(await self._request("tasks/get", {}))
        if self._absorb(task) and self._progress is not None:
            self._reports += 1
            await self._progress(float(self._reports), None, self.status_message or self.status)
        return task

    async def respond(self, responses: Mapping[str, Any]) -> None:
        """`tasks/update`: answer input requests by key (result models or their wire dicts)."""
        wire = {key: value.to_wire() if hasattr(value, "to_wire") else value for key, value in responses.items()}
        await self._request("tasks/update", {"inputResponses": wire})

    async def answer_input(self) -> None:
        """Answer the outstanding input requests with the client's callbacks (elicitation,
        sampling, roots), as the same requests sent over the back-channel would be."""
        if not self.input_requests:
            return
        answers: dict[str, Any] = {}

        async def answer(key: str, request: Any) -> None:
            answers[key] = await self._session.answer_input_request(request, key)

        async with anyio.create_task_group() as group:
            for key, request in self.input_requests.items():
                group.start_soon(answer, key, request)
        await self.respond(answers)

    async def cancel(self) -> None:
        """`tasks/cancel`: ask the server to stop the task (cooperative: it may still end otherwise)."""
        if self.task_id is not None and not self.done:
            await self._request("tasks/cancel", {})

    async def result(self, *, answer_input: bool = True, cancel_on_exit: bool = False) -> Any:
        """Poll until the task ends and return its `CallToolResult` (checked against the tool's
        output schema unless it is an error). `answer_input` answers input requests with the
        client's callbacks (else the wait goes on until someone calls `respond()`). A `failed`
        task raises its error as `MCPError`; a `cancelled` one `TaskCancelledError`.
        `cancel_on_exit`: a wait abandoned (timeout, cancellation) cancels the task first."""
        try:
            while not self.done:
                if self.task_id is not None and self.status == "input_required" and answer_input \
                        and self.input_requests:
                    await self.answer_input()
                    await self.refresh()
                    continue
                self._check_lifetime()
                await anyio.sleep(self._polling.poll_interval(self.poll_interval_ms))
                await self.refresh()
        except BaseException:
            if cancel_on_exit and not self.done:
                with anyio.CancelScope(shield=True), anyio.move_on_after(5):
                    await self.cancel()
            raise
        return await self._final()

    def _check_lifetime(self) -> None:
        """A task is kept `ttlMs` from its creation: one still running well past that is a server
        that will never finish it, and polling it would never end."""
        if self.ttl_ms is None:
            return
        limit = self.ttl_ms / 1000 + max(_TTL_GRACE_SECONDS, 2 * self._polling.poll_interval(self.poll_interval_ms))
        if anyio.current_time() - self._since > limit:
            raise MCPError(REQUEST_TIMEOUT, f"Task {self.task_id!r} is still {self.status!r} past its ttlMs "
                                            f"({self.ttl_ms} ms): the server will not finish it")

    async def _final(self) -> Any:
        if self.status == "cancelled":
            raise TaskCancelledError(self.task_id or "", self.status_message)
        if self.status == "failed":
            error = self._error or {}
            raise MCPError(int(error.get("code", -32603)), str(error.get("message", "Internal error")),
                           error.get("data"))
        if isinstance(self._result, CallToolResult):
            return self._result
        result = CallToolResult.model_validate(self._result)
        if not result.is_error and self.tool_name:
            await self._session.validate_tool_result(self.tool_name, result)
        self._result = result
        return result


def handle_for(session: ClientSession, tool_name: str, result: Any, read_timeout_seconds: float | None,
               progress_callback: ProgressCallback | None) -> TaskHandle:
    """What `call_tool(..., as_task=True)` returns: a handle on the task the server created, or an
    already `completed` one holding the result it answered with at once."""
    if isinstance(result, CreateTaskResult):
        return TaskHandle(session, tool_name, created=result, polling=tasks_of(session),
                          read_timeout_seconds=read_timeout_seconds, progress_callback=progress_callback)
    return TaskHandle(session, tool_name, result=result, polling=tasks_of(session),
                      read_timeout_seconds=read_timeout_seconds, progress_callback=progress_callback)


async def get_task(session: ClientSession, task_id: str, tool_name: str = "",
                   read_timeout_seconds: float | None = None) -> TaskHandle:
    """A handle on an existing task, after one `tasks/get` (`TaskNotFoundError` for an unknown id).
    `tool_name` names the tool whose output schema checks the result ("" for none known)."""
    handle = TaskHandle(session, tool_name, created=CreateTaskResult(task_id=task_id, status="working"),
                        polling=tasks_of(session), read_timeout_seconds=read_timeout_seconds)
    await handle.refresh()
    return handle
