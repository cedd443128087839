"""How long a client request waits for its answer when nobody said.

A request's timeout is, first to last: the one passed to the call (`read_timeout_seconds=` of
`call_tool`, `request_read_timeout_seconds=` of `send_request`), the session's
`read_timeout_seconds` (the official knob: None there means "not set"), and then the session's
`default_request_timeout_seconds`, `DEFAULT_REQUEST_TIMEOUT_SECONDS` unless changed; None there
turns the default off (as the official SDK: a silent server is waited for forever).

The default is not a deadline on the work but on the server's silence: a request that asked for
progress gets its whole default again at each progress report, so a long tool that reports progress
is never cut off, and its clock stops while a callback of ours answers the server (a person filling
in an elicitation form, a model sampling), when the server is waiting on us. It is 300 s, the read timeout the official client's HTTP transport already puts on a response
stream (`MCP_DEFAULT_SSE_READ_TIMEOUT`): over HTTP the official SDK gives up on a silent answer
then too, so the default changes nothing there, and a stdio server now gets the same patience.
Like any request timeout it measures the server, not a person: the clock also stops while an
OAuth login waits on someone (`mcp.shared._request_clock`), however long the login takes. A timeout the caller
set explicitly keeps its official meaning (progress does not extend it), unless the call says
`reset_timeout_on_progress=True`: then it bounds the server's silence as the default does.

`max_total_timeout` (TypeScript's `maxTotalTimeout`) is the other half of "time out unless progress
arrives, and never past N": a deadline on the whole call that neither progress nor our callbacks
move. Whichever gives up first, the request is abandoned with `notifications/cancelled` and the
caller gets `MCPError(REQUEST_TIMEOUT)`.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Final

import anyio

from mcp._engine.calls import abandon_reason
from mcp.shared.exceptions import MCPError
from mcp.types.jsonrpc import REQUEST_TIMEOUT

DEFAULT_REQUEST_TIMEOUT_SECONDS: Final = 300.0
"""Seconds a request with no timeout of its own waits without an answer or a progress report."""


def resolve(per_call: float | None, session: float | None, default: float | None) -> tuple[float | None, bool]:
    """The timeout a request waits with, and whether it is the default (which progress restarts)."""
    chosen = per_call or session
    if chosen is not None:
        return chosen, False
    return default, default is not None


def check_timeouts(timeout: float | None, max_total_timeout: float | None, reset_timeout_on_progress: bool) -> None:
    """Refuse a `max_total_timeout` that is not a positive number of seconds, and so a per-call
    timeout asked to restart on progress (a zero or negative one would end every wait at once)."""
    _check_positive("max_total_timeout", max_total_timeout)
    if reset_timeout_on_progress:
        _check_positive("read_timeout_seconds", timeout)


def _check_positive(name: str, seconds: float | None) -> None:
    if seconds is None:
        return
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or math.isnan(seconds) or seconds <= 0:
        raise ValueError(f"{name} must be a positive number of seconds, got {seconds!r}")


@contextmanager
def total_deadline(method: str, max_total_timeout: float | None) -> Iterator[None]:
    """Bound the block by `max_total_timeout` seconds (None: no bound). The request waiting inside
    is cancelled (the engine tells the server with `notifications/cancelled`) and the block raises
    `MCPError(REQUEST_TIMEOUT)`."""
    if max_total_timeout is None:
        yield
        return
    reason = abandon_reason.set(f"max_total_timeout of {max_total_timeout}s reached")
    try:
        with anyio.move_on_after(max_total_timeout) as scope:
            yield
    finally:
        abandon_reason.reset(reason)
    if scope.cancelled_caught:
        raise MCPError(REQUEST_TIMEOUT, f"Request '{method}' timed out: max_total_timeout of {max_total_timeout}s "
                                        "reached")
