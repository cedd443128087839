"""What a server session sends to its client: notifications, back-channel requests (sampling,
elicitation, roots, ping), progress and log messages, and the list_changed coalescing between
`ctx.notify_*_changed()` and `send_*_list_changed()`.

`SessionOutgoing` is that half of `ServerSession`; `OutboundPeer` is the `peer` of an official-form
session, sending on the request's outbound channel.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

from mcp._engine.peer import current_cancellation
from mcp.server._session_handshake import SessionHandshake, current_log_levels, current_progress_token
from mcp.shared.exceptions import NoBackChannelError, warn_deprecated
from mcp.shared.message import ServerMessageMetadata

if TYPE_CHECKING:
    from mcp.shared.dispatcher import CallOptions, ProgressFnT

_UNRELATED = ServerMessageMetadata()
"""The metadata of a notification related to no request: it names none, and no response channel."""


class SessionOutgoing(SessionHandshake):
    """The sending half of `ServerSession` (see the module docstring).

    Every helper picks one of two channels and sends on it: `_request_outbound` (the request
    being served: what a `related_request_id` names) or `_standalone` (the connection's own:
    messages tied to no request). An official-form session holds the request's dispatch context
    and `connection.outbound`; a framework session holds its engine's `RequestChannel` and
    `StandaloneChannel`, which route through its `Peer`."""

    def _channel(self, related_request_id: Any) -> Any:
        return self._request_outbound if related_request_id is not None else self._standalone

    async def notify(self, method: str, params: dict[str, Any] | None = None, *,
                     related_request_id: Any = None) -> None:
        """Send a raw notification (`method`, wire `params`) to the client."""
        await self._channel(related_request_id).notify(method, params)

    async def send_raw_request(self, method: str, params: dict[str, Any] | None = None, *,
                               timeout: float | None = None, progress_callback: ProgressFnT | None = None,
                               related_request_id: Any = None) -> dict[str, Any]:
        """Send a raw request to the client and return its raw result (an `MCPError` for an
        error answer, `NoBackChannelError` when no request can reach the client)."""
        options: CallOptions = {}
        if timeout is not None:
            options["timeout"] = timeout
        if progress_callback is not None:
            options["on_progress"] = progress_callback
        return await self._channel(related_request_id).send_raw_request(method, params, options or None)

    async def send_notification(self, notification: Any, related_request_id: Any = None, *,
                                params: dict[str, Any] | None = None) -> None:
        """Send a notification: a `ServerNotification` model, as in the official SDK, or a method
        name with its wire params (`params=`, or second by position: a request id is never a dict)."""
        if isinstance(notification, str):
            if params is None and isinstance(related_request_id, Mapping):  # (method, params) by position
                params, related_request_id = cast("dict[str, Any]", related_request_id), None
            await self.notify(notification, params, related_request_id=related_request_id)
            return
        wire = notification.model_dump(by_alias=True, mode="json", exclude_none=True)
        await self.notify(wire["method"], wire.get("params"), related_request_id=related_request_id)

    async def send_request(self, request: Any, result_type: Any = None,
                           request_read_timeout_seconds: float | None = None, metadata: Any = None,
                           progress_callback: ProgressFnT | None = None, *, timeout: float | None = None) -> Any:
        """Send a request and return its result: a `ServerRequest` model validated as
        `result_type` (the official form), or a method name and its wire params (the second
        argument) returning the raw result. `metadata` may carry `related_request_id`."""
        related = getattr(metadata, "related_request_id", None)
        if timeout is None:
            timeout = request_read_timeout_seconds
        if isinstance(request, str):
            return await self.send_raw_request(request, cast("dict[str, Any] | None", result_type), timeout=timeout,
                                               progress_callback=progress_callback, related_request_id=related)
        wire = request.model_dump(by_alias=True, mode="json", exclude_none=True)
        raw = await self.send_raw_request(wire["method"], wire.get("params"), timeout=timeout,
                                          progress_callback=progress_callback, related_request_id=related)
        return raw if result_type is None else result_type.model_validate(raw)

    async def send_tool_list_changed(self) -> None:
        await self._send_list_changed("notifications/tools/list_changed")

    async def send_resource_list_changed(self) -> None:
        await self._send_list_changed("notifications/resources/list_changed")

    async def send_prompt_list_changed(self) -> None:
        await self._send_list_changed("notifications/prompts/list_changed")

    async def _send_list_changed(self, method: str) -> None:
        """The official `send_*_list_changed`: always sent, except as the twin of what
        `relay_list_changed` already sent in this same turn (see there)."""
        turn = current_cancellation.get()
        told = self._told.get(method)
        if turn is not None:
            self._told[method] = (turn, False)
            if told is not None and told[0] is turn and told[1]:
                return  # the relay of this turn said it already; a later call is a later change
        await self.notify(method)

    async def relay_list_changed(self, method: str) -> None:
        """`ctx.notify_*_changed()`'s copy of a list_changed for the handshake-era caller (ours:
        officially it reaches `subscriptions/listen` streams only).

        The official docs tell such servers to call both `ctx.notify_*_changed()` and
        `ctx.session.send_*_list_changed()`; the two coalesce so the caller hears of the change
        once. The rule: within one request turn (the request being served, or a task it
        started), a list_changed this session already sent and the client has not acted on yet
        (no request for that list has arrived since) makes the other form redundant: the relay is
        skipped after any such notice, and one `send_*` call is skipped after the relay (a
        further `send_*` is a further change, sent as officially). A real later change is never
        lost: a notice is skipped only while the client still owes a re-list that happens after
        it and so sees it; a notice from another turn never suppresses one."""
        turn = current_cancellation.get()
        told = self._told.get(method)
        if turn is not None:
            if told is not None and told[0] is turn:
                return
            self._told[method] = (turn, True)
        await self.notify(method)

    async def send_resource_updated(self, uri: str) -> None:
        await self.notify("notifications/resources/updated", {"uri": str(uri)})

    async def send_ping(self) -> Any:
        from mcp.types import EmptyResult

        return EmptyResult.model_validate(await self.send_raw_request("ping"))

    async def report_progress(self, progress: float, total: float | None = None, message: str | None = None) -> None:
        """Report progress on the request being served: `notifications/progress` against the
        caller's token, a no-op when the caller asked for none."""
        await self._request_outbound.progress(progress, total, message)

    async def send_progress_notification(self, progress_token: str | int, progress: float, total: float | None = None,
                                         message: str | None = None, related_request_id: str | None = None) -> None:
        """`notifications/progress` for the request that sent `progress_token`."""
        params: dict[str, Any] = {"progressToken": progress_token, "progress": progress}
        if total is not None:
            params["total"] = total
        if message is not None:
            params["message"] = message
        await self._notify_about_request("notifications/progress", params, related_request_id)

    async def send_log_message(self, level: str, data: Any, logger: str | None = None,
                               related_request_id: Any = None) -> None:
        """`notifications/message` to the client (deprecated). On a 2026-07-28 request only at or
        above the level its `_meta` opted into (nothing without one); handshake-era: every level,
        filtering being the server's own `logging/setLevel` handler's business, as officially."""
        warn_deprecated("logging")
        allowed = self._allowed_log_levels
        if allowed is None:  # the engine's session: the request being served says (handshake-era: all)
            allowed = current_log_levels.get()
        if allowed is not None and level not in allowed:
            return
        if type(data) not in (str, int, float, bool, type(None)):
            # a dataclass or model (FastMCP sends its `LogData`): its JSON form, as the official
            # params model serializes it, on every transport (in-memory ones included)
            from pydantic_core import to_jsonable_python

            data = to_jsonable_python(data)
        params: dict[str, Any] = {"level": level, "data": data}
        if logger is not None:
            params["logger"] = logger
        await self._notify_about_request("notifications/message", params, related_request_id)

    async def _notify_about_request(self, method: str, params: dict[str, Any], related_request_id: Any) -> None:
        """A notification about a request (its progress, its logs): on that request's channel;
        when none is named, on `_about_request` (an official-form session: the connection's; the
        engine's: the request being served, which it knows)."""
        channel = self._request_outbound if related_request_id is not None else self._about_request
        await channel.notify(method, params)

    async def create_message(self, messages: list[Any], *, max_tokens: int, system_prompt: str | None = None,
                             include_context: str | None = None, temperature: float | None = None,
                             stop_sequences: list[str] | None = None, metadata: dict[str, Any] | None = None,
                             model_preferences: Any = None, tools: list[Any] | None = None,
                             tool_choice: Any = None, related_request_id: Any = None) -> Any:
        """`sampling/createMessage` to the client (handshake-era back-channel only; deprecated).

        Checked before anything is sent, as officially: tools mode needs the client's
        `sampling.tools` (`MCPError` -32602), and tool results must answer the tool uses just
        before them (`ValueError`); both checks live in `mcp.server.validation`."""
        warn_deprecated("sampling")
        from mcp.server.validation import (
            validate_sampling_tools,
            validate_tool_use_result_messages,
            wants_sampling_tools,
        )
        from mcp.types import CreateMessageRequestParams, CreateMessageResult, CreateMessageResultWithTools

        validate_sampling_tools(self.client_capabilities, tools, tool_choice)
        params = CreateMessageRequestParams(
            messages=messages, max_tokens=max_tokens, system_prompt=system_prompt,
            include_context=cast("Any", include_context),
            temperature=temperature, stop_sequences=stop_sequences, metadata=metadata,
            model_preferences=model_preferences, tools=tools, tool_choice=tool_choice,
        )
        validate_tool_use_result_messages(params.messages)  # the models (messages may be given as dicts)
        raw = await self.send_raw_request("sampling/createMessage", params.to_wire(),
                                          related_request_id=related_request_id)
        # in tools mode the answer may be a list or hold tool-use blocks
        tools_mode = wants_sampling_tools(tools, tool_choice)
        return (CreateMessageResultWithTools if tools_mode else CreateMessageResult).model_validate(raw)

    async def elicit_form(self, message: str, requested_schema: dict[str, Any], related_request_id: Any = None) -> Any:
        from mcp.types import ElicitResult

        raw = await self.send_raw_request("elicitation/create", {"mode": "form", "message": message,
                                                                  "requestedSchema": requested_schema},
                                          related_request_id=related_request_id)
        return ElicitResult.model_validate(raw)

    elicit = elicit_form

    async def elicit_url(self, message: str, url: str, elicitation_id: str, related_request_id: Any = None) -> Any:
        from mcp.types import ElicitResult

        raw = await self.send_raw_request("elicitation/create", {"mode": "url", "message": message, "url": url,
                                                                  "elicitationId": elicitation_id},
                                          related_request_id=related_request_id)
        return ElicitResult.model_validate(raw)

    async def send_elicit_complete(self, elicitation_id: str, related_request_id: Any = None) -> None:
        """Tell the client a URL-mode elicitation finished out of band (it may retry)."""
        await self.notify("notifications/elicitation/complete", {"elicitationId": elicitation_id},
                          related_request_id=related_request_id)

    async def list_roots(self) -> Any:
        """`roots/list` to the client (handshake-era back-channel only; deprecated)."""
        from mcp.types import ListRootsResult

        warn_deprecated("roots")

        return ListRootsResult.model_validate(await self.send_raw_request("roots/list"))


