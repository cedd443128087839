"""`ClientSession(dispatcher=...)`: a session driven by an official-style dispatcher.

A dispatcher (`mcp.shared.dispatcher.Dispatcher`) is a duplex request/notification channel that
owns correlation and its receive loop: `run(on_request, on_notify)`, `send_raw_request(method,
params, opts)` and `notify(method, params, opts)`. `DispatcherPeer` gives it the face of the
connection engine the session normally drives, so the session's typed layer, callbacks and
notification handling work unchanged on top of it. The session hands it its handlers as it hands
them to a `Peer`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import anyio
from anyio.abc import TaskGroup, TaskStatus

from mcp._engine.jsonrpc_dispatcher import JSONRPCDispatcher
from mcp.shared.dispatcher import CallOptions, DispatchContext, Dispatcher
from mcp.shared.exceptions import MCPError, error_fields_for

Answer = Callable[[str, dict[str, Any], Any], Awaitable[dict[str, Any]]]
"""The session's answer to a server request: `(method, params, request_id) -> result`."""


class DispatcherPeer:
    """The session's connection engine, over a dispatcher."""

    def __init__(self, dispatcher: Dispatcher[Any], *, answer: Answer,
                 on_notification: Callable[[dict[str, Any], Any], Awaitable[None]],
                 on_transport_error: Callable[[Exception], Awaitable[None]],
                 entered: Callable[[], bool]) -> None:
        self.dispatcher = dispatcher
        self._answer = answer
        self._on_notification = on_notification
        self._entered = entered
        """Whether the session has scheduled `run()` (it is inside its `async with`)."""
        self._tg: TaskGroup | None = None
        self._started = anyio.Event()
        if isinstance(dispatcher, JSONRPCDispatcher) and dispatcher.on_stream_exception is None:
            # A transport fault on the read stream reaches `message_handler`, as on a plain session.
            dispatcher.on_stream_exception = on_transport_error
        self.protocol_version: str | None = None
        """The revision in force (kept for parity with the engine; the dispatcher frames nothing)."""

    @property
    def task_group(self) -> TaskGroup | None:
        return self._tg

    async def run(self) -> None:
        """Run the dispatcher's receive loop, answering with the session, until it ends."""
        async with anyio.create_task_group() as tg:
            self._tg = tg
            try:
                await tg.start(self._run_dispatcher)
                self._started.set()
            finally:
                self._tg = None

    async def _run_dispatcher(self, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        await self.dispatcher.run(self._on_request, self._on_notify, task_status=task_status)

    async def _wait_started(self) -> None:
        """The session schedules `run()` as it is entered; its first send may come before the
        dispatcher is serving (a dispatcher refuses sends before its `run()`)."""
        if not self._started.is_set() and self._entered():
            await self._started.wait()

    async def _on_request(self, dctx: DispatchContext[Any], method: str,
                          params: Mapping[str, Any] | None) -> dict[str, Any]:
        try:
            return await self._answer(method, dict(params or {}), dctx.request_id)
        except MCPError:
            raise
        except Exception as exc:
            raise MCPError(*error_fields_for(exc, "client")) from exc

    async def _on_notify(self, dctx: DispatchContext[Any], method: str, params: Mapping[str, Any] | None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = dict(params)
        await self._on_notification(message, None)
    async def send_request(self, method: str, params: dict[str, Any] | None = None, *, timeout: float | None = None,
                           metadata: Any = None, request_id: Any = None) -> dict[str, Any]:
        opts: CallOptions = {}
        if timeout is not None:
            opts["timeout"] = timeout
        if request_id is not None:
            opts["request_id"] = request_id
        token = getattr(metadata, "resumption_token", None)
        if token is not None:
            opts["resumption_token"] = token
        on_token = getattr(metadata, "on_resumption_token_update", None)
        if on_token is not None:
            opts["on_resumption_token"] = on_token
        await self._wait_started()
        return await self.dispatcher.send_raw_request(method, params, opts)

    async def send_notification(self, method: str, params: dict[str, Any] | None = None, metadata: Any = None) -> None:
        await self._wait_started()
        await self.dispatcher.notify(method, params, None)
