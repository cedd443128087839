"""ASGI apps and uvicorn runners for the HTTP transports (Starlette and uvicorn are imported here
and in the transports only, never by `import mcp.server`)."""

from __future__ import annotations

from collections.abc import AsyncIterator, MutableMapping
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any, cast

from mcp._protocol.http import (
    DEFAULT_MAX_SESSIONS,
    DEFAULT_MAX_SESSIONS_PER_CLIENT,
    DEFAULT_SESSION_IDLE_TIMEOUT,
)
from mcp.server._http.request_path import DEFAULT_MAX_BODY, StreamableHTTPSessionManager

if TYPE_CHECKING:
    import asyncio

    from mcp.server.http_limits import TrustedProxies
    from mcp.server.transport_security import TransportSecuritySettings

_HTTP_OPTIONS = frozenset({"streamable_http_path", "json_response", "stateless_http", "event_store", "retry_interval",
                           "max_request_body_size", "transport_security", "host", "custom_starlette_routes", "debug",
                           "session_idle_timeout", "max_sessions", "max_sessions_per_client", "trusted_proxies", "auth", "token_verifier",
                           "auth_server_provider"})


def build_app(
    server: Any,
    *,
    streamable_http_path: str = "/mcp",
    json_response: bool = False,
    stateless_http: bool = False,
    event_store: Any = None,
    retry_interval: int | None = None,
    max_request_body_size: int = DEFAULT_MAX_BODY,
    transport_security: TransportSecuritySettings | None = None,
    host: str = "127.0.0.1",
    custom_starlette_routes: list[Any] | None = None,
    debug: bool = False,
    session_idle_timeout: float | None = DEFAULT_SESSION_IDLE_TIMEOUT,
    max_sessions: int | None = DEFAULT_MAX_SESSIONS,
    max_sessions_per_client: int | None = DEFAULT_MAX_SESSIONS_PER_CLIENT,
    trusted_proxies: TrustedProxies = None,
    auth: Any = None,
    token_verifier: Any = None,
    auth_server_provider: Any = None,
) -> Any:
    """A Starlette app serving `server` at `streamable_http_path` (plus any custom routes); with
    `auth`, the endpoint requires a bearer token and the protected-resource metadata is served."""
    from starlette.routing import Route

    manager = StreamableHTTPSessionManager(
        server, json_response=json_response, stateless=stateless_http, event_store=event_store,
        retry_interval=retry_interval, max_request_body_size=max_request_body_size,
        security_settings=transport_security if transport_security is not None else _default_security(host),
        session_idle_timeout=session_idle_timeout, max_sessions=max_sessions,
        max_sessions_per_client=max_sessions_per_client, trusted_proxies=trusted_proxies,
    )
    server.session_manager = manager

    @asynccontextmanager
    async def lifespan(_app: Any) -> AsyncIterator[None]:
        async with manager.run():
            yield

    endpoint: Any = manager
    auth_routes: list[Any] = []
    if auth is not None:
        from mcp.server.auth.app import wrap_with_auth

        # without a token verifier the endpoint is not gated: only the metadata (and authorization
        # server) routes are served, as in the official SDK's low-level server
        endpoint, auth_routes = wrap_with_auth(endpoint, token_verifier=token_verifier, auth=auth,
                                               mcp_path=streamable_http_path, auth_server_provider=auth_server_provider,
                                               scope_requirements=getattr(server, "scope_requirements", None),
                                               gate=token_verifier is not None,
                                               max_request_body_size=max_request_body_size)
    mcp_route = Route(streamable_http_path, endpoint=endpoint)  # every method: the endpoint answers 405 itself
    routes = [mcp_route, *auth_routes, *(custom_starlette_routes or [])]
    return _app_class()(mcp_route, debug=debug, routes=routes, lifespan=lifespan)


_app_class_cache: Any = None


def _app_class() -> Any:
    """`McpStarlette`, defined on first use so that Starlette is imported only by `build_app`."""
    global _app_class_cache
    if _app_class_cache is None:
        from starlette.applications import Starlette

        class McpStarlette(Starlette):
            """A Starlette app that hands requests for the MCP endpoint straight to it.

            What Starlette would do for them is only routing (the MCP route comes first, so nothing
            else can match its path) and error middleware that has nothing to catch; skipping it
            is a measurable share of a small request's cost. Anything else (other paths, a mount
            prefix, added middleware or exception handlers, debug) goes through
            Starlette as usual."""

            def __init__(self, mcp_route: Any, **kwargs: Any) -> None:
                super().__init__(**kwargs)
                self._mcp_route = mcp_route
                literal = "{" not in mcp_route.path
                self._mcp_path: str | None = mcp_route.path if literal else None
                self._direct: bool | None = None
                """Whether the MCP endpoint may be called directly; decided on the first request,
                when Starlette freezes its middleware."""

            async def __call__(self, scope: MutableMapping[str, Any], receive: Any, send: Any) -> None:
                if (scope["type"] == "http" and scope["path"] == self._mcp_path and not scope.get("root_path")
                        and self._may_bypass()):
                    scope["app"] = self
                    scope["router"] = self.router
                    scope["route"] = self._mcp_route
                    scope["endpoint"] = self._mcp_route.endpoint
                    scope["path_params"] = {}
                    await self._mcp_route.app(scope, receive, send)
                    return
                await super().__call__(scope, receive, send)

            def _may_bypass(self) -> bool:
                if self._direct is None:
                    if self.middleware_stack is None:
                        self.middleware_stack = self.build_middleware_stack()  # no middleware added from now on
                    self._direct = (not self.user_middleware and not self.exception_handlers and not self.debug
                                    and getattr(self, "max_body_size", None) is None)
                return self._direct

        _app_class_cache = McpStarlette
    return _app_class_cache


