"""The low-level `Server`: one handler table, one dispatch path, middleware around it.

Every handler is `async (ctx: ServerRequestContext, params) -> Result`. Results go on the wire as
returned (no wrapping, no inferred schema). `MCPServer` is built on this class.
"""

from __future__ import annotations

import dataclasses
import logging
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, cast

import anyio
from typing_extensions import TypeVar

from mcp._protocol.http import (
    DEFAULT_MAX_REQUEST_BODY_SIZE,
    DEFAULT_MAX_SESSIONS,
    DEFAULT_MAX_SESSIONS_PER_CLIENT,
    DEFAULT_SESSION_IDLE_TIMEOUT,
)
from mcp.server.connection import aclose_shielded
from mcp.server.context import CallNext, ServerMiddleware, ServerRequestContext
from mcp.server.session import ServerSession, WireResult, validate_params
from mcp.server.unserved import unserved_request_error
from mcp.shared.exceptions import MCPError
from mcp.types.version import MODERN_VERSIONS

if TYPE_CHECKING:
    from starlette.applications import Starlette
    from starlette.routing import Route

    from mcp.server.auth.provider import OAuthAuthorizationServerProvider, TokenVerifier
    from mcp.server.auth.scopes import ScopeRequirements
    from mcp.server.auth.settings import AuthSettings
    from mcp.server.event_store import EventStore
    from mcp.server.http_limits import TrustedProxies
    from mcp.server.models import InitializationOptions
    from mcp.server.streamable_http import StreamableHTTPSessionManager
    from mcp.server.transport_security import TransportSecuritySettings

logger = logging.getLogger("mcp.server")

LifespanT = TypeVar("LifespanT", default=Any)
LifespanResultT = LifespanT
"""The official SDK's name for what the lifespan yields (`Server[LifespanResultT]`)."""
Handler = Callable[[ServerRequestContext[Any], Any], Awaitable[Any]]
RequestHandler = Handler
"""A registered request handler: `async (ctx, params) -> result`."""
NotificationHandler = Callable[[ServerRequestContext[Any], Any], Awaitable[None]]
"""A registered notification handler: `async (ctx, params) -> None`."""


@asynccontextmanager
async def lifespan(_server: Any) -> AsyncIterator[dict[str, Any]]:
    """The default lifespan: nothing to set up, an empty context."""
    yield {}


async def _ping_handler(ctx: ServerRequestContext[Any], params: Any) -> Any:
    """The default `ping` handler: an empty result."""
    return WireResult({})


HeaderParamsHook = Callable[[str, Mapping[str, Any], Iterable[tuple[str, str]]], "str | None"]
"""`(tool name, arguments, header lines) -> error text or None`: see `Server.header_params`."""
Planner = Callable[[Any], "Callable[[], Any] | None"]
"""Given a request's raw params: a synchronous job that computes its whole result, when it can be
served without the event loop (see `ServerSession.plan_offload`), else None."""


@dataclass(frozen=True, slots=True)
class HandlerEntry(Generic[LifespanT]):
    """A registered handler and the params type its params are validated into (None: passed raw);
    `planner`, when set, lets the session serve the request off the event loop. Immutable and
    hashed by value, as officially: to change one, register a new entry."""

    params_type: Any
    handler: Handler
    planner: Planner | None = None


class NotificationOptions:
    """Which list-changed notifications the server sends (advertised as `listChanged`); a plain
    object compared and hashed by identity, as officially."""

    def __init__(self, prompts_changed: bool = False, resources_changed: bool = False, tools_changed: bool = False) -> None:
        self.prompts_changed = prompts_changed
        self.resources_changed = resources_changed
        self.tools_changed = tools_changed


def __getattr__(name: str) -> Any:
    # `InitializationOptions` is a pydantic model (its home is `mcp.server.models`); resolved on
    # first use so that importing the low-level server does not import pydantic.
    if name == "InitializationOptions":
        from mcp.server.models import InitializationOptions

        return InitializationOptions
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _types() -> Any:
    import mcp.types

    return mcp.types