class OutboundPeer:
    """The `peer` of an official-form session: what the framework's helpers call on a session's
    peer (`send_notification`, `send_request`), sent on the request's outbound channel."""

    __slots__ = ("_outbound",)

    def __init__(self, outbound: Any) -> None:
        self._outbound = outbound

    async def send_notification(self, method: str, params: dict[str, Any] | None = None, metadata: Any = None) -> None:
        await self._outbound.notify(method, params)

    async def send_request(self, method: str, params: dict[str, Any] | None = None, *, timeout: float | None = None,
                           metadata: Any = None, request_id: Any = None) -> dict[str, Any]:
        options: dict[str, Any] = {}
        if timeout is not None:
            options["timeout"] = timeout
        if request_id is not None:
            options["request_id"] = request_id
        return await self._outbound.send_raw_request(method, params, options or None)


class RequestChannel:
    """A framework session's channel for the request being served: the engine routes what is sent
    here with that request (on Streamable HTTP, its POST's response stream)."""

    __slots__ = ("_session",)

    def __init__(self, session: SessionOutgoing) -> None:
        self._session = session

    @property
    def can_send_request(self) -> bool:
        """A request reaches the client once the handshake is done, except on stateless HTTP."""
        session = self._session
        return not session.stateless and session.handshake_settled

    async def notify(self, method: str, params: Mapping[str, Any] | None, opts: CallOptions | None = None) -> None:
        await self._session.peer.send_notification(method, cast("dict[str, Any] | None", params))

    async def send_raw_request(self, method: str, params: Mapping[str, Any] | None,
                               opts: CallOptions | None = None) -> dict[str, Any]:
        """A request to the client (`opts`: `timeout`, `on_progress`); the engine has one way to
        the client for requests, whichever channel asks."""
        session = self._session
        if not self.can_send_request:
            raise NoBackChannelError(method)
        timeout = opts.get("timeout") if opts is not None else None
        on_progress = opts.get("on_progress") if opts is not None else None
        wire = cast("dict[str, Any] | None", params)
        peer = session.peer
        if on_progress is None:
            return await peer.send_request(method, wire, timeout=timeout)
        token = peer.next_request_id()  # the request's own id, as officially
        wire = {**(wire or {})}
        wire["_meta"] = {**wire.get("_meta", {}), "progressToken": token}
        session.progress_callbacks[token] = on_progress
        try:
            return await peer.send_request(method, wire, timeout=timeout, request_id=token)
        finally:
            session.progress_callbacks.pop(token, None)

    async def progress(self, progress: float, total: float | None = None, message: str | None = None) -> None:
        """`notifications/progress` against the served request's token; nothing when it gave none."""
        token = current_progress_token.get()
        if token is not None:
            await self._session.send_progress_notification(token, progress, total, message)


class StandaloneChannel(RequestChannel):
    """A framework session's channel for messages tied to no request (on Streamable HTTP, the
    session's GET stream). Before the handshake there is no such connection to notify (modern
    clients listen for events; a stateless request has no stream of its own): dropped."""

    __slots__ = ()

    async def notify(self, method: str, params: Mapping[str, Any] | None, opts: CallOptions | None = None) -> None:
        session = self._session
        if not session.handshake_settled:
            return
        await session.peer.send_notification(method, cast("dict[str, Any] | None", params), _UNRELATED)
