"""How an `MCPServer` is served: stdio, Streamable HTTP or legacy SSE (run here, or as an ASGI app
to mount), with the server's auth settings and custom routes.

`ServerRunning` is that part of `MCPServer`; its state is set up by `MCPServer.__init__`.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

from mcp._protocol.http import (
    DEFAULT_MAX_REQUEST_BODY_SIZE,
    DEFAULT_MAX_SESSIONS,
    DEFAULT_MAX_SESSIONS_PER_CLIENT,
    DEFAULT_SESSION_IDLE_TIMEOUT,
)
from mcp.server.mcpserver._registration import F
from mcp.server.mcpserver.handlers import ServerHandlers
from mcp.server.mcpserver.run_environment import resolve_run

if TYPE_CHECKING:
    from starlette.applications import Starlette

    from mcp.server.event_store import EventStore
    from mcp.server.http_limits import TrustedProxies
    from mcp.server.transport_security import TransportSecuritySettings


class ServerRunning(ServerHandlers):
    """The serving part of `MCPServer` (see the module docstring)."""

    _custom_routes: list[Any]
    _token_verifier: Any
    _auth_server_provider: Any

    # -- running ------------------------------------------------------------------------------

    def run(self, transport: Literal["stdio", "sse", "streamable-http"] = "stdio", **options: Any) -> None:
        """Serve until stopped: stdio by default, or over HTTP with uvicorn. Runs on uvloop when it
        is installed (it is a dependency on CPython outside Windows). Arguments win over the
        `MCP_TRANSPORT`/`MCP_HOST`/`MCP_PORT`/... environment (see `run_environment`), which wins
        over the defaults."""
        transport, options = resolve_run(transport, options, os.environ)  # pyright: ignore[reportAssignmentType]
        if transport == "stdio":
            unknown = set(options) - {"max_message_size", "max_queued_output"}
            if unknown:
                raise TypeError(f"run(transport='stdio') got unexpected option(s) {sorted(unknown)}")
            _run_loop(lambda: self.run_stdio_async(**options), native=True)
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


def _run_loop(main: Callable[[], Any], *, native: bool = False) -> None:
    """`anyio.run` on asyncio, with uvloop when available (set MCP_NO_UVLOOP=1 to opt out).
    `native`: the same loop run by asyncio's own runner (`mcp._engine.native.run`), which loads
    no anyio: a stdio server that uses no anyio feature starts without it."""
    import os

    options: dict[str, Any] = {}
    if not os.environ.get("MCP_NO_UVLOOP"):
        try:
            import uvloop  # noqa: F401  # pyright: ignore[reportMissingImports, reportUnusedImport]

            options["use_uvloop"] = True
        except ImportError:
            pass
    if native:
        from mcp._engine import native as native_loop

        native_loop.run(main, use_uvloop=bool(options))
        return
    import anyio

    anyio.run(main, backend="asyncio", backend_options=options)
