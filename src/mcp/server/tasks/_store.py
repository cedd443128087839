"""Task state and where it is kept: the `TaskStore` protocol and a bounded in-memory store.

A store holds what `tasks/get` reports (status, timestamps, pending input requests, the inlined
result or error). It does not hold the running work: that lives in the process that started it.
"""

from __future__ import annotations

import dataclasses
import heapq
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Literal, Protocol

TaskStatus = Literal["working", "input_required", "completed", "failed", "cancelled"]
TERMINAL_STATUSES: frozenset[str] = frozenset({"completed", "failed", "cancelled"})

DEFAULT_TTL_MS = 3_600_000
DEFAULT_POLL_INTERVAL_MS = 500

_MUTABLE = frozenset({"status", "status_message", "input_requests", "result", "error", "ttl_ms", "poll_interval_ms"})


def _iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass
class TaskState:
    """One task as `tasks/get` reports it. Times are epoch seconds; `ttl_ms` counts from creation."""

    task_id: str
    status: TaskStatus = "working"
    created_at: float = field(default_factory=time.time)
    last_updated_at: float = 0.0
    ttl_ms: int = DEFAULT_TTL_MS
    poll_interval_ms: int | None = DEFAULT_POLL_INTERVAL_MS
    status_message: str | None = None
    input_requests: dict[str, Any] = field(default_factory=dict[str, Any])
    """Outstanding server-to-client requests (`{"method": ..., "params": ...}`) by key."""
    result: dict[str, Any] | None = None
    """The original request's result (wire form) once `completed`."""
    error: dict[str, Any] | None = None
    """The JSON-RPC error object (`code`, `message`, `data`) once `failed`."""
    owner: str | None = None
    """The authenticated principal that created the task (None without authentication)."""

    def __post_init__(self) -> None:
        if not self.last_updated_at:
            self.last_updated_at = self.created_at

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL_STATUSES

    @property
    def expires_at(self) -> float:
        return self.created_at + self.ttl_ms / 1000

    def copy(self) -> TaskState:
        return dataclasses.replace(self, input_requests=dict(self.input_requests))

    def task_wire(self) -> dict[str, Any]:
        """The flat `Task` fields (the body of a `CreateTaskResult`)."""
        wire: dict[str, Any] = {"taskId": self.task_id, "status": self.status}
        if self.status_message is not None:
            wire["statusMessage"] = self.status_message
        wire["createdAt"] = _iso(self.created_at)
        wire["lastUpdatedAt"] = _iso(self.last_updated_at)
        wire["ttlMs"] = int(self.ttl_ms)
        if self.poll_interval_ms is not None:
            wire["pollIntervalMs"] = int(self.poll_interval_ms)
        return wire

    def detailed_wire(self) -> dict[str, Any]:
        """The `DetailedTask` of `tasks/get`: the status-specific payload inlined."""
        wire = self.task_wire()
        if self.status == "input_required":
            wire["inputRequests"] = dict(self.input_requests)
        elif self.status == "completed":
            wire["result"] = self.result if self.result is not None else {"content": []}
        elif self.status == "failed":
            wire["error"] = self.error if self.error is not None else {"code": -32603, "message": "Internal error"}
        return wire


class TaskStoreFull(RuntimeError):
    """The store cannot take another task right now."""


class TaskStore(Protocol):
    """Where task state lives. Implement it over a database or cache to share task state between
    server instances (route `tasks/*` by the `Mcp-Name` header so that input and cancellation
    reach the instance running the work). Every method returns copies, never live objects."""

    async def create(self, state: TaskState) -> None:
        """Store a new task; a `tasks/get` for it must resolve once this returns. Raise
        `TaskStoreFull` to refuse it."""
        ...

    async def get(self, task_id: str) -> TaskState | None:
        """The task, or None when it is unknown or has expired."""
        ...

    async def update(self, task_id: str, **changes: Any) -> TaskState | None:
        """Atomically apply `changes` (field names of `TaskState`) to a task that is not yet
        terminal and bump its `last_updated_at`; a terminal task is left as it is (its status never
        changes again). Returns the task as stored afterwards, or None when it is unknown."""
        ...


class InMemoryTaskStore:
    """A `TaskStore` in this process's memory: bounded to `max_tasks`, each task dropped once its
    TTL has elapsed. When full, the oldest finished task makes room; with none finished, new tasks
    are refused (`TaskStoreFull`)."""

    def __init__(self, max_tasks: int = 10_000, *, clock: Callable[[], float] = time.time) -> None:
        if max_tasks < 1:
            raise ValueError("max_tasks must be at least 1")
        self.max_tasks = max_tasks
        self._clock = clock
        self._tasks: dict[str, TaskState] = {}
        self._expiry: list[tuple[float, str]] = []

    def __len__(self) -> int:
        self._evict_expired()
        return len(self._tasks)

    def _evict_expired(self) -> None:
        now = self._clock()
        heap = self._expiry
        while heap and heap[0][0] <= now:
            expires_at, task_id = heapq.heappop(heap)
            task = self._tasks.get(task_id)
            if task is not None and task.expires_at == expires_at:
                del self._tasks[task_id]

    def _make_room(self) -> None:
        if len(self._tasks) < self.max_tasks:
            return
        for task_id, task in self._tasks.items():  # insertion order: oldest first
            if task.terminal:
                del self._tasks[task_id]
                return
        raise TaskStoreFull(f"{len(self._tasks)} tasks are still running")

    async def create(self, state: TaskState) -> None:
        self._evict_expired()
        if state.task_id in self._tasks:
            raise ValueError(f"Task {state.task_id!r} already exists")
        self._make_room()
        stored = state.copy()
        self._tasks[stored.task_id] = stored
        heapq.heappush(self._expiry, (stored.expires_at, stored.task_id))

    async def get(self, task_id: str) -> TaskState | None:
        self._evict_expired()
        task = self._tasks.get(task_id)
        return None if task is None else task.copy()

    async def update(self, task_id: str, **changes: Any) -> TaskState | None:
        unknown = set(changes) - _MUTABLE
        if unknown:
            raise TypeError(f"TaskState fields that cannot be updated: {sorted(unknown)}")
        self._evict_expired()
        task = self._tasks.get(task_id)
        if task is None:
            return None
        if not task.terminal:
            expires_at = task.expires_at
            for name, value in changes.items():
                setattr(task, name, dict(value) if name == "input_requests" else value)
            task.last_updated_at = max(self._clock(), task.created_at)
            if task.expires_at != expires_at:
                heapq.heappush(self._expiry, (task.expires_at, task_id))
        return task.copy()
