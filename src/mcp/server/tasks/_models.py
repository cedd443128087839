"""The 2026-07-28 tasks extension's result shapes (SEP-2663). They differ from the 2025-11-25 core
models in `mcp.types` (flat, `ttlMs`/`pollIntervalMs`, result or error inlined on `tasks/get`)."""

from __future__ import annotations

from typing import Any

from mcp.types import Result, ResultType


class CreateTaskResult(Result):
    """A `tools/call` answered with a task handle: `resultType: "task"` and the `Task` fields, flat."""

    result_type: ResultType | None = None
    """"task" on the handle; unset elsewhere, where the session sends "complete"."""

    task_id: str
    status: str
    status_message: str | None = None
    created_at: str
    last_updated_at: str
    ttl_ms: int | None = None
    poll_interval_ms: int | None = None


class GetTaskResult(CreateTaskResult):
    """`tasks/get`: a `DetailedTask` (`inputRequests`, `result` or `error` by status)."""

    input_requests: dict[str, Any] | None = None
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
