"""Tool timeouts: `@mcp.tool(timeout=...)` and `MCPServer(tool_timeout=...)`.

A tool registered with a timeout is compiled into a `TimedTool`, the same call plan with its run
bounded by a deadline; a tool without one stays a plain `RegisteredTool`, so an untimed call runs
exactly the code it ran before timeouts existed (no test, no scope, no clock).

When the deadline passes, an async tool is cancelled at its next `await`. A sync tool runs on a
worker thread, which nothing can interrupt: it is told instead (`anyio.from_thread.check_cancelled()`
raises there, `ctx.cancelled` turns true) and whatever it returns later is dropped. The caller gets
`ToolTimeoutError` (`MCPServer.call_tool`) or, on tools/call, an `is_error` result with its text;
the server serves every other request meanwhile.
"""

from __future__ import annotations

import logging
import math
from typing import Any, cast

import anyio

from mcp._engine.calls import CancellationFlag, current_cancellation
from mcp.server.mcpserver.exceptions import ToolTimeoutError
from mcp.server.mcpserver.tools.registered import RegisteredTool
from mcp.shared.exceptions import ToolError

logger = logging.getLogger("mcp.server.tools")


def checked_timeout(name: str, seconds: Any) -> float | None:
    """`seconds` as a timeout: None (no timeout) or a positive number (`math.inf`: none either,
    stated explicitly, which exempts a tool from the server's default). Anything else is refused
    with a `ValueError` naming `name`: a timeout of zero or less would fail every call."""
    if seconds is None:
        return None
    if isinstance(seconds, bool) or not isinstance(seconds, int | float) or math.isnan(seconds) or seconds <= 0:
        raise ValueError(f"{name} must be a positive number of seconds (or None), got {seconds!r}")
    return float(seconds)


def bounded(tool: RegisteredTool, seconds: float) -> RegisteredTool:
    """`tool` with its run bounded by `seconds` (checked already): a `TimedTool` copy, so that a
    compiled tool shared with an official `Tool` model is left as it was; `tool` itself when
    `seconds` is infinite."""
    if math.isinf(seconds):
        return tool
    timed = object.__new__(TimedTool)
    for slot in RegisteredTool.__slots__:
        setattr(timed, slot, getattr(tool, slot))
    timed.timeout = seconds
    return timed


def _seconds(seconds: float) -> str:
    return f"{seconds:g} second" if seconds == 1 else f"{seconds:g} seconds"


class TimedTool(RegisteredTool):
    """A `RegisteredTool` whose run (arguments, resolvers, the function) must end within
    `timeout` seconds (see the module docstring)."""

    __slots__ = ()

    @property
    def plain_sync(self) -> bool:
        """Never: the deadline is kept on the event loop, so the call cannot be handed whole to a
        worker thread (whose job nothing could stop in time)."""
        return False

    async def run(self, arguments: dict[str, Any] | None, context: Any) -> Any:
        """`RegisteredTool.run` within the deadline; `ToolTimeoutError` past it (a value the tool
        returns after being told to stop is dropped). A cancellation from outside (the client's
        `notifications/cancelled`) propagates as usual."""
        flag = current_cancellation.get()
        token = None
        if flag is None:  # called outside a request (`MCPServer.call_tool`): `ctx.cancelled` reads this one
            flag = CancellationFlag()
            token = current_cancellation.set(flag)
        seconds = cast(float, self.timeout)
        value: Any = None
        try:
            with anyio.move_on_after(seconds) as scope:
                try:
                    value = await super().run(arguments, context)
                except anyio.get_cancelled_exc_class():
                    flag.cancelled = True  # a sync tool polling `ctx.cancelled` stops early
                    raise
        finally:
            if token is not None:
                current_cancellation.reset(token)
        if scope.cancel_called:
            logger.warning("Tool %s timed out after %s", self.name, _seconds(seconds))
            raise ToolTimeoutError(f"Error executing tool {self.name}: timed out after {_seconds(seconds)}")
        return value

    def tool_error(self, exc: Exception, *, converting: bool = False) -> ToolError:
        """A timeout keeps its class and text (which names the tool already); anything else is
        reported as for any tool."""
        if isinstance(exc, ToolTimeoutError):
            return ToolTimeoutError(str(exc))
        return super().tool_error(exc, converting=converting)
