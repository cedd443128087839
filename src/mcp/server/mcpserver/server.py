"""`MCPServer`: the high-level server. Decorated Python functions become MCP tools; the wire,
lifecycle and dispatch belong to the low-level `Server` it is built on."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any, Generic, Literal, TypeVar

from typing_extensions import TypeVar as DefaultTypeVar

from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel.server import Server
from mcp.server.mcpserver.context import Context
from mcp.server.mcpserver.tools import RegisteredTool, error_result

logger = logging.getLogger("mcp.server")

LifespanT = DefaultTypeVar("LifespanT", default=Any)
F = TypeVar("F", bound=Callable[..., Any])


def _misuse(decorator: str, example: str) -> TypeError:
    return TypeError(
        f"The @{decorator} decorator was used incorrectly. Did you forget to call it? "
        f"Use @{example} instead of @{decorator}"
    )


class Settings:
    """The server's settings (read-only view of constructor options)."""

    def __init__(self, **values: Any) -> None:
        self.__dict__.update(values)


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
        debug: bool = False,
        log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"] = "INFO",
        warn_on_duplicate_tools: bool = True,
        warn_on_duplicate_resources: bool = True,
        warn_on_duplicate_prompts: bool = True,
        dependencies: list[str] | None = None,
        lifespan: Callable[[MCPServer[LifespanT]], AbstractAsyncContextManager[LifespanT]] | None = None,
        cache_hints: dict[str, Any] | None = None,
        middleware: list[Any] | None = None,
        **unexpected: Any,
    ) -> None:
        if unexpected:
            raise TypeError(
                f"MCPServer() got unexpected keyword argument(s) {sorted(unexpected)}; transport options such as "
                "host or port go to run() or streamable_http_app()"
            )
        self.settings = Settings(
            debug=debug, log_level=log_level, warn_on_duplicate_tools=warn_on_duplicate_tools,
            warn_on_duplicate_resources=warn_on_duplicate_resources,
            warn_on_duplicate_prompts=warn_on_duplicate_prompts, dependencies=list(dependencies or []),
            lifespan=lifespan,
        )
        self.dependencies = self.settings.dependencies
        self._tools: dict[str, RegisteredTool] = {}
        self._tools_result: Any = None
        self._custom_routes: list[Any] = []
        self._lowlevel_server: Server[Any] = Server(
            name or "mcp-server",
            version=version, title=title, description=description, instructions=instructions,
            website_url=website_url, icons=icons, cache_hints=cache_hints,
            lifespan=self._lifespan_wrapper(lifespan),
            on_list_tools=self._on_list_tools,
            on_call_tool=self._on_call_tool,
            on_set_logging_level=self._on_set_logging_level,
        )
        self._lowlevel_server._capability_hook = self._capabilities
        if middleware:
            self._lowlevel_server.middleware.extend(middleware)
        for tool in tools or ():
            self.add_tool(tool)
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

    def _capabilities(self, caps: Any) -> Any:
        from mcp.types import PromptsCapability, ResourcesCapability, ToolsCapability

        caps.logging = None  # served for old clients, but deprecated: not advertised
        caps.tools = ToolsCapability(list_changed=True)
        caps.resources = ResourcesCapability(subscribe=True, list_changed=True)
        caps.prompts = PromptsCapability(list_changed=True)
        return caps

    def _lifespan_wrapper(self, lifespan: Any) -> Callable[[Any], AbstractAsyncContextManager[Any]]:
        @asynccontextmanager
        async def wrapped(_server: Any) -> AsyncIterator[Any]:
            if lifespan is None:
                yield {}
            else:
                async with lifespan(self) as state:
                    yield state

        return wrapped

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
    ) -> Callable[[F], F]:
        """Register a function as a tool: `@mcp.tool()` (the parentheses are required)."""
        if callable(name):
            raise _misuse("tool", "tool()")

        def decorator(fn: F) -> F:
            self.add_tool(fn, name=name, title=title, description=description, annotations=annotations,
                          icons=icons, meta=meta, structured_output=structured_output)
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
    ) -> None:
        tool = RegisteredTool(fn, name=name, title=title, description=description, annotations=annotations,
                              icons=icons, meta=meta, structured_output=structured_output)
        if tool.name in self._tools:
            if self.settings.warn_on_duplicate_tools:
                logger.warning("Tool already exists: %s", tool.name)
            return
        self._tools[tool.name] = tool
        self._tools_result = None

    def remove_tool(self, name: str) -> None:
        if name not in self._tools:
            from mcp.shared.exceptions import ToolError

            raise ToolError(f"Unknown tool: {name}")
        del self._tools[name]
        self._tools_result = None

    async def list_tools(self) -> list[Any]:
        return [t.to_tool() for t in self._tools.values()]

    async def call_tool(self, name: str, arguments: dict[str, Any] | None = None, context: Context | None = None) -> Any:
        tool = self._tools.get(name)
        if tool is None:
            return error_result(f"Unknown tool: {name}")
        return await tool.call(arguments, context if context is not None else Context(None, self))

    async def _on_list_tools(self, ctx: ServerRequestContext[Any], params: Any) -> Any:
        result = self._tools_result
        if result is None:
            from mcp.types import ListToolsResult

            result = self._tools_result = ListToolsResult(tools=[t.to_tool() for t in self._tools.values()])
        return result

    async def _on_call_tool(self, ctx: ServerRequestContext[Any], params: Any) -> Any:
        tool = self._tools.get(params.name)
        if tool is None:
            return error_result(f"Unknown tool: {params.name}")
        return await tool.call(params.arguments, Context(ctx, self) if tool.signature.context_param else None)

    async def _on_set_logging_level(self, ctx: ServerRequestContext[Any], params: Any) -> Any:
        from mcp.types import EmptyResult

        ctx.session.log_level = params.level
        return EmptyResult()

    # -- running ------------------------------------------------------------------------------

    def run(self, transport: Literal["stdio", "sse", "streamable-http"] = "stdio", **options: Any) -> None:
        """Serve until stopped: stdio by default, or over HTTP with uvicorn."""
        import anyio

        if transport == "stdio":
            unknown = set(options) - {"max_message_size"}
            if unknown:
                raise TypeError(f"run(transport='stdio') got unexpected option(s) {sorted(unknown)}")
            anyio.run(lambda: self.run_stdio_async(**options))
        elif transport == "streamable-http":
            anyio.run(lambda: self.run_streamable_http_async(**options))
        elif transport == "sse":
            anyio.run(lambda: self.run_sse_async(**options))
        else:
            raise ValueError(f"Unknown transport: {transport!r}")

    async def run_stdio_async(self, max_message_size: int | None = None) -> None:
        """Serve over stdin/stdout; lines longer than `max_message_size` bytes are refused."""
        from mcp._protocol.framing import DEFAULT_MAX_LINE
        from mcp.server.stdio import stdio_server

        async with stdio_server(max_message_size or DEFAULT_MAX_LINE) as (read_stream, write_stream):
            await self._lowlevel_server.run(read_stream, write_stream)

    async def run_streamable_http_async(self, **options: Any) -> None:
        from mcp.server.streamable_http_app import serve

        options.setdefault("custom_starlette_routes", self._custom_routes)
        await serve(self._lowlevel_server, log_level=self.settings.log_level, **options)

    async def run_sse_async(self, **options: Any) -> None:
        from mcp.server.streamable_http_app import serve_sse

        options.setdefault("custom_starlette_routes", self._custom_routes)
        await serve_sse(self._lowlevel_server, log_level=self.settings.log_level, **options)

    def streamable_http_app(self, **options: Any) -> Any:
        """An ASGI (Starlette) app serving this server over Streamable HTTP; mountable as is."""
        if "port" in options:
            raise TypeError("streamable_http_app() takes no port; pass it to run() or to your ASGI server")
        options.setdefault("custom_starlette_routes", self._custom_routes)
        options.setdefault("debug", self.settings.debug)
        return self._lowlevel_server.streamable_http_app(**options)

    def sse_app(self, **options: Any) -> Any:
        """An ASGI app for the legacy HTTP+SSE transport."""
        from mcp.server.sse import build_sse_app

        options.setdefault("custom_starlette_routes", self._custom_routes)
        return build_sse_app(self._lowlevel_server, **options)

    @property
    def session_manager(self) -> Any:
        manager = getattr(self._lowlevel_server, "session_manager", None)
        if manager is None:
            raise RuntimeError("session_manager is available only after streamable_http_app() has been called")
        return manager

    def custom_route(self, path: str, methods: list[str], name: str | None = None,
                     include_in_schema: bool = True) -> Callable[[F], F]:
        """Add a plain HTTP route (e.g. a health check) to the HTTP apps; never authenticated."""

        def decorator(fn: F) -> F:
            from starlette.routing import Route

            self._custom_routes.append(Route(path, endpoint=fn, methods=methods, name=name,
                                             include_in_schema=include_in_schema))
            return fn

        return decorator

