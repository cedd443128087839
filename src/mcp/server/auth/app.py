"""`wrap_with_auth`: protect an MCP endpoint ASGI app with bearer tokens.

    endpoint, extra_routes = wrap_with_auth(manager, token_verifier=verifier, auth=settings, mcp_path="/mcp")
    routes = [Route("/mcp", endpoint=endpoint, methods=["GET", "POST", "DELETE"]), *extra_routes]

`extra_routes` holds the RFC 9728 protected resource metadata route
(`/.well-known/oauth-protected-resource<path>`, the path of `resource_server_url`, else
`mcp_path`) and, with `auth_server_provider=`, the embedded authorization server's routes first.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast
from urllib.parse import urlsplit

from starlette.routing import Route

from mcp._protocol.http import DEFAULT_MAX_REQUEST_BODY_SIZE
from mcp.server.auth.middleware.bearer_auth import ASGIApp, RequireBearerAuth, Scope
from mcp.server.auth.provider import OAuthAuthorizationServerProvider, ProviderTokenVerifier, TokenVerifier
from mcp.server.auth.routes import (
    PRM_WELL_KNOWN,
    create_auth_routes,
    create_protected_resource_routes,
    url_string,
)
from mcp.server.auth.scopes import ScopeRequirements
from mcp.server.auth.settings import AuthSettings


def wrap_with_auth(
    app: ASGIApp,
    *,
    token_verifier: TokenVerifier | None = None,
    auth: AuthSettings,
    mcp_path: str = "/mcp",
    auth_server_provider: OAuthAuthorizationServerProvider[Any, Any, Any] | None = None,
    scope_requirements: ScopeRequirements | None = None,
    gate: bool = True,
    max_request_body_size: int | None = None,
) -> tuple[ASGIApp, list[Route]]:
    """`(gated_app, extra_routes)`: `app` behind the bearer-token gate, and the routes to add to
    the application (see the module docstring). With only `auth_server_provider`, tokens are
    verified with its `load_access_token`. `scope_requirements` (per tool, prompt, resource) are
    enforced by the gate with `403 insufficient_scope`; to see what a POST calls, the gate reads
    at most `max_request_body_size` bytes of its body (`app`'s own limit, by default its
    `max_request_body_size` attribute, else 4 MiB: a larger body is `app`'s to refuse, with its
    413). `gate=False` returns `app` itself, ungated, with the routes."""
    if token_verifier is None and gate:
        if auth_server_provider is None:
            raise ValueError("wrap_with_auth needs a token_verifier or an auth_server_provider")
        token_verifier = ProviderTokenVerifier(auth_server_provider)
    routes: list[Route] = []
    if auth_server_provider is not None:
        routes.extend(create_auth_routes(
            auth_server_provider,
            issuer_url=auth.issuer_url,
            service_documentation_url=auth.service_documentation_url,
            client_registration_options=auth.client_registration_options,
            revocation_options=auth.revocation_options,
            identity_assertion_enabled=auth.identity_assertion_enabled,
        ))
    resource_url = auth.resource_server_url
    routes.extend(create_protected_resource_routes(
        resource_url,
        [auth.issuer_url],
        scopes_supported=auth.required_scopes,
        resource_documentation=auth.service_documentation_url,
        mcp_path=mcp_path,
    ))

    if token_verifier is None or not gate:
        return app, routes

    path = urlsplit(str(resource_url)).path.rstrip("/") if resource_url is not None else mcp_path.rstrip("/")

    def request_metadata_url(scope: Scope) -> str:
        return f"{_base_url(scope)}{PRM_WELL_KNOWN}{path}"

    def request_resource(scope: Scope) -> str:
        return f"{_base_url(scope)}{path}"

    metadata_url: str | Callable[[Scope], str] = request_metadata_url
    resource: str | Callable[[Scope], str] = request_resource
    if resource_url is not None:
        parts = urlsplit(str(resource_url))
        metadata_url = f"{parts.scheme}://{parts.netloc}{PRM_WELL_KNOWN}{path}"
        resource = url_string(resource_url)

    bind_resource = getattr(token_verifier, "bind_resource", None)
    if callable(bind_resource) and resource_url is not None:
        bind_resource(url_string(resource_url))  # verifiers checking `aud` default to this resource
    gated = RequireBearerAuth(
        app,
        token_verifier,
        required_scopes=auth.required_scopes,
        resource_metadata_url=metadata_url,
        resource=resource,
        validate_resource=bool(auth.validate_token_resource),
        scope_requirements=scope_requirements,
        max_body_size=max_request_body_size if max_request_body_size is not None
        else getattr(app, "max_request_body_size", DEFAULT_MAX_REQUEST_BODY_SIZE),
    )
    return gated, routes


def _base_url(scope: Scope) -> str:
    """`scheme://host` of the request (from the `Host` header, else the server address)."""
    scheme = scope.get("scheme", "http")
    host = None
    headers = cast(list[tuple[bytes, bytes]], scope.get("headers") or [])
    for name, value in headers:
        if name == b"host":
            host = value.decode("latin-1")
            break
    if host is None:
        server = scope.get("server")
        if server:
            address, port = server[0], server[1]
            default = {"http": 80, "https": 443}.get(scheme)
            host = address if port in (None, default) else f"{address}:{port}"
        else:
            host = "localhost"
    return f"{scheme}://{host}{scope.get('root_path', '')}".rstrip("/")


__all__ = ["wrap_with_auth"]