_LIMIT_OPTIONS = frozenset({"max_header_size", "header_timeout", "body_timeout", "keep_alive_timeout", "send_timeout",
                            "max_connections", "max_connections_per_client"})
"""`run()` options for the connection limits (`mcp.server.http_limits.HttpLimits`)."""


def _limits(options: dict[str, Any]) -> Any:
    """Take the connection-limit options out of `options`, as an `HttpLimits` (the defaults made
    now: `max_connections` follows the open-files limit at the time `run()` is called)."""
    from mcp.server.http_limits import HttpLimits

    return HttpLimits(**{name: options.pop(name) for name in _LIMIT_OPTIONS & set(options)})


async def serve(server: Any, *, host: str = "127.0.0.1", port: int = 8000, log_level: str = "info",
                access_log: bool | None = None, **options: Any) -> None:
    """Serve Streamable HTTP with uvicorn until cancelled."""
    unknown = set(options) - _HTTP_OPTIONS - _LIMIT_OPTIONS
    if unknown:
        raise TypeError(f"run(transport='streamable-http') got unexpected option(s) {sorted(unknown)}")
    limits = _limits(options)
    app = build_app(server, host=host, **options)
    await _uvicorn(uvicorn_config(app, host=host, port=port, log_level=log_level, access_log=access_log,
                                  keep_alive_timeout=limits.keep_alive_timeout), limits)


async def serve_sse(server: Any, *, host: str = "127.0.0.1", port: int = 8000, log_level: str = "info",
                    access_log: bool | None = None, **options: Any) -> None:
    from mcp.server.sse import build_sse_app

    limits = _limits(options)
    app = build_sse_app(server, host=host, **options)
    await _uvicorn(uvicorn_config(app, host=host, port=port, log_level=log_level, access_log=access_log,
                                  keep_alive_timeout=limits.keep_alive_timeout), limits)


def uvicorn_config(app: Any, *, host: str, port: int, log_level: str, access_log: bool | None = None,
                   keep_alive_timeout: float = 5.0) -> Any:
    """How `run()` configures uvicorn. Its access log (a line per HTTP request, which for MCP is
    one per message, all `POST /mcp`) is on only at log level DEBUG unless `access_log` says
    otherwise: writing it costs about a fifth of the server's CPU time per small tool call."""
    import uvicorn

    level = log_level.lower()
    if access_log is None:
        access_log = level in ("debug", "trace")
    return uvicorn.Config(app, host=host, port=port, log_level=level, lifespan="on", access_log=access_log,
                          timeout_keep_alive=cast("int", keep_alive_timeout))  # a float works: call_later


async def _uvicorn(config: Any, limits: Any = None) -> None:
    import uvicorn

    from mcp.server.http_limits import HttpLimits, guarded_protocol

    if not config.loaded:
        config.load()
    config.http_protocol_class = guarded_protocol(chunked_reads(config.http_protocol_class),
                                                  HttpLimits() if limits is None else limits)
    await uvicorn.Server(config).serve()


def chunked_reads(protocol_class: type[asyncio.BaseProtocol]) -> type[asyncio.BaseProtocol]:
    """`protocol_class` (uvicorn's HTTP protocol), reading each connection `fdio.CHUNK` bytes at a
    time: asyncio's socket transports ask for 256 KiB per read, which costs a fresh memory mapping
    and a page fault for every request (see `fdio.read_in_chunks`)."""
    from mcp._engine.fdio import read_in_chunks

    class ChunkedReads(protocol_class):
        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            read_in_chunks(transport)
            super().connection_made(transport)

    ChunkedReads.__name__ = ChunkedReads.__qualname__ = f"ChunkedReads{protocol_class.__name__}"
    return ChunkedReads


def _default_security(host: str) -> TransportSecuritySettings | None:
    from mcp.server.transport_security import default_for_host

    return default_for_host(host)
