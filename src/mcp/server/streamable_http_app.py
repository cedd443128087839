"""ASGI apps and uvicorn runners for the HTTP transports (Starlette and uvicorn are imported here
and in the transports only, never by `import mcp.server`)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from mcp.server.streamable_http import DEFAULT_MAX_BODY, StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings, default_for_host

_HTTP_OPTIONS = frozenset({"streamable_http_path", "json_response", "stateless_http", "event_store", "retry_interval",
                           "max_request_body_size", "transport_security", "host", "custom_starlette_routes", "debug",
                           "session_idle_timeout", "max_sessions", "auth", "token_verifier", "auth_server_provider"})


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
    session_idle_timeout: float = 30 * 60,
    max_sessions: int = 10_000,
    auth: Any = None,
    token_verifier: Any = None,
    auth_server_provider: Any = None,
) -> Any:
    """A Starlette app serving `server` at `streamable_http_path` (plus any custom routes); with
    `auth`, the endpoint requires a bearer token and the protected-resource metadata is served."""
    from starlette.applications import Starlette
    from starlette.routing import Route

    manager = StreamableHTTPSessionManager(
        server, json_response=json_response, stateless=stateless_http, event_store=event_store,
        retry_interval=retry_interval, max_request_body_size=max_request_body_size,
        security_settings=transport_security if transport_security is not None else default_for_host(host),
        session_idle_timeout=session_idle_timeout, max_sessions=max_sessions,
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

        endpoint, auth_routes = wrap_with_auth(manager, token_verifier=token_verifier, auth=auth,
                                               mcp_path=streamable_http_path, auth_server_provider=auth_server_provider)
    routes = [Route(streamable_http_path, endpoint=endpoint, methods=["GET", "POST", "DELETE"]), *auth_routes,
              *(custom_starlette_routes or [])]
    return Starlette(debug=debug, routes=routes, lifespan=lifespan)


async def serve(server: Any, *, host: str = "127.0.0.1", port: int = 8000, log_level: str = "info", **options: Any) -> None:
    """Serve Streamable HTTP with uvicorn until cancelled."""
    unknown = set(options) - _HTTP_OPTIONS
    if unknown:
        raise TypeError(f"run(transport='streamable-http') got unexpected option(s) {sorted(unknown)}")
    app = build_app(server, host=host, **options)
    await _uvicorn(app, host, port, log_level)


async def serve_sse(server: Any, *, host: str = "127.0.0.1", port: int = 8000, log_level: str = "info",
                    **options: Any) -> None:
    from mcp.server.sse import build_sse_app

    app = build_sse_app(server, host=host, **options)
    await _uvicorn(app, host, port, log_level)


async def _uvicorn(app: Any, host: str, port: int, log_level: str) -> None:
    import uvicorn

    config = uvicorn.Config(app, host=host, port=port, log_level=log_level.lower(), lifespan="on")
    await uvicorn.Server(config).serve()
