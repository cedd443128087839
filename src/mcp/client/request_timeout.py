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
set explicitly keeps its official meaning (progress does not extend it).
"""

from __future__ import annotations

from typing import Final

DEFAULT_REQUEST_TIMEOUT_SECONDS: Final = 300.0
"""Seconds a request with no timeout of its own waits without an answer or a progress report."""


def resolve(per_call: float | None, session: float | None, default: float | None) -> tuple[float | None, bool]:
    """The timeout a request waits with, and whether it is the default (which progress restarts)."""
    chosen = per_call or session
    if chosen is not None:
        return chosen, False
    return default, default is not None