# method -> (constructor keyword, params type name in mcp.types, params optional)
_ON_METHODS: dict[str, tuple[str, str]] = {
    "on_list_tools": ("tools/list", "PaginatedRequestParams"),
    "on_call_tool": ("tools/call", "CallToolRequestParams"),
    "on_list_resources": ("resources/list", "PaginatedRequestParams"),
    "on_list_resource_templates": ("resources/templates/list", "PaginatedRequestParams"),
    "on_read_resource": ("resources/read", "ReadResourceRequestParams"),
    "on_subscribe_resource": ("resources/subscribe", "SubscribeRequestParams"),
    "on_unsubscribe_resource": ("resources/unsubscribe", "UnsubscribeRequestParams"),
    "on_subscriptions_listen": ("subscriptions/listen", "SubscriptionsListenRequestParams"),
    "on_list_prompts": ("prompts/list", "PaginatedRequestParams"),
    "on_get_prompt": ("prompts/get", "GetPromptRequestParams"),
    "on_completion": ("completion/complete", "CompleteRequestParams"),
    "on_set_logging_level": ("logging/setLevel", "SetLevelRequestParams"),
}
_DEPRECATED_NOTIFICATIONS: dict[str, tuple[str, str, str]] = {
    "on_roots_list_changed": ("notifications/roots/list_changed", "roots", "NotificationParams"),
    "on_progress": ("notifications/progress", "progress", "ProgressNotificationParams"),
}
"""keyword -> (notification method, deprecated feature, params type name in mcp.types)."""


