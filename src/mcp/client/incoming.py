"""What the server sends a client unasked: its requests (answered by the session's callbacks) and
its notifications (surfaced to `message_handler`, `logging_callback`, extension bindings, progress
callbacks and subscriptions).

`ClientIncoming` holds that half of `ClientSession`. Requests are answered on the receive loop;
whatever user code sees a notification runs later, one at a time and in wire order, off the loop.
"""

from __future__ import annotations

import collections
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, cast

from mcp._engine.peer import Peer
from mcp._protocol import messages as m
from mcp._protocol.codec import ParseError
from mcp._protocol.salvage import salvage_id
from mcp.client.context import ClientRequestContext, LoggingFnT
from mcp.client.handshake import ClientHandshake, model_types
from mcp.client.outgoing import ProgressCallback
from mcp.shared.exceptions import MCPError, error_fields_for
from mcp.types import methods as _methods
from mcp.types.jsonrpc import INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR

if TYPE_CHECKING:
    from mcp.client.extensions import NotificationBinding
    from mcp.client.session import ClientSession, MessageHandlerFnT
    from mcp.client.subscriptions import ListenRoute

logger = logging.getLogger("mcp.client")

_FALLBACK_VERSION = "2025-11-25"
"""The revision incoming messages are read at before one is negotiated."""

_NEVER_SURFACED = frozenset({"notifications/cancelled", "notifications/tasks/status"})
"""Server notifications `message_handler` never sees: a cancel is applied by the connection itself,
and task status (2025-11-25) is not part of the surfaced notification union."""


