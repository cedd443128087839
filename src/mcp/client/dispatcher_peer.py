"""`ClientSession(dispatcher=...)`: a session driven by an official-style dispatcher.

A dispatcher is a duplex request/notification channel that owns correlation and its receive loop:
`run(on_request, on_notify)`, `send_raw_request(method, params, opts)` and
`notify(method, params, opts)`. `DispatcherPeer` gives it the face of the connection engine the
session normally drives, so the session's typed layer, callbacks and notification handling work
unchanged on top of it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

import anyio
from anyio.abc import TaskGroup, TaskStatus

from mcp.shared.exceptions import MCPError, error_fields_for

if TYPE_CHECKING:
    from mcp.client.session import ClientSession


class Dispatcher(Protocol):
    """What `ClientSession(dispatcher=...)` drives (the official SDK's `Dispatcher` shape)."""

    async def run(self, on_request: Any, on_notify: Any, on_notify_intercept: Any = None, *,
                  task_status: Any = anyio.TASK_STATUS_IGNORED) -> None: ...

    async def send_raw_request(self, method: str, params: Mapping[str, Any] | None,
                               opts: Any = None) -> dict[str, Any]: ...

    async def notify(self, method: str, params: Mapping[str, Any] | None, opts: Any = None) -> None: ...


class DispatcherPeer:
    """The session's connection engine, over a dispatcher."""

    def __init__(self, dispatcher: Dispatcher, session: ClientSession) -> None:
        self.dispatcher = dispatcher
        self._session = session
        self._tg: TaskGroup | None = None
        self._started = anyio.Event()
        if getattr(dispatcher, "on_stream_exception", False) is None:
            # A transport fault on the read stream reaches `message_handler`, as on a plain session.
            dispatcher.on_stream_exception = session._on_transport_error  # type: ignore[attr-defined]  # pyright: ignore[reportAttributeAccessIssue, reportPrivateUsage]
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
        if not self._started.is_set() and self._session._task_group is not None:  # pyright: ignore[reportPrivateUsage]
            await self._started.wait()

    async def _on_request(self, dctx: Any, method: str, params: Mapping[str, Any] | None) -> dict[str, Any]:
        try:
            return await self._session._answer(method, dict(params or {}), getattr(dctx, "request_id", None))
        except MCPError:
            raise
        except Exception as exc:
            raise MCPError(*error_fields_for(exc, "client")) from exc

    async def _on_notify(self, dctx: Any, method: str, params: Mapping[str, Any] | None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = dict(params)
        await self._session._on_notification(message, None)

    async def send_request(self, method: str, params: dict[str, Any] | None = None, *, timeout: float | None = None,
                           metadata: Any = None, request_id: Any = None) -> dict[str, Any]:
        opts: dict[str, Any] = {}
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