class Server(Generic[LifespanT]):
    """A low-level MCP server: a table of handlers, advertised exactly as registered."""

    def __init__(
        self,
        name: str,
        *,
        version: str = "",
        title: str | None = None,
        description: str | None = None,
        instructions: str | None = None,
        website_url: str | None = None,
        icons: list[Any] | None = None,
        cache_hints: dict[str, Any] | None = None,
        lifespan: Callable[[Server[LifespanT]], AbstractAsyncContextManager[LifespanT]] = lifespan,  # type: ignore[assignment]
        get_tool_input_schema: Callable[[str], Mapping[str, Any] | None] | None = None,
        on_ping: Handler | None = _ping_handler,
        **handlers: Handler | None,
    ) -> None:
        self.name = name
        self.version = version
        self.title = title
        self.description = description
        self.instructions = instructions
        self.website_url = website_url
        self.icons = icons
        self.lifespan = lifespan
        self.get_tool_input_schema = get_tool_input_schema
        """A tool's input schema by name (None: nothing to validate); when set, the 2026-07-28
        `Mcp-Param-*` header check uses it instead of running the `tools/list` handler."""
        self.cache_hints: dict[str, Any] = {}
        if cache_hints:  # the caching module loads only for a server that sets hints
            from mcp.server.caching import validate_cache_hints

            self.cache_hints = validate_cache_hints(cache_hints)
        from mcp.server._otel import default_middleware

        self.middleware: list[ServerMiddleware[Any]] = default_middleware()  # tracing, as the official SDK
        self._request_handlers: dict[str, HandlerEntry[Any]] = {}
        self._notification_handlers: dict[str, HandlerEntry[Any]] = {}
        self.capability_hook: Callable[[dict[str, Any]], dict[str, Any]] | None = None
        """Adjusts the capabilities derived from the table (package-internal: `MCPServer` claims
        `listChanged`, which it serves through its subscription bus)."""
        self.header_params: HeaderParamsHook | None = None
        """The 2026-07-28 `Mcp-Param-*` header check for a `tools/call` (package-internal:
        `MCPServer` sets it from its tool registry; None: `mcp.server.param_headers` asks the
        `tools/list` handler)."""
        self.extensions: dict[str, dict[str, Any]] = {}
        self.handshake_sessions: weakref.WeakSet[Any] = weakref.WeakSet()
        """The handshake-era sessions of this process that completed `initialize` (held weakly):
        whom a server-wide change is announced to (`MCPServer.enable`/`disable`)."""
        self.scope_requirements: ScopeRequirements | None = None
        """Scopes per tool/prompt/resource (`mcp.server.auth.scopes`): the HTTP bearer gate refuses
        calls whose token lacks them (403) and the list handlers may hide such items."""
        """SEP-2133 extension settings advertised under `capabilities.extensions` (identifier ->
        settings); `MCPServer(extensions=...)` fills it."""
        self._server_info_wire: dict[str, Any] | None = None
        self._session_manager: Any = None
        self.shared_state: Any = None
        """State shared by several server processes (`mcp.redis.RedisState`, set by
        `MCPServer(state=...)`): the Streamable HTTP session manager takes its stores from it."""
        self._chain_cache: tuple[tuple[ServerMiddleware[Any], ...], CallNext] | None = None
        self._register_builtins(on_ping)
        for keyword, handler in handlers.items():
            if keyword in _DEPRECATED_NOTIFICATIONS:
                if handler is not None:
                    from mcp.shared.exceptions import warn_deprecated

                    method, feature, params_name = _DEPRECATED_NOTIFICATIONS[keyword]
                    warn_deprecated(feature)
                    # the handler gets the params model, as officially (absent params: its defaults)
                    self._notification_handlers[method] = HandlerEntry(LazyParams(params_name), handler)
                continue
            if keyword not in _ON_METHODS:
                raise TypeError(f"Server.__init__() got an unexpected keyword argument {keyword!r}")
            if keyword == "on_set_logging_level" and handler is not None:
                from mcp.shared.exceptions import warn_deprecated

                warn_deprecated("logging")
            if handler is not None:
                method, params_name = _ON_METHODS[keyword]
                # A request without params reaches the handler as the model with its defaults, never None.
                self._request_handlers[method] = HandlerEntry(LazyParams(params_name), handler)

    # -- registration -------------------------------------------------------------------------

    def _register_builtins(self, on_ping: Handler | None) -> None:
        from mcp.server.lowlevel.builtins import discover, initialize

        self._request_handlers["initialize"] = HandlerEntry(None, initialize)
        self._request_handlers["server/discover"] = HandlerEntry(None, discover)
        self._request_handlers["ping"] = HandlerEntry(None, on_ping or _ping_handler)

    def add_request_handler(self, method: str, params_type: Any, handler: Handler) -> None:
        """Serve a method MCP does not define (or replace a standard one, `server/discover`
        included); params are validated into `params_type` before `handler` runs. `initialize` is
        the server's own: registering it raises `ValueError`."""
        if method == "initialize":
            raise ValueError(
                "'initialize' is handled by the server runner and cannot be overridden; "
                "use Server.middleware to observe or wrap initialization"
            )
        self._request_handlers[method] = HandlerEntry(params_type, handler)

    def add_notification_handler(self, method: str, params_type: Any, handler: Handler) -> None:
        self._notification_handlers[method] = HandlerEntry(params_type, handler)

    def get_request_handler(self, method: str) -> HandlerEntry[LifespanT] | None:
        """The entry registered for a request method (its handler and params type, always a model
        class), or None; None for `initialize` too, which the runner handles itself."""
        entry = self._request_handlers.get(method)
        if entry is None or method == "initialize":
            return None
        if isinstance(entry.params_type, LazyParams):  # built-ins name their model lazily: hand out the model
            return dataclasses.replace(entry, params_type=entry.params_type.model)
        return entry

    def get_notification_handler(self, method: str) -> HandlerEntry[LifespanT] | None:
        """The entry registered for a notification method (its params type a model class), or None."""
        entry = self._notification_handlers.get(method)
        if entry is not None and isinstance(entry.params_type, LazyParams):
            return dataclasses.replace(entry, params_type=entry.params_type.model)
        return entry

    def has_handler(self, method: str) -> bool:
        return method in self._request_handlers

    def has_notification_handler(self, method: str) -> bool:
        return method in self._notification_handlers

    # The table's package-internal doors, beside the official `add_*`/`get_*` ones: for the code
    # built on this class (`MCPServer`, extensions) and for the session that serves it.

    def request_entry(self, method: str) -> HandlerEntry[LifespanT] | None:
        """The entry for a request method exactly as registered (a built-in's params type still
        a `LazyParams`, `initialize` included), or None: what the session checks for a planner
        and what a registrar reads before replacing an entry with `set_request_entry`."""
        return self._request_handlers.get(method)

    def set_request_entry(self, method: str, entry: HandlerEntry[Any]) -> None:
        """Register `entry` for `method`, replacing any entry: unlike `add_request_handler` it
        keeps a `LazyParams` params type and a planner, and it may replace a built-in."""
        self._request_handlers[method] = entry

    def replace_request_entry(self, method: str, **changes: Any) -> None:
        """Change fields of the entry registered for `method` (`handler`, `params_type`,
        `planner`): entries are immutable, so a new one takes its place. KeyError when none is."""
        self._request_handlers[method] = dataclasses.replace(self._request_handlers[method], **changes)

    # -- identity and capabilities ----------------------------------------------------------

    @property
    def server_info(self) -> Any:
        """The `serverInfo` this server reports, as an `Implementation` model (an unversioned
        server reports an empty version)."""
        return _types().Implementation.model_validate(self.server_info_wire)

    @property
    def server_info_stamp(self) -> dict[str, Any]:
        """`serverInfo` in wire form, a fresh copy each time (the caller may mutate it)."""
        import copy

        return copy.deepcopy(self.server_info_wire)

    @property
    def session_manager(self) -> StreamableHTTPSessionManager:
        """The Streamable HTTP session manager `streamable_http_app()` created."""
        manager = self._session_manager
        if manager is None:
            raise RuntimeError(
                "Session manager can only be accessed after calling streamable_http_app(). "
                "The session manager is created lazily to avoid unnecessary initialization."
            )
        return manager

    @session_manager.setter
    def session_manager(self, manager: StreamableHTTPSessionManager) -> None:
        self._session_manager = manager

    @property
    def started_session_manager(self) -> StreamableHTTPSessionManager | None:
        """The Streamable HTTP session manager, or None before `streamable_http_app()` made one."""
        return self._session_manager

    @property
    def server_info_wire(self) -> dict[str, Any]:
        cached = self._server_info_wire
        if cached is None:
            info: dict[str, Any] = {"name": self.name, "version": self.version or ""}  # None: unversioned
            for key, value in (("title", self.title), ("description", self.description),
                               ("websiteUrl", self.website_url)):
                if value is not None:
                    info[key] = value
            if self.icons:
                info["icons"] = [cast("dict[str, Any]", i) if isinstance(i, dict) else i.to_wire() for i in self.icons]
            self._server_info_wire = cached = info
        return cached

    def capabilities_wire(self) -> dict[str, Any]:
        """Capabilities derived from the handlers registered (nothing is claimed that is not
        served), as a wire object."""
        has = self._request_handlers.__contains__
        caps: dict[str, Any] = {}
        if has("logging/setLevel"):
            caps["logging"] = {}
        if has("completion/complete"):
            caps["completions"] = {}
        if has("prompts/list") or has("prompts/get"):
            caps["prompts"] = {"listChanged": False}
        if has("resources/list") or has("resources/read") or has("resources/templates/list"):
            caps["resources"] = {"subscribe": True, "listChanged": False} if has("resources/subscribe") else {
                "listChanged": False}
        if has("tools/list") or has("tools/call"):
            caps["tools"] = {"listChanged": False}
        if self.extensions:
            caps["extensions"] = dict(self.extensions)
        if self.capability_hook is not None:
            caps = self.capability_hook(caps)
        return caps

    def capabilities_for(self, version: str | None) -> dict[str, Any]:
        """The capabilities `initialize`/`server/discover` declare at `version`, as a wire object:
        derived from the handlers, unless a subclass overrides `get_capabilities` (or, on the
        handshake era, `create_initialization_options`), which the official handlers call and
        FastMCP overrides to advertise its extensions; then what the override returns."""
        cls = type(self)
        if version in MODERN_VERSIONS:
            if cls.get_capabilities is Server.get_capabilities:
                return self.capabilities_wire()
            model = self.get_capabilities(protocol_version=version)
        elif cls.get_capabilities is Server.get_capabilities and (
                cls.create_initialization_options is Server.create_initialization_options):
            return self.capabilities_wire()
        else:
            model = self.create_initialization_options().capabilities
        return model.model_dump(by_alias=True, exclude_none=True, mode="json")

    def get_capabilities(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
        *,
        protocol_version: str | None = None,
    ) -> Any:
        """The capabilities as a `ServerCapabilities` model.

        `listChanged` follows `notification_options`; at a 2026-07-28+ `protocol_version`, where
        change notifications travel only on `subscriptions/listen` streams, it (and
        `resources.subscribe`) follows whether that method is served instead. `extensions`
        (identifier -> settings) replaces `self.extensions` when given.
        """
        caps = self.capabilities_wire()
        if protocol_version in MODERN_VERSIONS:
            listen = "subscriptions/listen" in self._request_handlers
            changed = {"prompts": listen, "resources": listen, "tools": listen}
            if "resources" in caps:
                caps["resources"] = {**caps["resources"], "subscribe": listen}
        elif notification_options is not None:
            changed = {"prompts": notification_options.prompts_changed,
                       "resources": notification_options.resources_changed,
                       "tools": notification_options.tools_changed}
        else:
            changed = {}
        for key, flag in changed.items():
            if key in caps:
                caps[key] = {**caps[key], "listChanged": flag}
        if extensions is not None:
            caps["extensions"] = dict(extensions)
        if experimental_capabilities:
            caps["experimental"] = experimental_capabilities
        return _types().ServerCapabilities.model_validate(caps)

    def create_initialization_options(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
    ) -> InitializationOptions:
        """This server's identity and capabilities as `InitializationOptions` (`extensions`
        defaults to `self.extensions`)."""
        from mcp.server.models import InitializationOptions

        return InitializationOptions(
            server_name=self.name, server_version=self.version, title=self.title,
            description=self.description,
            capabilities=self.get_capabilities(notification_options, experimental_capabilities, extensions),
            instructions=self.instructions, website_url=self.website_url, icons=self.icons,
        )

    def cache_hint_for(self, method: str) -> tuple[int, str]:
        hint = self.cache_hints.get(method)
        if hint is None:
            return 0, "private"
        return int(getattr(hint, "ttl_ms", 0)), str(getattr(hint, "scope", "private"))

    # -- dispatch -----------------------------------------------------------------------------
    # The session's doors into the table (package-internal): `dispatch` without middleware,
    # `dispatch_through_middleware` with it.

    async def dispatch(self, ctx: ServerRequestContext[Any]) -> Any:
        """The innermost call: find the handler, validate params once, run it; the handler's
        result as returned (the session puts it in wire form)."""
        entry = self._request_handlers.get(ctx.method)
        if entry is None:
            if ctx.request_id is None:
                return await self.dispatch_notification(ctx)
            raise unserved_request_error(ctx.method, ctx.protocol_version, ctx.params)
        return await entry.handler(ctx, validate_params(entry.params_type, ctx.params))

    async def dispatch_notification(self, ctx: ServerRequestContext[Any]) -> None:
        """A notification to its handler, if one is registered; malformed params are logged and
        dropped (nobody to answer)."""
        entry = self._notification_handlers.get(ctx.method)
        if entry is None:
            return
        try:
            params = validate_params(entry.params_type, ctx.params)
        except MCPError:
            logger.warning("dropped %r: malformed params", ctx.method)  # as officially: nobody to answer
            return
        await entry.handler(ctx, params)

    async def _dispatch_wire(self, ctx: ServerRequestContext[Any]) -> Any:
        """The innermost call under middleware: `dispatch`, then a request's result in its finished
        wire form (what the client receives, identity stamp included), as the official SDK hands
        middleware; a notification's None as is."""
        result = await self.dispatch(ctx)
        if ctx.request_id is None:
            return result
        return ctx.session.wire_result(ctx, result)

    def dispatch_through_middleware(self, ctx: ServerRequestContext[Any]) -> Awaitable[Any]:
        """`ctx` through `self.middleware` (outermost first) to `dispatch`; a request's result in
        wire form unless a middleware answered itself. The chain is composed once per change of
        the list."""
        current = tuple(self.middleware)
        cached = self._chain_cache
        if cached is None or cached[0] != current:
            call: CallNext = self._dispatch_wire
            for mw in reversed(current):
                call = _bind(mw, call)
            cached = self._chain_cache = (current, call)
        return cached[1](ctx)

    # -- running ------------------------------------------------------------------------------

    async def run(self, read_stream: Any, write_stream: Any, initialization_options: Any = None,
                  raise_exceptions: bool = False, stateless: bool = False) -> None:
        """Serve one connection over a pair of streams until the read stream ends."""
        async with self.lifespan(self) as lifespan_context:
            await self.serve_connection(read_stream, write_stream, lifespan_context,
                                        raise_exceptions=raise_exceptions, stateless=stateless)

    async def serve_connection(self, read_stream: Any, write_stream: Any, lifespan_context: Any, *,
                               raise_exceptions: bool = False, stateless: bool = False) -> None:
        session = ServerSession(server=self, read_stream=read_stream, write_stream=write_stream, lifespan_context=lifespan_context,
                                raise_exceptions=raise_exceptions, stateless=stateless)
        try:
            await session.run()
        finally:
            with anyio.CancelScope(shield=True):
                await write_stream.aclose()
            await aclose_shielded(session.connection)

    def streamable_http_app(
        self,
        *,
        streamable_http_path: str = "/mcp",
        json_response: bool = False,
        stateless_http: bool = False,
        event_store: EventStore | None = None,
        retry_interval: int | None = None,
        max_request_body_size: int = DEFAULT_MAX_REQUEST_BODY_SIZE,
        session_idle_timeout: float | None = DEFAULT_SESSION_IDLE_TIMEOUT,
        max_sessions: int | None = DEFAULT_MAX_SESSIONS,
        transport_security: TransportSecuritySettings | None = None,
        host: str = "127.0.0.1",
        auth: AuthSettings | None = None,
        token_verifier: TokenVerifier | None = None,
        auth_server_provider: OAuthAuthorizationServerProvider[Any, Any, Any] | None = None,
        custom_starlette_routes: list[Route] | None = None,
        debug: bool = False,
        max_sessions_per_client: int | None = DEFAULT_MAX_SESSIONS_PER_CLIENT,
        trusted_proxies: TrustedProxies = None,
    ) -> Starlette:
        """An ASGI (Starlette) app serving this server over Streamable HTTP at
        `streamable_http_path` (plus `custom_starlette_routes`); with `auth`, the endpoint requires
        a bearer token. DNS-rebinding protection follows `host` unless `transport_security` is given."""
        from mcp.server.streamable_http_app import build_app

        return build_app(
            self, streamable_http_path=streamable_http_path, json_response=json_response,
            stateless_http=stateless_http, event_store=event_store, retry_interval=retry_interval,
            max_request_body_size=max_request_body_size, session_idle_timeout=session_idle_timeout,
            max_sessions=max_sessions, transport_security=transport_security, host=host, auth=auth,
            token_verifier=token_verifier, auth_server_provider=auth_server_provider,
            custom_starlette_routes=custom_starlette_routes, debug=debug,
            max_sessions_per_client=max_sessions_per_client, trusted_proxies=trusted_proxies,
        )


def _bind(mw: ServerMiddleware[Any], call_next: CallNext) -> CallNext:
    def call(ctx: ServerRequestContext[Any]) -> Awaitable[Any]:
        return mw(ctx, call_next)

    return call


class LazyParams:
    """A params type named by its `mcp.types` name, resolved (and its validator built) on first use,
    so constructing a server builds no model it will not use. `optional`: absent or empty params
    reach the handler as None instead of the model's defaults (`MCPServer`'s list handlers: no
    model built on the hot path); handlers given to `Server(...)` always get the model."""

    __slots__ = ("_model", "name", "optional")

    def __init__(self, name: str, optional: bool = False) -> None:
        self.name = name
        self.optional = optional
        self._model: Any = None

    @property
    def model(self) -> Any:
        """The model class (imported on first use)."""
        model = self._model
        if model is None:
            model = self._model = getattr(_types(), self.name)
        return model

    def model_validate(self, params: Any) -> Any:
        if self.optional and not params:  # before the model: a bare tools/list imports no types
            return None
        model = self._model  # inline rather than `self.model`: this runs on every request
        if model is None:
            model = self._model = getattr(_types(), self.name)
        return model.model_validate(params)
