"""`RedisTaskStore`: the tasks extension's state, visible from every worker.

One JSON value per task under `PREFIX:task:ID`, expiring with the task's TTL; updates are
compare-and-set (a short Lua script), so a terminal status never changes again whichever worker
writes. `tasks/cancel` and `tasks/update` answered by a worker that is not running the task are
relayed to the one that is on the `tasks` channel. Values that are not task states of ours are
refused (logged) and the task treated as unknown.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from typing import Any, cast

from mcp.redis._client import RedisConnection, dumps, loads_object, refuse
from mcp.server.tasks._store import _MUTABLE, TaskState

_FORMAT = "mcpkit.task/1"
_STATUSES = frozenset({"working", "input_required", "completed", "failed", "cancelled"})
_CAS = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
  return 1
end
return 0
"""
_MAX_ATTEMPTS = 20


class RedisTaskStore:
    """A `mcp.server.tasks.TaskStore` on Redis (see the module docstring)."""

    def __init__(self, connection: RedisConnection, *, clock: Callable[[], float] = time.time) -> None:
        self.connection = connection
        self._clock = clock
        self._signals = connection.key("tasks")

    @classmethod
    def from_url(cls, url: str, *, prefix: str = "mcp") -> RedisTaskStore:
        return cls(RedisConnection(url, prefix=prefix))

    def _key(self, task_id: str) -> str:
        return self.connection.key("task", task_id)

    def _px(self, state: TaskState) -> int:
        return max(1, int((state.expires_at - self._clock()) * 1000))

    async def create(self, state: TaskState) -> None:
        value = _encode(state)
        created = await self.connection.run(
            "create a task", lambda r: r.set(self._key(state.task_id), value, px=self._px(state), nx=True))
        if not created:
            raise ValueError(f"Task {state.task_id!r} already exists")

    async def get(self, task_id: str) -> TaskState | None:
        key = self._key(task_id)
        raw = await self.connection.run("read a task", lambda r: r.get(key))
        state = _decode(raw, task_id, key)
        return None if state is None or state.expires_at <= self._clock() else state

    async def update(self, task_id: str, **changes: Any) -> TaskState | None:
        unknown = set(changes) - _MUTABLE
        if unknown:
            raise TypeError(f"TaskState fields that cannot be updated: {sorted(unknown)}")
        key = self._key(task_id)
        for _ in range(_MAX_ATTEMPTS):
            raw = await self.connection.run("read a task", lambda r: r.get(key))
            state = _decode(raw, task_id, key)
            if state is None:
                return None
            if state.terminal:
                return state
            for name, value in changes.items():
                setattr(state, name, dict(value) if name == "input_requests" else value)
            state.last_updated_at = max(self._clock(), state.created_at)
            args = (raw, _encode(state), self._px(state))
            swapped = await self.connection.run("update a task", lambda r, args=args: r.eval(_CAS, 1, key, *args))
            if swapped:
                return state
        raise RuntimeError(f"task {task_id!r} is being updated too often to update it")

    async def signal(self, task_id: str, op: str, data: dict[str, Any] | None = None) -> None:
        """Tell the worker running `task_id` to `cancel` it or `deliver` input responses."""
        message = dumps({"task": task_id, "op": op, "data": data or {}})
        await self.connection.run("signal a task", lambda r: r.publish(self._signals, message))

    def on_signal(self, callback: Callable[[str, str, dict[str, Any]], None]) -> Callable[[], None]:
        """Call `callback(task_id, op, data)` for every signal (the worker running it acts)."""

        def incoming(raw: bytes) -> None:
            message = loads_object(raw, "task signal", self._signals)
            if message is None:
                return
            task_id, op, data = message.get("task"), message.get("op"), message.get("data")
            if not isinstance(task_id, str) or op not in ("cancel", "deliver") or not isinstance(data, dict):
                refuse("task signal", self._signals, "not a cancel or deliver signal")
                return
            callback(task_id, op, cast("dict[str, Any]", data))

        return self.connection.hub().subscribe("tasks", incoming)


def _encode(state: TaskState) -> str:
    return dumps({"format": _FORMAT, **dataclasses.asdict(state)})


_NUMBER = (int, float)


def _decode(raw: Any, task_id: str, key: str) -> TaskState | None:
    value = loads_object(raw, "task state", key)
    if value is None:
        return None
    what = "task state"
    if value.pop("format", None) != _FORMAT:
        refuse(what, key, "not a task state of this SDK (format marker)")
        return None
    if value.get("task_id") != task_id:
        refuse(what, key, "it names another task")
        return None
    checks: list[tuple[str, Callable[[Any], bool]]] = [
        ("status", lambda v: v in _STATUSES),
        ("created_at", lambda v: isinstance(v, _NUMBER) and not isinstance(v, bool)),
        ("last_updated_at", lambda v: isinstance(v, _NUMBER) and not isinstance(v, bool)),
        ("ttl_ms", lambda v: isinstance(v, int) and not isinstance(v, bool) and v > 0),
        ("poll_interval_ms", lambda v: v is None or (isinstance(v, int) and not isinstance(v, bool))),
        ("status_message", lambda v: v is None or isinstance(v, str)),
        ("input_requests", lambda v: isinstance(v, dict)),
        ("result", lambda v: v is None or isinstance(v, dict)),
        ("error", lambda v: v is None or isinstance(v, dict)),
        ("owner", lambda v: v is None or isinstance(v, str)),
    ]
    for name, valid in checks:
        if name not in value or not valid(value[name]):
            refuse(what, key, f"field {name!r} is missing or invalid")
            return None
    if set(value) != {"task_id", *(name for name, _ in checks)}:
        refuse(what, key, "unexpected fields")
        return None
    return TaskState(**value)
