"""`MCPServer`: the high-level server. Decorated Python functions become MCP tools; the wire,
lifecycle and dispatch belong to the low-level `Server` it is built on."""

from __future__ import annotations

import dataclasses
import functools
import logging
import sys
import weakref
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar, cast

from typing_extensions import TypeVar as DefaultTypeVar

if TYPE_CHECKING:
    from starlette.applications import Starlette

    from mcp.server.event_store import EventStore
    from mcp.server.http_limits import TrustedProxies
    from mcp.server.mcpserver.context import Context
    from mcp.server.transport_security import TransportSecuritySettings

from mcp._protocol.http import (
    DEFAULT_MAX_REQUEST_BODY_SIZE,
    DEFAULT_MAX_SESSIONS,
    DEFAULT_MAX_SESSIONS_PER_CLIENT,
    DEFAULT_SESSION_IDLE_TIMEOUT,
)
from mcp.server.lowlevel.server import _OPTIONAL_PARAMS, HandlerEntry, Server, _LazyParams
from mcp.server.mcpserver import handlers
from mcp.server.mcpserver.resources.security import DEFAULT_RESOURCE_SECURITY, ResourceSecurity
from mcp.server.mcpserver.tools import RegisteredTool
from mcp.shared.exceptions import MCPError

logger = logging.getLogger("mcp.server")
# The official logger name of the duplicate-tool warning, which the troubleshooting page quotes.
_duplicates_logger = logging.getLogger("mcp.server.mcpserver.tools.tool_manager")

LifespanT = DefaultTypeVar("LifespanT", default=Any)
F = TypeVar("F", bound=Callable[..., Any])


def _misuse(decorator: str, example: str) -> TypeError:
    return TypeError(
        f"The @{decorator} decorator was used incorrectly. Did you forget to call it? "
        f"Use @{example} instead of @{decorator}"
    )


def lifespan_wrapper(
    app: MCPServer[LifespanT],
    lifespan: Callable[[MCPServer[LifespanT]], AbstractAsyncContextManager[LifespanT]] | None,
) -> Callable[[Any], AbstractAsyncContextManager[LifespanT]]:
    """The low-level server's lifespan for an `MCPServer` one: `lifespan(app)` (None: no state, `{}`)."""

    @asynccontextmanager
    async def wrapped(_server: Any) -> AsyncIterator[Any]:
        shared = app._state
        if shared is not None:
            await shared.start(app)  # reachable, and consistent with the other replicas (logged)
        try:
            if lifespan is None:
                yield {}
            else:
                async with lifespan(app) as state:
                    yield state
        finally:
            if shared is not None:
                await shared.stop()

    return wrapped


