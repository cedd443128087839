"""The `Tasks` extension (SEP-2663, `io.modelcontextprotocol/tasks`): `tools/call` answered with a
task handle, then `tasks/get`, `tasks/update` and `tasks/cancel`.

How a call becomes a task
-------------------------
A tool registered with `@tasks.tool()` is called through the server's normal `tools/call` path
(arguments, `Resolve(...)` dependencies, output conversion), but that path runs in a background
task owned by the extension. The tool function is wrapped: the moment it is entered, i.e. once the
arguments validated and every dependency resolved, the task is stored and the request is answered
with a `CreateTaskResult`; the body then runs on, detached from the request. When the call ends
before the body is entered (invalid arguments, or a dependency that still needs input), that
outcome is the request's answer and no task exists. So a tool that asks questions through
`Resolve(...)` first runs the multi-round-trip exchange synchronously (round 1 an
`InputRequiredResult` without a `taskId`) and becomes a task on the round that answers them.

Where the background work runs
------------------------------
The extension owns one task group per event loop. It is opened lazily, on the first task, inside
a task the extension spawns on the running loop (an asyncio task, or a trio system task), so it
outlives any single request on every transport: in memory (`Client(mcp)`), stdio, and Streamable
HTTP, whose stateless requests each end with their response. It lives until the loop ends or
`await tasks.aclose()`. To tie task lifetimes to your own scope instead (for example the server
lifespan), enter `async with tasks.running():`; tasks started inside it are cancelled when it exits.
A task runs at most its `ttlMs` (then it fails and is forgotten).

Input, cancellation, notifications
----------------------------------
A running task asks through its `TaskContext` (`elicit()`, `input()`): the request is listed in
`inputRequests` and the task parks in `input_required` until `tasks/update` answers it (several
questions may be outstanding; each key is answered on its own). `tasks/cancel` marks the task
`cancelled` at once and cancels its work (a sync tool on a worker thread sees `ctx.cancelled`).
A task sends no progress or log notifications (SEP-2663); `notifications/tasks` is not sent.
The running work, its outstanding questions and its cancel scope live in this process; the
`TaskStore` only holds what `tasks/get` reports. A store shared by several processes
(`MCPServer(state=RedisState...)` installs `mcp.redis.RedisTaskStore`) may also relay signals: a
`tasks/cancel` or `tasks/update` answered by a process that is not running the task is sent on to
the one that is.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from contextvars import ContextVar
from typing import Any, Literal, cast

import anyio

from mcp._engine.calls import request_local
from mcp._engine.peer import current_cancellation, current_metadata
from mcp._engine.workers import run_sync
from mcp.server.extension import Extension, MethodBinding, ToolBinding, require_client_extension
from mcp.server.tasks._context import EXTENSION_ID, TaskContext
from mcp.server.tasks._host import TaskHost, loop_key
from mcp.server.tasks._models import CreateTaskResult, GetTaskResult
from mcp.server.tasks._run import TaskRun
from mcp.server.tasks._store import (
    DEFAULT_POLL_INTERVAL_MS,
    DEFAULT_TTL_MS,
    InMemoryTaskStore,
    TaskState,
    TaskStore,
)
from mcp.shared.exceptions import MCPError
from mcp.types.jsonrpc import INTERNAL_ERROR, INVALID_PARAMS, MISSING_REQUIRED_CLIENT_CAPABILITY
from mcp.types.version import LOG_LEVEL_META_KEY, MODERN_VERSIONS

logger = logging.getLogger("mcp.server.tasks")

TaskSupport = Literal["optional", "required"]

_PENDING: ContextVar[TaskRun | None] = request_local(ContextVar("mcp_pending_task", default=None), None)
"""Set in the background task that runs a `tools/call` which may become a task."""

_NOT_FOUND = "Failed to retrieve task: Task not found"


class _TasksMethod(MethodBinding):
    """SEP-2663 reserves the `tasks/` prefix for this extension. The 2025-11-25 revision defined
    core methods of the same names; those stay unserved (the binding is gated to 2026-07-28)."""

    def __post_init__(self) -> None:
        if not self.method.startswith("tasks/"):
            super().__post_init__()
        elif not self.protocol_versions:
            raise ValueError(f"{self.method} must be gated to the protocol versions that define the extension")


def _principal() -> str | None:
    from mcp.server.request_state import authenticated_principal

    return authenticated_principal(None)


def _quiet(meta: dict[str, Any] | None) -> dict[str, Any] | None:
    """A task sends no progress or log notifications (SEP-2663): drop what would ask for them."""
    if not meta:
        return meta
    return {k: v for k, v in meta.items() if k not in ("progressToken", "progress_token", LOG_LEVEL_META_KEY)}


class Tasks(Extension):
    """The tasks extension; pass it in `MCPServer(extensions=[...])` and register task tools with
    `@tasks.tool()`. Tools declare `task_support`: "optional" (a task when the client declared
    the extension on the request, a plain call otherwise) or "required" (-32021 without it).

    `store` keeps task state (default: a bounded `InMemoryTaskStore`); `ttl_ms` is how long a task
    is kept from its creation (and the most it may run); `poll_interval_ms` is the suggested
    `tasks/get` interval."""

    identifier = EXTENSION_ID

    def __init__(self, *, store: TaskStore | None = None, ttl_ms: int = DEFAULT_TTL_MS,
                 poll_interval_ms: int | None = DEFAULT_POLL_INTERVAL_MS) -> None:
        _check_ms("ttl_ms", ttl_ms)
        if poll_interval_ms is not None:
            _check_ms("poll_interval_ms", poll_interval_ms)
        self.store: TaskStore = store if store is not None else InMemoryTaskStore()
        self._own_store = store is None
        self._unsignal: Callable[[], None] | None = None
        self._relayed: set[Any] = set()
        self.ttl_ms = ttl_ms
        self.poll_interval_ms = poll_interval_ms
        self._tools: list[ToolBinding] = []
        self._support: dict[str, TaskSupport] = {}
        self._ttl: dict[str, int] = {}
        self._running: dict[str, TaskRun] = {}
        self._host = TaskHost()
        self._installed = False

    # -- registration ---------------------------------------------------------------------------

    def tool(self, task_support: TaskSupport = "optional", *, ttl_ms: int | None = None, name: str | None = None,
             title: str | None = None, description: str | None = None, annotations: Any = None,
             icons: list[Any] | None = None, meta: dict[str, Any] | None = None,
             structured_output: bool | None = None, input_schema: dict[str, Any] | None = None,
             ) -> Callable[[Any], Any]:
        """Register a task tool: `@tasks.tool()` or `@tasks.tool(task_support="required")`. Takes
        `MCPServer.tool()`'s options, and `ttl_ms` for this tool's tasks."""
        if callable(task_support):
            raise TypeError("The @tasks.tool decorator was used incorrectly. Did you forget to call it? "
                            "Use @tasks.tool() instead of @tasks.tool")
        _check_support(task_support)
        if ttl_ms is not None:
            _check_ms("ttl_ms", ttl_ms)

        def decorator(fn: Any) -> Any:
            self.add_tool(fn, task_support=task_support, ttl_ms=ttl_ms, name=name, title=title,
                          description=description, annotations=annotations, icons=icons, meta=meta,
                          structured_output=structured_output, input_schema=input_schema)
            return fn

        return decorator

    def add_tool(self, fn: Callable[..., Any], *, task_support: TaskSupport = "optional", ttl_ms: int | None = None,
                 name: str | None = None, meta: dict[str, Any] | None = None, **tool_kwargs: Any) -> None:
        from mcp.server.mcpserver.hints import resolve_hints
        from mcp.server.mcpserver.signature import inspect_function

        _check_support(task_support)
        if ttl_ms is not None:
            _check_ms("ttl_ms", ttl_ms)
        if self._installed:
            raise RuntimeError("Register task tools before the server is built: MCPServer(extensions=[tasks]) "
                               "takes the tools registered at that moment")
        tool_name = name or getattr(fn, "__name__", None) or type(fn).__name__
        if tool_name == "<lambda>":
            raise ValueError("You must provide a name for lambda functions")
        if tool_name in self._support:
            raise ValueError(f"Task tool {tool_name!r} is registered twice")
        signature = inspect_function(fn, tool_name, free_form=tool_kwargs.get("input_schema") is not None)
        wrapped = self._wrap(fn, tool_name, signature.context_param, resolve_hints(fn))
        self._support[tool_name] = task_support
        if ttl_ms is not None:
            self._ttl[tool_name] = ttl_ms
        self._tools.append(ToolBinding(wrapped, meta=meta, kwargs={"name": name, **tool_kwargs}))

    def _wrap(self, fn: Callable[..., Any], tool_name: str, context_param: str | None,
              hints: dict[str, Any]) -> Callable[..., Awaitable[Any]]:
        from mcp.server.mcpserver.hints import is_async_callable

        is_async = is_async_callable(fn)

        @functools.wraps(fn)
        async def task_tool(**kwargs: Any) -> Any:
            run = _PENDING.get()
            if run is not None and run.tool_name == tool_name and not run.begun:
                _PENDING.set(None)  # tools this body calls in turn are not this task
                await run.begin()
            else:
                run = None
            if context_param is not None:
                kwargs[context_param] = TaskContext(kwargs.get(context_param), run)
            if is_async:
                return await fn(**kwargs)
            return await run_sync(functools.partial(fn, **kwargs))

        task_tool.__annotations__ = dict(hints)
        return task_tool

    # -- shared state (several server processes) -------------------------------------------------

    def use_shared_state(self, state: Any) -> None:
        """`MCPServer(state=...)`: keep tasks in the shared store, unless one was given."""
        if self._own_store:
            self.store = state.task_store()
            self._own_store = False

    def _track(self, run: TaskRun) -> None:
        """A call became a task: it is running here (signals for it reach this process)."""
        self._running[run.task_id] = run
        self._listen_for_signals()

    def _listen_for_signals(self) -> None:
        on_signal = getattr(self.store, "on_signal", None)
        if on_signal is not None and self._unsignal is None:
            self._unsignal = on_signal(self._on_signal)

    def _on_signal(self, task_id: str, op: str, data: dict[str, Any]) -> None:
        """Another process answered `tasks/cancel` or `tasks/update` for a task running here."""
        run = self._running.get(task_id)
        if run is None:
            return
        if op == "cancel":
            run.cancel()
        elif isinstance(data.get("responses"), dict):
            import asyncio

            job = asyncio.get_running_loop().create_task(run.deliver(data["responses"]))
            self._relayed.add(job)
            job.add_done_callback(self._relayed.discard)

    async def _relay(self, task_id: str, op: str, data: dict[str, Any] | None = None) -> None:
        signal = getattr(self.store, "signal", None)
        if signal is not None:
            await signal(task_id, op, data)

    # -- Extension ------------------------------------------------------------------------------

    def settings(self) -> dict[str, Any]:
        return {}

    def tools(self) -> Sequence[ToolBinding]:
        self._installed = True
        return list(self._tools)

    def methods(self) -> Sequence[MethodBinding]:
        modern = frozenset(MODERN_VERSIONS)
        return [
            _TasksMethod("tasks/get", None, self._get, protocol_versions=modern),
            _TasksMethod("tasks/update", None, self._update, protocol_versions=modern),
            _TasksMethod("tasks/cancel", None, self._cancel, protocol_versions=modern),
        ]

    async def intercept_tool_call(self, params: Any, ctx: Any, call_next: Callable[[Any], Awaitable[Any]]) -> Any:
        support = self._support.get(params.name)
        if support is None:
            return await call_next(ctx)
        if not self._augmentable(ctx):
            if support == "required":
                raise MCPError(MISSING_REQUIRED_CLIENT_CAPABILITY,
                               f"Tool {params.name!r} runs only as a task: declare the {EXTENSION_ID} extension",
                               {"requiredCapabilities": {"extensions": {EXTENSION_ID: {}}}})
            return await call_next(ctx)
        return await self._start(params.name, ctx, call_next)

    @staticmethod
    def _augmentable(ctx: Any) -> bool:
        """A task handle only goes to a 2026-07-28 request that declared the extension itself."""
        if ctx.protocol_version not in MODERN_VERSIONS:
            return False
        raw: dict[str, Any] = ctx.client_capabilities_raw or {}
        extensions = raw.get("extensions")
        return isinstance(extensions, dict) and EXTENSION_ID in extensions

    async def _start(self, tool_name: str, ctx: Any, call_next: Callable[[Any], Awaitable[Any]]) -> Any:
        run = TaskRun(self, tool_name, self._ttl.get(tool_name, self.ttl_ms),
                      dict(ctx.client_capabilities_raw or {}), _principal(), self._track)
        group = await self._host.task_group()
        background = dataclasses.replace(ctx, meta=_quiet(ctx.meta), extra=dict(ctx.extra))
        group.start_soon(self._execute, run, background, call_next, name=f"mcp-task {tool_name}")
        try:
            await run.decided.wait()
        except BaseException:
            run.abandon()
            raise
        if run.created is not None:
            return CreateTaskResult.model_validate({"resultType": "task", **run.created.task_wire()})
        if run.early is None:
            raise MCPError(INTERNAL_ERROR, "The server is shutting down")
        kind, value = run.early
        if kind == "result":
            return value
        raise value

    async def _execute(self, run: TaskRun, ctx: Any, call_next: Callable[[Any], Awaitable[Any]]) -> None:
        """The background half of a task tool call (runs in the extension's task group)."""
        _PENDING.set(run)
        current_cancellation.set(run.flag)
        current_metadata.set(None)  # the creating request's response channel is gone
        outcome: tuple[str, Any] | None = None
        expired = False
        try:
            with anyio.CancelScope() as scope:
                run.scope = scope
                if run.abandoned:
                    scope.cancel()
                try:
                    outcome = ("result", await call_next(ctx))
                except MCPError as exc:
                    outcome = ("error", exc)
                except Exception as exc:
                    outcome = ("crash", exc)
            expired = scope.cancelled_caught and not run.cancel_requested and not run.abandoned
        finally:
            if run.begun:
                self._running.pop(run.task_id, None)
                with anyio.CancelScope(shield=True):
                    try:
                        await run.finish(outcome, expired)
                    except Exception:
                        logger.exception("could not record the end of task %s", run.task_id)
            else:
                run.early = outcome
                run.decided.set()

    # -- tasks/* ------------------------------------------------------------------------------

    async def _find(self, ctx: Any, params: Any) -> TaskState:
        require_client_extension(ctx, EXTENSION_ID)
        task_id = cast("dict[str, Any]", params).get("taskId") if isinstance(params, dict) else None
        if not isinstance(task_id, str):
            raise MCPError(INVALID_PARAMS, "Invalid params: taskId must be a string")
        state = await self.store.get(task_id)
        if state is None or state.owner != _principal():
            raise MCPError(INVALID_PARAMS, _NOT_FOUND, {"taskId": task_id})
        return state

    async def _get(self, ctx: Any, params: Any) -> GetTaskResult:
        state = await self._find(ctx, params)
        return GetTaskResult.model_validate(state.detailed_wire())

    async def _update(self, ctx: Any, params: Any) -> Any:
        from mcp.types import EmptyResult

        state = await self._find(ctx, params)
        responses = params.get("inputResponses")
        if not isinstance(responses, dict):
            raise MCPError(INVALID_PARAMS, "Invalid params: inputResponses must be an object")
        run = self._running.get(state.task_id)
        if run is not None and not state.terminal:
            await run.deliver(responses)  # pyright: ignore[reportUnknownArgumentType]
        elif not state.terminal:
            await self._relay(state.task_id, "deliver", {"responses": responses})  # running in another process
        return EmptyResult()

    async def _cancel(self, ctx: Any, params: Any) -> Any:
        from mcp.types import EmptyResult

        state = await self._find(ctx, params)
        if not state.terminal:
            await self.store.update(state.task_id, status="cancelled", status_message="Cancelled by the client",
                                    input_requests={})
            run = self._running.get(state.task_id)
            if run is not None:
                run.cancel()
            else:
                await self._relay(state.task_id, "cancel")  # running in another process
        return EmptyResult()

    # -- lifetime -----------------------------------------------------------------------------

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Run this block's tasks in a task group of the caller's; cancelled when the block exits."""
        scoped = self._host.scoped
        async with anyio.create_task_group() as group:
            entry = (loop_key(), group)
            scoped.append(entry)
            try:
                yield
            finally:
                scoped.remove(entry)
                group.cancel_scope.cancel()

    async def aclose(self) -> None:
        """Cancel every task running in the lazily started task group (on this event loop)."""
        await self._host.aclose()


def _check_support(task_support: Any) -> None:
    if task_support not in ("optional", "required"):
        raise ValueError(f"task_support must be 'optional' or 'required', got {task_support!r}")


def _check_ms(name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError(f"{name} must be a positive integer number of milliseconds, got {value!r}")
