"""The requests and notifications a server session receives: each request's era and lifecycle
checked, run through the server's middleware and handler table, and answered in the shape of the
revision in force; sync handlers with a planner served whole on a worker thread (`plan_offload`).

`SessionIncoming` is that half of `ServerSession`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from mcp._engine.peer import RaisedException
from mcp._protocol import messages as m
from mcp.server._handler_errors import handler_failure, raised_for
from mcp.server._result_wire import own_answer, result_to_wire
from mcp.server._session_handshake import (
    SessionHandshake,
    current_envelope,
    current_log_levels,
    current_progress_token,
)
from mcp.server.connection import allowed_log_levels
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError, error_fields_for
from mcp.types.version import MODERN_VERSIONS, PROTOCOL_VERSION_META_KEY

if TYPE_CHECKING:
    from mcp.server.session import ServerSession

logger = logging.getLogger("mcp.server")

LIST_CHANGED_FOR: dict[str, str] = {
    "tools/list": "notifications/tools/list_changed",
    "prompts/list": "notifications/prompts/list_changed",
    "resources/list": "notifications/resources/list_changed",
    "resources/templates/list": "notifications/resources/list_changed",
}
"""A list request -> the list_changed notification whose news it fetches (see `relay_list_changed`)."""


def request_meta(wire: dict[str, Any]) -> dict[str, Any]:
    """A request's `_meta` as `ServerRequestContext.meta` holds it (the official `RequestParamsMeta`
    shape): the progress token under its Python name `progress_token`, every other key as sent.
    Only a `_meta` with a progress token is copied; the rest is the wire dict itself."""
    meta = dict(wire)
    meta["progress_token"] = meta.pop("progressToken")
    return meta


class SessionIncoming(SessionHandshake):
    """The receiving half of `ServerSession` (see the module docstring)."""

    async def _on_request(self, message: dict[str, Any], metadata: Any) -> None:
        request_id = message["id"]
        method: str = message["method"]
        if self._told:  # the client fetches the list: what it was told before is now known to it
            self._told.pop(LIST_CHANGED_FOR.get(method, ""), None)
        params: dict[str, Any] | None = message.get("params")
        version = self._protocol_version
        meta: Any = params.get("_meta") if params is not None else None
        progress: Any = None
        levels: Any = None
        wanted: Any = meta
        if type(wanted) is dict and "progressToken" in wanted:  # any other `_meta` is refused by `_era`
            progress = current_progress_token.set(cast("dict[str, Any]", wanted)["progressToken"])
            meta = request_meta(cast("dict[str, Any]", wanted))
        envelope: Any = None
        try:
            version, caps = self._era(method, params, metadata)
            if caps is not None:  # a 2026-07-28 request: logs only at the level its `_meta` asks for
                levels = current_log_levels.set(allowed_log_levels(version, cast("dict[str, Any] | None", wanted)))
            if caps is not None:
                envelope = current_envelope.set(cast("dict[str, Any]", wanted))
            ctx: ServerRequestContext[Any] = ServerRequestContext(
                cast("ServerSession", self), self.lifespan_context, version, method, params, request_id,
                getattr(metadata, "request", None) if metadata is not None else None, caps,
                meta, transport=metadata,
            )
            server = self.server
            if server.middleware:
                # The chain ends in the finished wire form; what the middleware returns goes out as
                # returned (never patched: an answer of its own carries no stamp it did not add).
                wire = own_answer(await server.dispatch_through_middleware(ctx))
                version = ctx.protocol_version or self._protocol_version or ""
            else:
                result = await server.dispatch(ctx)
                version = ctx.protocol_version or self._protocol_version or ""
                wire = result_to_wire(server, method, result, version)
            response = m.result_response(request_id, wire)
        except MCPError as exc:
            response = m.error_response(request_id, *error_fields_for(exc))
        except Exception as exc:
            modern = version in MODERN_VERSIONS
            code, text, data = handler_failure(exc, method, modern)
            response = m.error_response(request_id, code, text, data)
            if self.raise_exceptions and metadata is None:
                raised = raised_for(exc, modern)
                if raised is not None:
                    metadata = RaisedException(raised)
        if progress is not None:
            current_progress_token.reset(progress)
        if levels is not None:
            current_log_levels.reset(levels)
        if envelope is not None:
            current_envelope.reset(envelope)
        await self.peer.send(response, metadata, answers=method, version=version)

    def plan_offload(self, message: dict[str, Any]) -> Callable[[], dict[str, Any]] | None:
        """The whole request as one synchronous job producing its response, when the handler has a
        planner that accepts it and nothing needs the event loop: an initialized handshake-era
        connection, no middleware, no 2026-07-28 `_meta`. The peer may run it on a worker thread,
        which then writes the response itself (no hop back to the loop). None: serve as usual."""
        version = self._protocol_version
        server = self.server
        if version is None or server.middleware:
            return None
        method: str = message["method"]
        entry = server.request_entry(method)
        if entry is None or entry.planner is None:
            return None
        params = message.get("params")
        if type(params) is dict and "_meta" in params:
            meta: Any = cast("dict[str, Any]", params)["_meta"]
            if type(meta) is not dict or PROTOCOL_VERSION_META_KEY in meta:
                return None
        job = entry.planner(params)
        if job is None:
            return None
        request_id = message["id"]

        def respond() -> dict[str, Any]:
            try:
                return m.result_response(request_id, result_to_wire(server, method, job(), version))
            except MCPError as exc:
                return m.error_response(request_id, *error_fields_for(exc))
            except Exception as exc:
                return m.error_response(request_id, *handler_failure(exc, method, False))

        return respond

    def wire_result(self, ctx: ServerRequestContext[Any], result: Any) -> dict[str, Any]:
        """A handler's result for `ctx`'s request in the wire form this session sends (its
        revision's stamp or pruning): the door the innermost call under middleware finishes a
        result through, so middleware sees what the client receives."""
        return result_to_wire(self.server, ctx.method, result, ctx.protocol_version or self._protocol_version or "")

    async def _on_notification(self, message: dict[str, Any], metadata: Any) -> None:
        method: str = message["method"]
        if method == "notifications/initialized":
            self.initialized = True
            self._connection.initialized.set()
        params = message.get("params")
        if self._progress_callbacks and method == "notifications/progress":
            await self._deliver_progress(params)
        server = self.server
        if server.middleware or server.has_notification_handler(method):
            version = self._protocol_version or self.default_version or ""
            ctx: ServerRequestContext[Any] = ServerRequestContext(
                cast("ServerSession", self), self.lifespan_context, version, method, params, None,
                getattr(metadata, "request", None),
            )
            tg = self.peer.task_group
            if tg is None:
                await self._handle_notification(ctx)
            else:
                # Spawned, as the official dispatcher does: a handler may send a request of its own
                # (`on_roots_list_changed` asks `roots/list`), whose answer this loop must read.
                tg.start_soon(self._handle_notification, ctx)

    async def _handle_notification(self, ctx: ServerRequestContext[Any]) -> None:
        server = self.server
        try:
            await (server.dispatch_through_middleware(ctx) if server.middleware else server.dispatch_notification(ctx))
        except Exception:
            logger.exception("notification handler for %s failed", ctx.method)
            if self.raise_exceptions:
                raise

    async def _deliver_progress(self, params: Any) -> None:
        """A client's progress on one of this session's own requests, to its callback."""
        if type(params) is not dict:
            return
        progress = cast("dict[str, Any]", params)
        callback = self._progress_callbacks.get(progress.get("progressToken"))
        if callback is not None:
            await callback(progress.get("progress", 0), progress.get("total"), progress.get("message"))