def __getattr__(name: str) -> Any:
    # `Settings` is a pydantic model and `require_client_extension` lives with extensions: both are
    # resolved on first use so that `from mcp.server import MCPServer` stays light.
    if name == "Settings":
        from mcp.server.mcpserver.settings import Settings

        return Settings
    if name == "require_client_extension":
        from mcp.server.extension import require_client_extension

        return require_client_extension
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class MCPServer(Generic[LifespanT]):
    """A high-level MCP server; see the README's quick start."""

    def __init__(
        self,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        instructions: str | None = None,
        website_url: str | None = None,
        icons: list[Any] | None = None,
        version: str = "",
        auth_server_provider: Any = None,
        token_verifier: Any = None,
        *,
        tools: list[Any] | None = None,
        resources: list[Any] | None = None,
        extensions: list[Any] | None = None,
        debug: bool = False,
        log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"] = "INFO",
        warn_on_duplicate_resources: bool = True,
        warn_on_duplicate_tools: bool = True,
        warn_on_duplicate_prompts: bool = True,
        dependencies: list[str] | None = None,
        lifespan: Callable[[MCPServer[LifespanT]], AbstractAsyncContextManager[LifespanT]] | None = None,
        auth: Any = None,
        resource_security: ResourceSecurity | None = DEFAULT_RESOURCE_SECURITY,
        request_state_security: Any = None,
        cache_hints: dict[str, Any] | None = None,
        subscriptions: Any = None,
        middleware: list[Any] | None = None,
        page_size: int | None = None,
        mask_error_details: bool = True,
        state: Any = None,
        **unexpected: Any,
    ) -> None:
        if unexpected:
            # Python's own wording first (users match on it), then where such options belong.
            raise TypeError(
                f"MCPServer.__init__() got an unexpected keyword argument {next(iter(unexpected))!r}; transport "
                "options such as host or port go to run() or streamable_http_app()"
            )
        if (token_verifier is not None or auth_server_provider is not None) and auth is None:
            raise ValueError("Cannot specify auth_server_provider or token_verifier without auth settings")
        if auth is not None and (token_verifier is None) == (auth_server_provider is None):
            raise ValueError("auth settings need exactly one of token_verifier or auth_server_provider")
        self._token_verifier = token_verifier
        if auth_server_provider is not None and token_verifier is None:
            from mcp.server.auth.provider import ProviderTokenVerifier

            self._token_verifier = ProviderTokenVerifier(auth_server_provider)  # the gate checks its tokens
        self._auth_server_provider = auth_server_provider
        self._mask_error_details = mask_error_details
        """Tools answer an unexpected exception with `Error executing tool NAME` only (the text may
        hold secrets or paths; the traceback goes to the log). False keeps the text, for development."""
        if page_size is not None and page_size < 1:
            raise ValueError("page_size must be at least 1")
        from mcp.server.request_state import RequestStateBoundary, RequestStateSecurity
        from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler

        if request_state_security is not None and name is None and request_state_security.audience is None:
            raise ValueError(
                "request_state_security= on an unnamed server needs an audience: give the server a name or set "
                "RequestStateSecurity(audience=...)"
            )
        self._options: dict[str, Any] = dict(
            debug=debug, log_level=log_level, warn_on_duplicate_tools=warn_on_duplicate_tools,
            warn_on_duplicate_resources=warn_on_duplicate_resources,
            warn_on_duplicate_prompts=warn_on_duplicate_prompts, dependencies=list(dependencies or []),
            lifespan=lifespan, auth=auth,
        )
        self._settings: Any = None
        self.dependencies: list[str] = self._options["dependencies"]
        self._page_size = page_size
        self._tools: dict[str, RegisteredTool] = {}
        self._tools_result: Any = None
        self._resource_security = resource_security
        self._resource_manager: Any = None
        self._prompt_manager: Any = None
        self._completion: Any = None
        self._custom_routes: list[Any] = []
        self._state = state
        """Shared by every replica of this server (`mcp.redis.RedisState`): sessions, the change
        bus, SSE events and tasks live there; checked and connected when the server starts."""
        if subscriptions is None and state is not None:
            subscriptions = state.subscription_bus()
        self._bus = subscriptions if subscriptions is not None else InMemorySubscriptionBus()
        self._listen = ListenHandler(self._bus)
        self._subscribed_sessions: weakref.WeakSet[Any] = weakref.WeakSet()
        self._boundary = RequestStateBoundary(request_state_security or RequestStateSecurity.ephemeral(),
                                              audience=name or "mcp-server")
        bind = functools.partial
        self._lowlevel_server: Server[Any] = Server(
            name or "mcp-server",
            version=version, title=title, description=description, instructions=instructions,
            website_url=website_url, icons=icons, cache_hints=cache_hints,
            lifespan=lifespan_wrapper(self, lifespan),
            on_list_tools=bind(handlers.list_tools, self),
            on_call_tool=None,
            on_list_resources=bind(handlers.list_resources, self),
            on_list_resource_templates=bind(handlers.list_resource_templates, self),
            on_read_resource=bind(handlers.read_resource, self),
            on_subscribe_resource=bind(handlers.subscribe_resource, self),
            on_unsubscribe_resource=bind(handlers.unsubscribe_resource, self),
            on_list_prompts=bind(handlers.list_prompts, self),
            on_get_prompt=bind(handlers.get_prompt, self),
            on_subscriptions_listen=self._listen,
        )
        self._lowlevel_server._request_handlers["tools/call"] = HandlerEntry(None, bind(handlers.call_tool, self),
                                                                        bind(handlers.plan_call_tool, self))
        table = self._lowlevel_server._request_handlers
        for method in _OPTIONAL_PARAMS:  # our own list handlers read a missing params as None: no model built
            table[method] = dataclasses.replace(table[method], params_type=_LazyParams(table[method].params_type.name, True))
        table["resources/read"] = dataclasses.replace(table["resources/read"], planner=bind(handlers.plan_read_resource, self))
        if type(self).get_prompt is MCPServer.get_prompt:  # an override must see every prompts/get
            table["prompts/get"] = dataclasses.replace(table["prompts/get"], planner=bind(handlers.plan_get_prompt, self))
        self._lowlevel_server._capability_hook = self._capabilities
        self._lowlevel_server.header_params = self._header_params  # type: ignore[attr-defined]
        self._lowlevel_server.shared_state = state
        if middleware:
            self._lowlevel_server.middleware.extend(middleware)
        for tool in tools or ():
            self.add_tool(tool)
        for resource in resources or ():
            self.add_resource(resource)
        self._extensions = list(extensions or [])
        if self._extensions:
            from mcp.server.extension import install_extensions

            install_extensions(self, self._extensions)
            if state is not None:
                for extension in self._extensions:
                    share = getattr(extension, "use_shared_state", None)
                    if share is not None:
                        share(state)
        logging.basicConfig(level=getattr(logging, log_level, logging.INFO))

    @property
    def _resources(self) -> Any:
        """The resource registry (built on first use: a tools-only server never loads it)."""
        manager = self._resource_manager
        if manager is None:
            from mcp.server.mcpserver.resources import DEFAULT_RESOURCE_SECURITY, ResourceManager

            security = self._resource_security
            manager = self._resource_manager = ResourceManager(
                warn_on_duplicate_resources=self._setting("warn_on_duplicate_resources"),
                resource_security=security if security is not None else DEFAULT_RESOURCE_SECURITY,
            )
        return manager

    @property
    def _prompts(self) -> Any:
        """The prompt registry (built on first use)."""
        manager = self._prompt_manager
        if manager is None:
            from mcp.server.mcpserver.prompts import PromptManager

            manager = self._prompt_manager = PromptManager(
                warn_on_duplicate_prompts=self._setting("warn_on_duplicate_prompts"))
        return manager

    @property
    def _tool_manager(self) -> _ToolRegistryView:
        """The official SDK's private `_tool_manager` name, as a view of our tool registry (test fixtures
        that snapshot and restore `_tool_manager._tools` keep working)."""
        return _ToolRegistryView(self)

    # -- identity -----------------------------------------------------------------------------

    @property
    def name(self) -> str:
        return self._lowlevel_server.name

    @property
    def title(self) -> str | None:
        return self._lowlevel_server.title

    @property
    def description(self) -> str | None:
        return self._lowlevel_server.description

    @property
    def instructions(self) -> str | None:
        return self._lowlevel_server.instructions

    @property
    def website_url(self) -> str | None:
        return self._lowlevel_server.website_url

    @property
    def icons(self) -> list[Any] | None:
        return self._lowlevel_server.icons

    @property
    def version(self) -> str:
        return self._lowlevel_server.version

    @property
    def middleware(self) -> list[Any]:
        return self._lowlevel_server.middleware

    def _capabilities(self, caps: dict[str, Any]) -> dict[str, Any]:
        caps["prompts"] = {"listChanged": True}
        caps["resources"] = {"subscribe": True, "listChanged": True}
        caps["tools"] = {"listChanged": True}
        return caps

    @property
    def settings(self) -> Any:
        """The constructor's settings as a `Settings` model (built on first use)."""
        settings = self._settings
        if settings is None:
            from mcp.server.mcpserver.settings import Settings

            settings = self._settings = Settings.model_validate(self._options)
        return settings

    def _setting(self, name: str) -> Any:
        """One setting, without building the `Settings` model when it was never asked for."""
        settings = self._settings
        return self._options[name] if settings is None else getattr(settings, name)

    def _header_params(self, name: str, arguments: Mapping[str, Any], header_lines: Iterable[tuple[str, str]]) -> str | None:
        """The 2026-07-28 `Mcp-Param-*` check of a call (`mcp.server.param_headers`) against this
        registry's tool, as the official `get_tool_input_schema` lookup: an unknown tool is dispatch's."""
        tool = self._tools.get(name)
        return None if tool is None else tool.header_mismatch(arguments, header_lines)

    # -- tools --------------------------------------------------------------------------------

    def tool(
        self,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        annotations: Any = None,
        icons: list[Any] | None = None,
        meta: dict[str, Any] | None = None,
        structured_output: bool | None = None,
        input_schema: dict[str, Any] | None = None,
        required_scopes: list[str] | None = None,
    ) -> Callable[[F], F]:
        """Register a function as a tool: `@mcp.tool()` (the parentheses are required).

        Beyond the official API: `input_schema=` publishes a JSON Schema verbatim instead of the
        one generated from the signature (arguments are then checked against it);
        `required_scopes=` makes calls over authenticated HTTP need those token scopes (else
        `403 insufficient_scope`) and hides the tool from `tools/list` for tokens without them."""
        if callable(name):
            raise _misuse("tool", "tool()")

        def decorator(fn: F) -> F:
            self.add_tool(fn, name=name, title=title, description=description, annotations=annotations,
                          icons=icons, meta=meta, structured_output=structured_output, input_schema=input_schema,
                          required_scopes=required_scopes)
            return fn

        return decorator

    def add_tool(
        self,
        fn: Callable[..., Any],
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        annotations: Any = None,
        icons: list[Any] | None = None,
        meta: dict[str, Any] | None = None,
        structured_output: bool | None = None,
        input_schema: dict[str, Any] | None = None,
        required_scopes: list[str] | None = None,
    ) -> None:
        base = sys.modules.get("mcp.server.mcpserver.tools.base")
        if base is not None and isinstance(fn, base.Tool):  # an official-style `Tool` model
            tool = cast("Any", fn).compiled
        else:
            tool = RegisteredTool(fn, name=name, title=title, description=description, annotations=annotations,
                                  icons=icons, meta=meta, structured_output=structured_output,
                                  input_schema=input_schema)
        tool.mask_errors = self._mask_error_details
        if tool.name in self._tools:
            if self._setting("warn_on_duplicate_tools"):
                _duplicates_logger.warning("Tool already exists: %s", tool.name)
            return
        from mcp.shared.tool_name_validation import validate_and_warn_tool_name

        validate_and_warn_tool_name(tool.name)  # a non-SEP-986 name is registered, with a warning
        self._tools[tool.name] = tool
        self._tools_result = None
        if required_scopes:
            self._scope_requirements().require("tool", tool.name, required_scopes)

    def _scope_requirements(self) -> Any:
        """The server's `ScopeRequirements` (made on first use; the HTTP gate and lists read it)."""
        if self._lowlevel_server.scope_requirements is None:
            from mcp.server.auth.scopes import ScopeRequirements

            self._lowlevel_server.scope_requirements = ScopeRequirements()
        return self._lowlevel_server.scope_requirements

    def remove_tool(self, name: str) -> None:
        if name not in self._tools:
            from mcp.shared.exceptions import ToolError

            raise ToolError(f"Unknown tool: {name}")
        del self._tools[name]
        self._tools_result = None

    async def list_tools(self) -> list[Any]:
        return [t.to_tool() for t in self._tools.values()]

    async def call_tool(self, name: str, arguments: dict[str, Any] | None = None, context: Context | None = None) -> Any:
        """Call the tool `name`: its `CallToolResult` (or the `InputRequiredResult` it answered with).

        Raises `ToolError` for an unknown tool, arguments that fail validation, or a `ToolError` /
        `ResourceError` the tool raised; `UnexpectedToolError` for anything else it raised or a
        return value that fails conversion (`__cause__` is the original); `MCPError` unchanged.
        (tools/call answers the same failures as `is_error` results carrying the error's text.)"""
        tool = self._tools.get(name)
        if tool is None:
            from mcp.shared.exceptions import ToolError

            raise ToolError(f"Unknown tool: {name}")
        return await tool.call(arguments, context if context is not None else handlers.new_context(None, self))

    # -- resources ----------------------------------------------------------------------------

    def resource(
        self,
        uri: str,
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        mime_type: str | None = None,
        icons: list[Any] | None = None,
        annotations: Any = None,
        meta: dict[str, Any] | None = None,
        security: Any = None,
        required_scopes: list[str] | None = None,
    ) -> Callable[[F], F]:
        """Register a function as a resource (`@mcp.resource("data://x")`) or, when the URI has
        variables, as a resource template (`@mcp.resource("users://{id}")`). `required_scopes=`
        (beyond the official API): see `tool()`; for a template it covers every URI it expands to."""
        if callable(uri):
            raise _misuse("resource", "resource('uri')")

        def decorator(fn: F) -> F:
            self._resources.resource_decorator_target(
                fn, uri, name=name, title=title, description=description, mime_type=mime_type, icons=icons,
                annotations=annotations, meta=meta, security=security,
            )
            if required_scopes:
                self._scope_requirements().require("resource", uri, required_scopes)
            return fn

        return decorator

    def add_resource(self, resource: Any) -> None:
        self._resources.add_resource(resource)

    async def list_resources(self) -> list[Any]:
        return self._resources.list_resources()

    async def list_resource_templates(self) -> list[Any]:
        return self._resources.list_templates()

    async def read_resource(self, uri: str, context: Context | None = None) -> Any:
        return await self._resources.read(str(uri), context if context is not None else handlers.new_context(None, self))

    # -- prompts and completions --------------------------------------------------------------

    def prompt(self, name: str | None = None, title: str | None = None, description: str | None = None,
               icons: list[Any] | None = None, *, required_scopes: list[str] | None = None) -> Callable[[F], F]:
        """Register a function as a prompt: `@mcp.prompt()`. `required_scopes=` (beyond the
        official API): see `tool()`."""
        if callable(name):
            raise _misuse("prompt", "prompt()")

        def decorator(fn: F) -> F:
            from mcp.server.mcpserver.prompts import Prompt

            prompt = Prompt.from_function(fn, name=name, title=title, description=description, icons=icons)
            self.add_prompt(prompt)
            if required_scopes:
                self._scope_requirements().require("prompt", prompt.name, required_scopes)
            return fn

        return decorator

    def add_prompt(self, prompt: Any) -> None:
        self._prompts.add_prompt(prompt)

    def remove_prompt(self, name: str) -> None:
        self._prompts.remove_prompt(name)

    async def list_prompts(self) -> list[Any]:
        return self._prompts.list_prompts()

    async def get_prompt(self, name: str, arguments: dict[str, Any] | None = None, context: Context | None = None) -> Any:
        """The `GetPromptResult` of the prompt called `name` (an `InputRequiredResult` from its
        function as is). Any failure but an `MCPError` is raised as `ValueError` with the
        original's text: "Unknown prompt: NAME", "Missing required arguments: {...}" or "Error
        rendering prompt NAME" (the prompts/get answer's message, as officially)."""
        from mcp.server.mcpserver.prompts.base import prompt_result
        from mcp.types import InputRequiredResult

        try:
            prompt = self._prompts.get_prompt(name)
            if prompt is None:
                raise ValueError(f"Unknown prompt: {name}")
            rendered = await prompt.render(arguments, context if context is not None else handlers.new_context(None, self))
            if isinstance(rendered, InputRequiredResult):
                return rendered
            return prompt_result(prompt.description, rendered)
        except MCPError:
            raise
        except Exception as exc:
            raise ValueError(str(exc)) from exc

    def completion(self) -> Callable[[F], F]:
        """Register the one completion handler: `async (ref, argument, context) -> Completion | None`."""

        def decorator(fn: F) -> F:
            from mcp.server.mcpserver.completions import RegisteredCompletion

            self._completion = RegisteredCompletion(fn)
            self._lowlevel_server._request_handlers["completion/complete"] = _completion_entry(self)
            return fn

        return decorator

    # -- change notifications -----------------------------------------------------------------

    async def _publish(self, event: Any) -> None:
        await self._bus.publish(event)

    @property
    def _sessions_shared(self) -> bool:
        """Handshake-era HTTP sessions are shared through `state=`: resource updates reach them
        from the shared bus (on the worker holding each GET stream), not from this process's list."""
        manager = self._lowlevel_server._session_manager
        return self._state is not None and manager is not None and manager.session_store is not None

    # -- running ------------------------------------------------------------------------------

    def run(self, transport: Literal["stdio", "sse", "streamable-http"] = "stdio", **options: Any) -> None:
        """Serve until stopped: stdio by default, or over HTTP with uvicorn. Runs on uvloop when it
        is installed (it is a dependency on CPython outside Windows)."""
        if transport == "stdio":
            unknown = set(options) - {"max_message_size", "max_queued_output"}
            if unknown:
                raise TypeError(f"run(transport='stdio') got unexpected option(s) {sorted(unknown)}")
            _run_loop(lambda: self.run_stdio_async(**options))
        elif transport == "streamable-http":
            _run_loop(lambda: self.run_streamable_http_async(**options))
        elif transport == "sse":
            _run_loop(lambda: self.run_sse_async(**options))
        else:
            raise ValueError(f"Unknown transport: {transport!r}")

    async def run_stdio_async(self, max_message_size: int | None = None, max_queued_output: int | None = None) -> None:
        """Serve over stdin/stdout; lines longer than `max_message_size` bytes are refused, and
        while `max_queued_output` bytes of answers wait for the client to read them, no new
        request starts (defaults: 16 MiB and 1 MiB)."""
        from mcp._engine.stdio_pump import DEFAULT_MAX_QUEUED_OUTPUT
        from mcp._protocol.framing import DEFAULT_MAX_LINE
        from mcp.server.stdio import stdio_server

        async with stdio_server(max_message_size=max_message_size or DEFAULT_MAX_LINE,
                                max_queued_output=max_queued_output or DEFAULT_MAX_QUEUED_OUTPUT) as (read_stream, write_stream):
            await self._lowlevel_server.run(read_stream, write_stream)

    async def run_streamable_http_async(self, **options: Any) -> None:
        from mcp.server.streamable_http_app import serve

        options.setdefault("custom_starlette_routes", self._custom_routes)
        options.setdefault("log_level", self._setting("log_level"))
        self._auth_options(options)
        await serve(self._lowlevel_server, **options)

    async def run_sse_async(self, **options: Any) -> None:
        from mcp.server.streamable_http_app import serve_sse

        options.setdefault("custom_starlette_routes", self._custom_routes)
        options.setdefault("log_level", self._setting("log_level"))
        self._auth_options(options)
        await serve_sse(self._lowlevel_server, **options)

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
        max_sessions_per_client: int | None = DEFAULT_MAX_SESSIONS_PER_CLIENT,
        trusted_proxies: TrustedProxies = None,
    ) -> Starlette:
        """An ASGI (Starlette) app serving this server over Streamable HTTP at
        `streamable_http_path`, with the server's custom routes and auth; mountable as is.
        `session_idle_timeout` / `max_sessions` / `max_sessions_per_client` of None mean no
        eviction / no bound. `max_sessions_per_client` counts a token's subject, or an address only
        with `trusted_proxies` (see `mcp.server.http_limits.SessionsPerClient`)."""
        options: dict[str, Any] = {
            "streamable_http_path": streamable_http_path, "json_response": json_response,
            "stateless_http": stateless_http, "event_store": event_store, "retry_interval": retry_interval,
            "max_request_body_size": max_request_body_size, "session_idle_timeout": session_idle_timeout,
            "max_sessions": max_sessions, "transport_security": transport_security, "host": host,
            "max_sessions_per_client": max_sessions_per_client, "trusted_proxies": trusted_proxies,
            "custom_starlette_routes": self._custom_routes, "debug": self._setting("debug"),
        }
        self._auth_options(options)
        return self._lowlevel_server.streamable_http_app(**options)

    def _auth_options(self, options: dict[str, Any]) -> None:
        if self._setting("auth") is not None:
            options.setdefault("auth", self._setting("auth"))
            options.setdefault("token_verifier", self._token_verifier)
            options.setdefault("auth_server_provider", self._auth_server_provider)
            self._scope_requirements()  # the gate holds it: scopes registered after the app count too

    def sse_app(self, **options: Any) -> Any:
        """An ASGI app for the legacy HTTP+SSE transport; with the server's auth settings, both of its
        endpoints require a bearer token, as officially."""
        from mcp.server.sse import build_sse_app

        options.setdefault("custom_starlette_routes", self._custom_routes)
        self._auth_options(options)
        return build_sse_app(self._lowlevel_server, **options)

    @property
    def session_manager(self) -> Any:
        """The Streamable HTTP session manager (e.g. to run it when mounting several servers in
        one ASGI app); RuntimeError before `streamable_http_app()` has been called."""
        return self._lowlevel_server.session_manager

    def custom_route(self, path: str, methods: list[str], name: str | None = None,
                     include_in_schema: bool = True) -> Callable[[F], F]:
        """Add a plain HTTP route (e.g. a health check) to the HTTP apps; never authenticated."""

        def decorator(fn: F) -> F:
            from starlette.routing import Route

            self._custom_routes.append(Route(path, endpoint=fn, methods=methods, name=name,
                                             include_in_schema=include_in_schema))
            return fn

        return decorator



def _completion_entry(server: MCPServer) -> Any:
    return HandlerEntry(_LazyParams("CompleteRequestParams", False), functools.partial(handlers.complete, server))


def _run_loop(main: Callable[[], Any]) -> None:
    """`anyio.run` on asyncio, with uvloop when available (set MCP_NO_UVLOOP=1 to opt out)."""
    import os

    import anyio

    options: dict[str, Any] = {}
    if not os.environ.get("MCP_NO_UVLOOP"):
        try:
            import uvloop  # noqa: F401  # pyright: ignore[reportMissingImports, reportUnusedImport]

            options["use_uvloop"] = True
        except ImportError:
            pass
    anyio.run(main, backend="asyncio", backend_options=options)


class _ToolRegistryView:
    """`MCPServer._tool_manager`: `_tools` is the server's own registry. Handing it out drops the cached
    `tools/list` result, since whoever asked for the dict may change it."""

    __slots__ = ("_server",)

    def __init__(self, server: MCPServer[Any]) -> None:
        self._server = server

    @property
    def _tools(self) -> dict[str, RegisteredTool]:
        self._server._tools_result = None
        return self._server._tools
