"""One `tools/call` that may become a task, then the running task: stored when the tool body is
entered, parked in `input_required` while it waits for `tasks/update`, finished (its result or
error stored) or cancelled."""

from __future__ import annotations

import itertools
import logging
import secrets
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

import anyio

from mcp._engine.peer import CancellationFlag
from mcp.server.tasks._store import TaskState, TaskStoreFull
from mcp.shared.exceptions import MCPError
from mcp.types.jsonrpc import INTERNAL_ERROR, MISSING_REQUIRED_CLIENT_CAPABILITY
from mcp.types.version import SERVER_INFO_META_KEY

if TYPE_CHECKING:
    from mcp.server.tasks._extension import Tasks

logger = logging.getLogger("mcp.server.tasks")

_CAPABILITY_OF = {"elicitation/create": "elicitation", "sampling/createMessage": "sampling", "roots/list": "roots"}


class TaskRun:
    """One `tools/call` that may become a task, then the running task (internal)."""

    def __init__(self, tasks: Tasks, tool_name: str, ttl_ms: int, capabilities: dict[str, Any],
                 owner: str | None, on_begin: Callable[[TaskRun], None]) -> None:
        self.tasks = tasks
        self.on_begin = on_begin
        """Called once the task is stored: the extension tracks it as running from then on."""
        self.tool_name = tool_name
        self.ttl_ms = ttl_ms
        self.capabilities = capabilities
        self.owner = owner
        self.task_id = secrets.token_urlsafe(24)
        self.flag = CancellationFlag()
        self.decided = anyio.Event()
        self.begun = False
        self.created: TaskState | None = None
        self.early: tuple[str, Any] | None = None
        self.scope: anyio.CancelScope | None = None
        self.abandoned = False
        self.cancel_requested = False
        self._pending: dict[str, tuple[dict[str, Any], anyio.Event]] = {}
        self._answers: dict[str, Any] = {}
        self._keys: set[str] = set()
        self._counter = itertools.count(1)
        self._lock = anyio.Lock()

    # -- lifecycle (called from the background task) ------------------------------------------

    async def begin(self) -> None:
        """The tool body is about to run: store the task, then release the request's answer."""
        state = TaskState(self.task_id, "working", created_at=time.time(), ttl_ms=self.ttl_ms,
                          poll_interval_ms=self.tasks.poll_interval_ms, owner=self.owner)
        try:
            await self.tasks.store.create(state)
        except TaskStoreFull:
            raise MCPError(INTERNAL_ERROR, "Too many tasks are running; try again later") from None
        self.begun = True
        self.created = state
        self.on_begin(self)
        if self.scope is not None:
            self.scope.deadline = anyio.current_time() + self.ttl_ms / 1000
        self.decided.set()

    async def finish(self, outcome: tuple[str, Any] | None, expired: bool) -> None:
        changes: dict[str, Any]
        if outcome is None:
            if self.cancel_requested:
                changes = {"status": "cancelled"}
            elif expired:
                changes = {"status": "failed", "status_message": "The task exceeded its ttlMs",
                           "error": {"code": INTERNAL_ERROR, "message": "The task exceeded its ttlMs"}}
            else:
                changes = {"status": "cancelled", "status_message": "The server stopped before the task finished"}
        else:
            kind, value = outcome
            if kind == "result":
                wire = _result_wire(value)
                if wire.get("resultType") == "input_required":
                    logger.error("task tool %r returned an InputRequiredResult; tasks ask with TaskContext.elicit()",
                                 self.tool_name)
                    changes = _failure(MCPError(INTERNAL_ERROR, "The task asked for input the wrong way"))
                else:
                    changes = {"status": "completed", "result": wire}
            elif kind == "error":
                changes = _failure(value)
            else:
                logger.error("task %s (%s) failed", self.task_id, self.tool_name, exc_info=value)
                changes = _failure(MCPError(INTERNAL_ERROR, "Internal error"))
        self._pending.clear()
        await self.tasks.store.update(self.task_id, input_requests={}, **changes)

    def cancel(self) -> None:
        self.cancel_requested = True
        self.flag.cancelled = True
        if self.scope is not None:
            self.scope.cancel()

    def abandon(self) -> None:
        """The request went away before the call became a task: stop it."""
        self.abandoned = True
        if self.scope is not None and not self.begun:
            self.scope.cancel()

    # -- input (parking in input_required) --------------------------------------------------

    async def ask(self, method: str, params: dict[str, Any], *, key: str | None = None) -> Any:
        capability = _CAPABILITY_OF.get(method)
        if capability is not None and capability not in self.capabilities:
            raise MCPError(MISSING_REQUIRED_CLIENT_CAPABILITY, "Missing required client capability",
                           {"requiredCapabilities": {capability: {}}})
        if key is None:
            prefix = method.split("/", 1)[0]
            key = f"{prefix}-{next(self._counter)}"
            while key in self._keys:
                key = f"{prefix}-{next(self._counter)}"
        elif key in self._keys:
            raise ValueError(f"Input key {key!r} was already used by this task (keys are unique per task)")
        self._keys.add(key)
        answered = anyio.Event()
        async with self._lock:
            self._pending[key] = ({"method": method, "params": params}, answered)
            await self._write()
        try:
            await answered.wait()
        finally:
            if self._pending.pop(key, None) is not None:
                with anyio.CancelScope(shield=True):
                    async with self._lock:
                        await self._write()
        return self._answers.pop(key)

    async def deliver(self, responses: dict[str, Any]) -> None:
        """Answers from `tasks/update`: outstanding keys only, and only result objects; anything
        else is ignored (the request stays outstanding)."""
        woken: list[anyio.Event] = []
        async with self._lock:
            for key, response in responses.items():
                entry = self._pending.pop(key, None) if isinstance(response, dict) else None
                if entry is not None:
                    self._answers[key] = response
                    woken.append(entry[1])
            if woken:
                await self._write()
        for event in woken:
            event.set()

    async def set_status_message(self, message: str | None) -> None:
        await self.tasks.store.update(self.task_id, status_message=message)

    async def _write(self) -> None:
        pending = {key: request for key, (request, _) in self._pending.items()}
        await self.tasks.store.update(self.task_id, status="input_required" if pending else "working",
                                      input_requests=pending)


def _failure(error: MCPError) -> dict[str, Any]:
    wire: dict[str, Any] = {"code": error.code, "message": error.message}
    if error.data is not None:
        wire["data"] = error.data
    return {"status": "failed", "status_message": error.message, "error": wire}


def _result_wire(result: Any) -> dict[str, Any]:
    if isinstance(result, dict):  # already the wire form (what the middleware chain hands on)
        wire = dict(cast("dict[str, Any]", result))
        meta = wire.get("_meta")
        if isinstance(meta, dict) and SERVER_INFO_META_KEY in meta:  # the stamp is per response, not stored
            rest = {k: v for k, v in cast("dict[str, Any]", meta).items() if k != SERVER_INFO_META_KEY}
            if rest:
                wire["_meta"] = rest
            else:
                del wire["_meta"]
        return wire
    wire = getattr(result, "wire", None)
    if isinstance(wire, dict):
        return dict(wire)  # pyright: ignore[reportUnknownArgumentType]
    return result.model_dump(mode="json", by_alias=True, exclude_none=True)
