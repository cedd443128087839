"""`Context`: what a tool, resource or prompt function may ask for by annotating a parameter."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Generic, cast

from pydantic import BaseModel, ModelWrapValidatorHandler, model_validator
from typing_extensions import TypeVar

if TYPE_CHECKING:
    from mcp.server.context import ServerRequestContext
    from mcp.server.mcpserver.server import MCPServer
    from mcp.server.session import ServerSession
    from mcp.types import InputResponses

LifespanT = TypeVar("LifespanT", default=Any)
RequestT = TypeVar("RequestT", default=Any)

_input_responses_adapter: Any = None


def _validate_input_responses(raw: Any) -> InputResponses:
    global _input_responses_adapter
    if _input_responses_adapter is None:
        from pydantic import TypeAdapter

        from mcp.types import InputResponses

        _input_responses_adapter = TypeAdapter(InputResponses)
    try:
        return _input_responses_adapter.validate_python(raw)
    except ValueError as exc:
        from mcp.shared.exceptions import MCPError
        from mcp.types.jsonrpc import INVALID_PARAMS

        raise MCPError(INVALID_PARAMS, f"Invalid params: inputResponses: {exc}") from None


_set_attr = object.__setattr__  # by name: a parametrised `Context[...]` re-declares the slots
_set_fields_set = BaseModel.__dict__["__pydantic_fields_set__"].__set__
_set_extra = BaseModel.__dict__["__pydantic_extra__"].__set__
_set_private = BaseModel.__dict__["__pydantic_private__"].__set__


class Context(BaseModel, Generic[LifespanT, RequestT]):
    """The per-request handle injected into handlers (a pydantic model without fields, as in the
    official SDK). Cheap to build: construction skips validation and sets a pair of references."""

    __slots__ = ("_mcp_server", "_request_context")

    def __init__(self, request_context: ServerRequestContext[Any] | None = None, mcp_server: MCPServer | None = None,
                 input_params: Any = None, subscriptions: Any = None, **kwargs: Any) -> None:
        # `input_params` and `subscriptions` are accepted for the official signature: this
        # context reads both from the request and the server it is bound to.
        _set_attr(self, "_request_context", request_context)
        _set_attr(self, "_mcp_server", mcp_server)
        _set_fields_set(self, set())
        _set_extra(self, None)
        _set_private(self, None)

    @model_validator(mode="wrap")
    @classmethod
    def _keep_instance(cls, value: Any, handler: ModelWrapValidatorHandler[Any]) -> Any:
        """A `Context` validates to itself (it is state, not data)."""
        return cast("Any", value) if isinstance(value, Context) else handler(value)

    @property
    def binding(self) -> tuple[ServerRequestContext[Any] | None, MCPServer | None]:
        """The request context and the server this context was built with (either None when
        unbound): what a context derived from it (`TaskContext`) is built from."""
        return self._request_context, self._mcp_server

    @property
    def request_context(self) -> ServerRequestContext[LifespanT]:
        if self._request_context is None:
            raise ValueError("Context is not available outside of a request")
        return self._request_context

    @property
    def mcp_server(self) -> MCPServer:
        if self._mcp_server is None:
            raise ValueError("Context is not bound to a server")
        return self._mcp_server

    @property
    def request_id(self) -> str:
        return str(self.request_context.request_id)

    @property
    def session(self) -> ServerSession:
        return self.request_context.session

    @property
    def lifespan_context(self) -> LifespanT:
        return self.request_context.lifespan_context

    @property
    def headers(self) -> Any:
        return self.request_context.headers

    @property
    def protocol_version(self) -> str:
        return self.request_context.protocol_version

    @property
    def client_capabilities(self) -> Any:
        return self.request_context.client_capabilities

    @property
    def input_responses(self) -> InputResponses | None:
        """The client's answers to the previous round's `input_requests`, under the keys the server
        chose, as result models (`ElicitResult`, `CreateMessageResult`, `ListRootsResult`); None on
        a first round. Validated once per request; answers that fit none of the three are
        invalid params (-32602)."""
        ctx = self.request_context
        if "input_responses" in ctx.extra:
            return ctx.extra["input_responses"]
        params = ctx.params
        raw = None if params is None else params.get("inputResponses")
        responses = None if raw is None else _validate_input_responses(raw)
        ctx.extra["input_responses"] = responses
        return responses

    @property
    def request_state(self) -> str | None:
        """The plaintext state the handler returned last round (verified and unsealed)."""
        ctx = self.request_context
        if "request_state" in ctx.extra:
            return ctx.extra["request_state"]
        params = ctx.params
        return None if params is None else params.get("requestState")

    async def close_sse_stream(self) -> None:
        """End this request's SSE stream so the client resumes it later (SSE polling, with an event
        store); a no-op on transports without one."""
        closer = self.request_context.close_sse_stream
        if closer is not None:
            await closer()

    async def close_standalone_sse_stream(self) -> None:
        """End the session's standalone (GET) SSE stream; a no-op on transports without one."""
        closer = self.request_context.close_standalone_sse_stream
        if closer is not None:
            await closer()

    async def report_progress(self, progress: float, total: float | None = None, message: str | None = None) -> None:
        """Send `notifications/progress` when the caller asked for progress; otherwise do nothing.

        Delegated to `session.report_progress`, as officially, whenever this request's `_meta`
        carries a token (0 included); a context whose `_meta` has none (a task running in the
        background drops it) reports nothing."""
        ctx = self.request_context
        meta = ctx.meta
        if meta is None or meta.get("progress_token") is None:
            return
        await ctx.session.report_progress(progress, total, message)

    async def read_resource(self, uri: str) -> Any:
        """Read one of this server's resources: an iterable of `ReadResourceContents`."""
        return await self.mcp_server.read_resource(uri, self)

    async def _notify(self, event: Any, legacy: str) -> None:
        """Publish to `subscriptions/listen` streams; also tell this handshake-era connection
        (once, even when the handler also calls `ctx.session.send_*_list_changed()`, as the
        official docs advise: `ServerSession.relay_list_changed`)."""
        server = self._mcp_server
        if server is not None:
            await server.publish_change(event)
        ctx = self._request_context
        if ctx is not None and ctx.session.has_back_channel:
            await ctx.session.relay_list_changed(legacy)

    async def notify_tools_changed(self) -> None:
        from mcp.server.subscriptions import ToolsListChanged

        await self._notify(ToolsListChanged(), "notifications/tools/list_changed")

    async def notify_resources_changed(self) -> None:
        from mcp.server.subscriptions import ResourcesListChanged

        await self._notify(ResourcesListChanged(), "notifications/resources/list_changed")

    async def notify_prompts_changed(self) -> None:
        from mcp.server.subscriptions import PromptsListChanged

        await self._notify(PromptsListChanged(), "notifications/prompts/list_changed")

    async def enable(self, names: Iterable[str] | str | None = None, *, tags: Iterable[str] | str | None = None,
                     kinds: Iterable[str] | str | None = None, only: bool = False) -> None:
        """Show the matching items to this session only (selectors as `MCPServer.enable`; with no
        selector, drop this session's own rules: it sees what everyone sees), and send it the
        list_changed of each list that changed for it. Needs a handshake-era session: on a
        2026-07-28 request or over stateless HTTP it raises `RuntimeError`."""
        ctx = self.request_context
        await self.mcp_server.change_session_visibility(ctx.session, ctx.protocol_version, True, names, tags,
                                                        cast("Any", kinds), only)

    async def disable(self, names: Iterable[str] | str | None = None, *, tags: Iterable[str] | str | None = None,
                      kinds: Iterable[str] | str | None = None) -> None:
        """Hide the matching items from this session only (see `enable`): absent from its lists,
        and its requests for them are answered as for unknown items."""
        ctx = self.request_context
        await self.mcp_server.change_session_visibility(ctx.session, ctx.protocol_version, False, names, tags,
                                                        cast("Any", kinds), False)

    async def notify_resource_updated(self, uri: str) -> None:
        """Tell listen streams and every handshake-era connection subscribed to `uri`."""
        server = self._mcp_server
        if server is not None:
            await server.publish_resource_updated(str(uri))

    @property
    def cancelled(self) -> bool:
        """True once the client cancelled this request (`notifications/cancelled`) or went away.

        Async handlers are interrupted at their next `await` anyway; a sync handler running on a
        worker thread cannot be, so it should poll this and stop early."""
        from mcp._engine.peer import current_cancellation

        flag = current_cancellation.get()
        return flag is not None and flag.cancelled

    async def elicit(self, message: str, schema: type[Any]) -> Any:
        """Ask the user for form input (handshake-era back-channel); returns
        `AcceptedElicitation(data=...)`, `DeclinedElicitation()` or `CancelledElicitation()`."""
        from mcp.server.elicitation import form_schema, validated_result

        requested = form_schema(schema)
        result = await self.session.elicit_form(message, requested)
        return validated_result(schema, result.model_dump(mode="json"))

    async def elicit_url(self, message: str, url: str, elicitation_id: str) -> Any:
        """Send the user to `url` (handshake-era back-channel); returns the `ElicitResult`."""
        return await self.session.elicit_url(message, url, elicitation_id)

    async def log(self, level: str, data: Any, *, logger_name: str | None = None) -> None:
        """Deprecated protocol logging (`notifications/message`); prefer stdlib logging to stderr.

        Sent as `session.send_log_message` sends, as officially: every level on the handshake
        wire (`MCPServer` serves no `logging/setLevel`), on 2026-07-28 only at or above the
        request's `io.modelcontextprotocol/logLevel` (nothing without it)."""
        await self.request_context.session.send_log_message(level, data, logger=logger_name,
                                                            related_request_id=self.request_id)

    async def debug(self, data: Any, *, logger_name: str | None = None) -> None:
        await self.log("debug", data, logger_name=logger_name)

    async def info(self, data: Any, *, logger_name: str | None = None) -> None:
        await self.log("info", data, logger_name=logger_name)

    async def warning(self, data: Any, *, logger_name: str | None = None) -> None:
        await self.log("warning", data, logger_name=logger_name)

    async def error(self, data: Any, *, logger_name: str | None = None) -> None:
        await self.log("error", data, logger_name=logger_name)