class ClientIncoming(ClientHandshake):
    """The answering half of `ClientSession` (its state is set up by `ClientSession.__init__`)."""

    _logging: LoggingFnT | None
    _message_handler: MessageHandlerFnT | None
    _progress: dict[Any, ProgressCallback]
    _on_silence_clock: set[Any]
    _subscriptions: dict[str, Any]
    _deliveries: collections.deque[tuple[Callable[[Any], Awaitable[None]], Any]]
    _delivering: bool
    notification_hooks: list[Callable[[str, dict[str, Any]], Awaitable[None]]]

    async def dispatch_input_request(self, ctx: ClientRequestContext, request: Any) -> Any:
        """Answer one input request (`CreateMessageRequest`, `ElicitRequest`, `ListRootsRequest`)
        with its callback: the callback's result, or `ErrorData` when it declines or none is
        registered. Shared by server-to-client requests and `InputRequiredResult.input_requests`."""
        t = model_types()
        method = request.method
        if method == "sampling/createMessage":
            if self._sampling is None:
                return t.ErrorData(code=INVALID_REQUEST, message="Sampling not supported")
            return await self._sampling(ctx, request.params)
        if method == "elicitation/create":
            if self._elicitation is None:
                return t.ErrorData(code=INVALID_REQUEST, message="Elicitation not supported")
            return await self._elicitation(ctx, request.params)
        if method == "roots/list":
            if self._roots is None:
                return t.ErrorData(code=INVALID_REQUEST, message="List roots not supported")
            return await self._roots(ctx)
        raise MCPError(METHOD_NOT_FOUND, "Method not found", method)

    async def answer_input_request(self, request: Any, key: Any = None) -> dict[str, Any]:
        """Answer one `inputRequests` entry (a model or its wire dict) as the same request pushed
        over the handshake-era back-channel would be; returns the wire `InputResponse`."""
        wire = request.to_wire() if hasattr(request, "to_wire") else request
        return await self._answer(wire["method"], wire.get("params") or {}, key)

    # -- listen streams -----------------------------------------------------------------------

    def register_listen_route(self, subscription_id: str, route: ListenRoute) -> None:
        """Route the notifications stamped with `subscription_id` (a `subscriptions/listen`
        request's id) to `route`, in wire order; register before sending the request, so the
        server's acknowledgement cannot arrive first."""
        self._subscriptions[subscription_id] = route

    def unregister_listen_route(self, subscription_id: str) -> None:
        """Stop routing a listen stream's notifications (nothing when it is not registered)."""
        self._subscriptions.pop(subscription_id, None)

    # -- incoming -----------------------------------------------------------------------------

    async def _on_request(self, message: dict[str, Any], metadata: Any) -> None:
        request_id = message["id"]
        method = message["method"]
        params: dict[str, Any] = message.get("params") or {}
        peer = self.peer
        assert isinstance(peer, Peer)  # a dispatcher answers requests itself
        # While our callback works (a person, a model), the server is waiting on us: the default
        # timeouts of our own requests, which bound the server's silence, stop meanwhile.
        stopped = [clock for clock in map(peer.clock, list(self._on_silence_clock)) if clock is not None]
        for clock in stopped:
            clock.stop()
        try:
            result = await self._answer(method, params, request_id)
            response = m.result_response(request_id, result)
        except MCPError as exc:
            response = m.error_response(request_id, *error_fields_for(exc))
        except Exception as exc:
            logger.exception("client callback for %s failed", method)
            response = m.error_response(request_id, *error_fields_for(exc, "client"))
        finally:
            for clock in stopped:
                clock.go()
        await peer.send(response, answers=method)

    async def _answer(self, method: str, params: dict[str, Any], request_id: Any) -> dict[str, Any]:
        t = model_types()
        if method == "ping":
            return {}
        # Without a callback the request is refused as invalid (-32600), not as an unknown method.
        if method == "elicitation/create":
            request: Any = t.ElicitRequest.model_construct(method=method,
                                                           params=_validate(t.ElicitRequestParams, params))
        elif method == "sampling/createMessage":
            request = t.CreateMessageRequest.model_construct(method=method,
                                                             params=_validate(t.CreateMessageRequestParams, params))
        elif method == "roots/list":
            request = t.ListRootsRequest.model_construct(method=method, params=None)
        else:
            raise MCPError(METHOD_NOT_FOUND, "Method not found", method)
        ctx = ClientRequestContext(session=cast("ClientSession", self), request_id=request_id, meta=params.get("_meta"))
        out = await self.dispatch_input_request(ctx, request)
        if isinstance(out, t.ErrorData):
            raise MCPError(out.code, out.message, out.data)
        return out.to_wire()

    async def _on_notification(self, message: dict[str, Any], metadata: Any) -> None:
        """Runs on the receive loop, in wire order: internal bookkeeping happens here; whatever user
        code sees the notification (`message_handler`, `logging_callback`, extension bindings) runs
        later, one at a time and in order, off the loop, so it may itself talk to the server."""
        method = message["method"]
        params: dict[str, Any] = message.get("params") or {}
        for hook in self.notification_hooks:
            await hook(method, params)
        meta = params.get("_meta")
        if self._subscriptions and type(meta) is dict:
            from mcp.client.subscriptions import SUBSCRIPTION_ID_META_KEY, event_for

            subscription_id: Any = cast("dict[str, Any]", meta).get(SUBSCRIPTION_ID_META_KEY)
            subscription = self._subscriptions.get(subscription_id)
            if subscription is not None:
                if method == "notifications/subscriptions/acknowledged":
                    from mcp.types import SubscriptionFilter

                    subscription.set_acked(SubscriptionFilter.model_validate(params.get("notifications") or {}))
                    return  # the stream's own handshake, never surfaced
                event = event_for(method, params)
                if event is not None:
                    subscription.deliver(event)
        if method == "notifications/progress":
            token = params.get("progressToken")
            callback = self._progress.get(token)
            if callback is not None:
                if token in self._on_silence_clock:  # the server is working on it: its silence restarts
                    clock = cast("Peer", self.peer).clock(token)
                    if clock is not None:
                        clock.restart()
                # Off the receive loop (in order, with the other deliveries): a slow callback must
                # not hold up the result.
                update = (params.get("progress", 0), params.get("total"), params.get("message"))
                await self._deliver_later(_report_progress, (callback, update))
        if method in _NEVER_SURFACED:
            return
        version = self.protocol_version or _FALLBACK_VERSION
        info = _methods.get(method)
        if info is None or info.kind != "notification" or not info.sent_by("server", version):
            binding = self._bindings.get(method)
            if binding is not None:
                await self._deliver_later(self._run_binding, (binding, params))
            else:
                logger.debug("dropped %r: not a server notification at %s", method, version)
            return
        if self._message_handler is None and (self._logging is None or method != "notifications/message"):
            return  # nobody would look at it: skip validation
        body: dict[str, Any] = {"method": method}
        if "params" in message:
            body["params"] = message["params"]
        await self._deliver_later(self._surface, (getattr(model_types(), info.message), body))

    async def _on_transport_error(self, exc: Exception) -> None:
        self._fail_unparsable_answer(exc)
        await self._deliver_later(self._surface_transport_error, exc)

    def _fail_unparsable_answer(self, exc: Exception) -> None:
        """An answer that did not parse (a stdio line nested too deep, say) still fails its
        request at once, when the id it answers can be told from the text: else the request
        would wait for its timeout. `message_handler` is told of the exception as before."""
        data = exc.data if isinstance(exc, ParseError) else None
        peer = self.peer
        if data is None or not isinstance(peer, Peer):
            return
        request_id = salvage_id(data)
        if request_id is not None and peer.fail_pending(request_id, PARSE_ERROR,
                                                        f"Failed to parse the server's response: {exc}"):
            logger.warning("the server's answer to request %r did not parse: %s", request_id, exc)

    async def _deliver_later(self, deliver: Callable[[Any], Awaitable[None]], item: Any) -> None:
        """Queue one delivery; a single drainer task (started on demand in the connection's task
        group) runs them in order. Without a running group, deliver in place."""
        self._deliveries.append((deliver, item))
        if self._delivering:
            return
        self._delivering = True
        task_group = self.peer.task_group
        if task_group is None:
            await self._drain_deliveries()
        else:
            task_group.start_soon(self._drain_deliveries)

    async def _drain_deliveries(self) -> None:
        try:
            while self._deliveries:
                deliver, item = self._deliveries.popleft()
                await deliver(item)
        finally:
            self._delivering = False

    async def _surface(self, item: tuple[Any, dict[str, Any]]) -> None:
        from pydantic import ValidationError

        model, body = item
        method = body["method"]
        try:
            notification = model.model_validate(body)
        except ValidationError:
            logger.warning("dropped an invalid %s notification", method, exc_info=True)
            return
        try:
            # A raising logging_callback skips message_handler for that notification.
            if self._logging is not None and method == "notifications/message":
                await self._logging(notification.params)
            if self._message_handler is not None:
                await self._message_handler(notification)
        except Exception:
            logger.exception("a notification callback for %s raised", method)

    async def _surface_transport_error(self, exc: Exception) -> None:
        if self._message_handler is None:
            logger.debug("transport error with no message_handler: %r", exc)
            return
        try:
            await self._message_handler(exc)
        except Exception:
            logger.exception("message_handler raised on a transport error")

    async def _run_binding(self, item: tuple[NotificationBinding[Any], dict[str, Any]]) -> None:
        from pydantic import ValidationError

        binding, params = item
        try:
            value = binding.params_type.model_validate(params)
        except ValidationError:
            logger.warning("dropped an invalid %s notification", binding.method, exc_info=True)
            return
        try:
            await binding.handler(value)
        except Exception:
            logger.exception("the notification binding for %s raised", binding.method)


async def _report_progress(item: tuple[ProgressCallback, tuple[Any, Any, Any]]) -> None:
    callback, update = item
    try:
        await callback(*update)
    except Exception:
        logger.exception("a progress callback raised")


def _validate(model: Any, params: dict[str, Any]) -> Any:
    from pydantic import TypeAdapter, ValidationError

    try:
        return TypeAdapter(model).validate_python(params)
    except ValidationError as exc:
        raise MCPError(INVALID_PARAMS, f"Invalid params: {exc}") from None
