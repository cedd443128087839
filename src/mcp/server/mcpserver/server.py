"""`MCPServer`: the high-level server. Decorated Python functions become MCP tools; the wire,
lifecycle and dispatch belong to the low-level `Server` it is built on.

This module is the official path of `MCPServer`; its parts live with their concepts:
`mcp.server.mcpserver._registration` (tools, resources, prompts, completions) and
`mcp.server.mcpserver._running` (stdio and the HTTP apps)."""

from __future__ import annotations

import logging
import os
import weakref
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import TYPE_CHECKING, Any, Generic, Literal

from typing_extensions import TypeVar as DefaultTypeVar

if TYPE_CHECKING:
    pass

from mcp._protocol.http import DEFAULT_MAX_REQUEST_BODY_SIZE as DEFAULT_MAX_REQUEST_BODY_SIZE
from mcp._protocol.http import DEFAULT_MAX_SESSIONS as DEFAULT_MAX_SESSIONS
from mcp._protocol.http import DEFAULT_MAX_SESSIONS_PER_CLIENT as DEFAULT_MAX_SESSIONS_PER_CLIENT
from mcp._protocol.http import DEFAULT_SESSION_IDLE_TIMEOUT as DEFAULT_SESSION_IDLE_TIMEOUT
from mcp.server.lowlevel.server import HandlerEntry, LazyParams, Server
from mcp.server.mcpserver._registration import F as F
from mcp.server.mcpserver._running import ServerRunning
from mcp.server.mcpserver.catalogue import advertised, capabilities_setting
from mcp.server.mcpserver.resources.security import DEFAULT_RESOURCE_SECURITY, ResourceSecurity
from mcp.server.mcpserver.run_environment import env_tool_timeout
from mcp.server.mcpserver.tools import RegisteredTool
from mcp.shared.exceptions import MCPError as MCPError

logger = logging.getLogger("mcp.server")

LifespanT = DefaultTypeVar("LifespanT", default=Any)

_OPTIONAL_PARAMS = ("tools/list", "resources/list", "resources/templates/list", "prompts/list")
"""The list methods whose handlers here take None for absent params (`LazyParams.optional`)."""


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


def _server_tool_timeout(given: float | None) -> float | None:
    """The server-wide tool timeout: `tool_timeout=`, else `MCP_TOOL_TIMEOUT` (see
    `run_environment`), checked; None when neither is set."""
    if given is None:
        return env_tool_timeout(os.environ)
    from mcp.server.mcpserver.tools.timeout import checked_timeout

    return checked_timeout("tool_timeout", given)


class MCPServer(ServerRunning, Generic[LifespanT]):
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
        capabilities: Any = None,
        tool_timeout: float | None = None,
        portable_schemas: bool = False,
        parameter_docs: bool = False,
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
        self._tool_timeout = _server_tool_timeout(tool_timeout)
        """Seconds a tool call may run unless its own `timeout=` says otherwise (None: no bound)."""
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
            lifespan=lifespan, auth=auth, tool_timeout=self._tool_timeout,
            portable_schemas=portable_schemas, parameter_docs=parameter_docs,
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
        self._catalogue = None
        self._capabilities_setting = capabilities_setting(capabilities)
        """`capabilities=`: None (the official default), "registered", or a wire-shaped override."""
        self._background: set[Any] = set()
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
        self._lowlevel_server: Server[Any] = Server(
            name or "mcp-server",
            version=version, title=title, description=description, instructions=instructions,
            website_url=website_url, icons=icons, cache_hints=cache_hints,
            lifespan=lifespan_wrapper(self, lifespan),
            on_list_tools=self._on_list_tools,
            on_call_tool=None,
            on_list_resources=self._on_list_resources,
            on_list_resource_templates=self._on_list_resource_templates,
            on_read_resource=self._on_read_resource,
            on_subscribe_resource=self._on_subscribe_resource,
            on_unsubscribe_resource=self._on_unsubscribe_resource,
            on_list_prompts=self._on_list_prompts,
            on_get_prompt=self._on_get_prompt,
            on_subscriptions_listen=self._listen,
        )
        lowlevel = self._lowlevel_server
        # tools/call takes its params raw (the handler reads them itself); a sync tool, resource or
        # prompt is served whole on a worker thread when its planner accepts the request
        lowlevel.set_request_entry("tools/call", HandlerEntry(None, self._on_call_tool, self._plan_call_tool))
        listing = LazyParams("PaginatedRequestParams", optional=True)
        for method in _OPTIONAL_PARAMS:  # our own list handlers read a missing params as None: no model built
            lowlevel.replace_request_entry(method, params_type=listing)
        lowlevel.replace_request_entry("resources/read", planner=self._plan_read_resource)
        if type(self).get_prompt is MCPServer.get_prompt:  # an override must see every prompts/get
            lowlevel.replace_request_entry("prompts/get", planner=self._plan_get_prompt)
        lowlevel.capability_hook = self._capabilities
        lowlevel.header_params = self._header_params
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
        setting = self._capabilities_setting
        if setting is not None:
            caps = advertised(caps, setting, self._registered())
        return caps

    # -- change notifications -----------------------------------------------------------------

    # The doors of `Context.notify_*` (package-internal).

    async def publish_change(self, event: Any) -> None:
        """Hand a change event to the subscription bus (`subscriptions/listen` streams; every
        worker's, when the bus is shared)."""
        await self._bus.publish(event)

    async def publish_resource_updated(self, uri: str) -> None:
        """Publish `ResourceUpdated(uri)`, and tell every handshake-era session of this process
        subscribed to `uri` (when sessions are shared, the bus carries it to their GET streams)."""
        from mcp.server.subscriptions import ResourceUpdated

        await self._bus.publish(ResourceUpdated(uri=uri))
        if self._sessions_shared:
            return  # the shared bus carries it to the subscribed sessions' GET streams, on every worker
        for session in list(self._subscribed_sessions):
            if uri in session.subscribed_uris:
                await session.send_resource_updated(uri)

    @property
    def _sessions_shared(self) -> bool:
        """Handshake-era HTTP sessions are shared through `state=`: resource updates reach them
        from the shared bus (on the worker holding each GET stream), not from this process's list."""
        manager = self._lowlevel_server.started_session_manager
        return self._state is not None and manager is not None and manager.session_store is not None

    @property
    def lowlevel_server(self) -> Server[Any]:
        """The low-level `Server` this one registers its handlers on (package-internal: what
        `mcp.server.extension.install_extensions` installs through)."""
        return self._lowlevel_server
