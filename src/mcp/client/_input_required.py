"""The client's multi-round-trip driver (2026-07-28): answer an `InputRequiredResult` and retry.

When `tools/call`, `prompts/get` or `resources/read` answers `input_required`, the embedded input
requests are answered (concurrently) with the client's callbacks and the request is sent again
with the answers and the echoed, opaque `requestState`, until a final result or `max_rounds`.
A round carrying only `requestState` backs off (50 ms doubling to 250 ms).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import anyio

from mcp.shared.exceptions import InputRequiredRoundsExceededError, MCPError

DEFAULT_INPUT_REQUIRED_MAX_ROUNDS = 10
"""How many `InputRequiredResult` rounds a client answers before giving up."""

_BACKOFF_FIRST, _BACKOFF_CAP = 0.05, 0.25


async def run_input_required_driver(
    first: Any,
    *,
    dispatch: Callable[[str, Any], Awaitable[Any]],
    retry: Callable[[dict[str, Any] | None, str | None], Awaitable[Any]],
    max_rounds: int = DEFAULT_INPUT_REQUIRED_MAX_ROUNDS,
) -> Any:
    """Resolve `first` (an `InputRequiredResult`, or already final) to the final result.

    `dispatch(key, request)` answers one input request (an `ErrorData` answer aborts with
    `MCPError`); `retry(responses, request_state)` sends the request again.
    `InputRequiredRoundsExceededError` after `max_rounds` rounds.
    """
    from mcp.types import InputRequiredResult

    rounds = 0
    delay = _BACKOFF_FIRST
    current = first
    while isinstance(current, InputRequiredResult):
        rounds += 1
        if rounds > max_rounds:
            raise InputRequiredRoundsExceededError(max_rounds)
        requests: dict[str, Any] = current.input_requests or {}
        responses: dict[str, Any] | None = None
        if requests:
            delay = _BACKOFF_FIRST
            responses = await _answer_all(requests, dispatch)
        else:
            await anyio.sleep(delay)
            delay = min(delay * 2, _BACKOFF_CAP)
        current = await retry(responses, current.request_state)
    return current


async def _answer_all(requests: dict[str, Any], dispatch: Callable[[str, Any], Awaitable[Any]]) -> dict[str, Any]:
    """Every input request answered, concurrently; `MCPError` for the first refusal (in request order)."""
    from mcp.types import ErrorData

    answers: dict[str, Any] = {}

    async def answer(key: str, request: Any) -> None:
        answers[key] = await dispatch(key, request)

    async with anyio.create_task_group() as tg:
        for key, request in requests.items():
            tg.start_soon(answer, key, request)
    for key in requests:
        refusal = answers[key]
        if isinstance(refusal, ErrorData):
            raise MCPError(refusal.code, refusal.message, refusal.data)
    return {key: answers[key] for key in requests}
