"""Route assembly for authorization: the embedded authorization server and the protected
resource metadata document. The endpoints themselves live in `mcp.server.auth.handlers`.

- `create_auth_routes(provider, issuer_url, ...)`: RFC 8414 metadata, `/authorize`, `/token`,
  `/register` (RFC 7591, when enabled) and `/revoke` (RFC 7009, when enabled). The paths are
  relative to the application; the metadata advertises them under `issuer_url`.
- `create_protected_resource_routes(resource_url, ...)`: RFC 9728 metadata at
  `/.well-known/oauth-protected-resource<path of the resource>`.

Endpoints that browser-based clients call with a secret (metadata, token, register, revoke) allow
cross-origin requests; `/authorize` does not (clients redirect to it).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, cast
from urllib.parse import urlsplit

from pydantic import AnyHttpUrl, ConfigDict, TypeAdapter
from starlette.datastructures import Headers
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route, request_response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from mcp._protocol.http import DEFAULT_MAX_REQUEST_BODY_SIZE, VERSION_HEADER
from mcp.server.auth.handlers.authorize import AuthorizationHandler
from mcp.server.auth.handlers.metadata import MetadataHandler, ProtectedResourceMetadataHandler
from mcp.server.auth.handlers.register import RegistrationHandler
from mcp.server.auth.handlers.revoke import RevocationHandler
from mcp.server.auth.handlers.token import TokenHandler
from mcp.server.auth.middleware.client_auth import ClientAuthenticator
from mcp.server.auth.provider import OAuthAuthorizationServerProvider
from mcp.server.auth.settings import ClientRegistrationOptions, RevocationOptions
from mcp.shared.auth import JWT_BEARER_GRANT_TYPE, OAuthMetadata, ProtectedResourceMetadata

PRM_WELL_KNOWN = "/.well-known/oauth-protected-resource"
AS_WELL_KNOWN = "/.well-known/oauth-authorization-server"
AUTHORIZATION_PATH = "/authorize"
TOKEN_PATH = "/token"
REGISTRATION_PATH = "/register"
REVOCATION_PATH = "/revoke"

ID_JAG_GRANT_PROFILE = "urn:ietf:params:oauth:grant-profile:id-jag"
"""SEP-990: support for the identity-assertion flow is advertised as this grant profile."""

_LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "[::1]")


def validate_issuer_url(url: AnyHttpUrl) -> None:
    """Refuse (`ValueError`) an issuer RFC 8414 §2 does not allow: not HTTPS (loopback HTTP is
    allowed for development), or with a query or fragment."""
    if url.scheme != "https" and url.host not in _LOOPBACK_HOSTS:
        raise ValueError("Issuer URL must be HTTPS")
    if url.fragment:
        raise ValueError("Issuer URL must not have a fragment")
    if url.query:
        raise ValueError("Issuer URL must not have a query string")


def url_string(url: AnyHttpUrl | str) -> str:
    """A URL as published in metadata: as given, minus the `/` a URL type adds to an empty path
    (`https://auth.example.com/` -> `https://auth.example.com`)."""
    text = str(url)
    parts = urlsplit(text)
    if parts.path == "/" and not parts.query and not parts.fragment:
        return text[:-1]
    return text


def _cors(app: ASGIApp, allow_methods: list[str]) -> ASGIApp:
    return CORSMiddleware(app=app, allow_origins="*", allow_methods=allow_methods, allow_headers=[VERSION_HEADER])


class _BodyLimited:
    """`app` refusing request bodies over `limit` bytes with a 413 before it runs (the OAuth
    endpoints read whole bodies; this bounds what an unauthenticated caller can make them hold).
    A class, not a function, so `Route` treats it as an ASGI app."""

    def __init__(self, app: ASGIApp, limit: int = DEFAULT_MAX_REQUEST_BODY_SIZE) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = Headers(scope=scope).get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.limit:
            await _TOO_LARGE(scope, receive, send)
            return
        body = bytearray()
        pending: list[Message] = []
        while True:
            message = await receive()
            if message["type"] != "http.request":
                pending.append(message)
                break
            body.extend(message.get("body", b""))
            if len(body) > self.limit:
                await _TOO_LARGE(scope, receive, send)
                return
            if not message.get("more_body", False):
                break
        replay: list[Message] = [{"type": "http.request", "body": bytes(body), "more_body": False}, *pending]

        async def replayed() -> Message:
            return replay.pop(0) if replay else await receive()

        await self.app(scope, replayed, send)


_TOO_LARGE = PlainTextResponse("Request body too large", status_code=413)


def cors_middleware(handler: Callable[[Request], Response | Awaitable[Response]],
                    allow_methods: list[str]) -> ASGIApp:
    """`handler` as an ASGI app that answers cross-origin requests from any origin."""
    return _cors(request_response(handler), allow_methods)


_URL = TypeAdapter(AnyHttpUrl, config=ConfigDict(url_preserve_empty_path=True))


def _url(value: AnyHttpUrl | str) -> AnyHttpUrl:
    """A URL given as text parsed as the settings do (an empty path stays empty)."""
    return _URL.validate_python(value) if isinstance(value, str) else value


def _limited_cors(handler: Callable[[Request], Awaitable[Response]]) -> ASGIApp:
    """A POST endpoint: body-limited, with CORS outermost so a 413 carries CORS headers too."""
    return _cors(_BodyLimited(request_response(handler)), ["POST", "OPTIONS"])


def _endpoint(issuer_url: AnyHttpUrl, path: str) -> AnyHttpUrl:
    return AnyHttpUrl(str(issuer_url).rstrip("/") + path)


def build_metadata(
    issuer_url: AnyHttpUrl,
    service_documentation_url: AnyHttpUrl | None,
    client_registration_options: ClientRegistrationOptions,
    revocation_options: RevocationOptions,
    supports_identity_assertion: bool = False,
) -> OAuthMetadata:
    """The RFC 8414 document of the embedded authorization server at `issuer_url`."""
    issuer_url = _url(issuer_url)
    grant_types = ["authorization_code", "refresh_token"]
    grant_profiles: list[str] | None = None
    if supports_identity_assertion:
        grant_types.append(JWT_BEARER_GRANT_TYPE)
        grant_profiles = [ID_JAG_GRANT_PROFILE]
    metadata = OAuthMetadata(
        issuer=issuer_url,
        authorization_endpoint=_endpoint(issuer_url, AUTHORIZATION_PATH),
        token_endpoint=_endpoint(issuer_url, TOKEN_PATH),
        scopes_supported=client_registration_options.valid_scopes,
        response_types_supported=["code"],
        grant_types_supported=grant_types,
        token_endpoint_auth_methods_supported=["client_secret_post", "client_secret_basic"],
        service_documentation=service_documentation_url,
        code_challenge_methods_supported=["S256"],
        authorization_grant_profiles_supported=grant_profiles,
    )
    if client_registration_options.enabled:
        metadata.registration_endpoint = _endpoint(issuer_url, REGISTRATION_PATH)
    if revocation_options.enabled:
        metadata.revocation_endpoint = _endpoint(issuer_url, REVOCATION_PATH)
        metadata.revocation_endpoint_auth_methods_supported = ["client_secret_post", "client_secret_basic"]
    return metadata


def create_auth_routes(
    provider: OAuthAuthorizationServerProvider[Any, Any, Any],
    issuer_url: AnyHttpUrl,
    service_documentation_url: AnyHttpUrl | None = None,
    client_registration_options: ClientRegistrationOptions | None = None,
    revocation_options: RevocationOptions | None = None,
    identity_assertion_enabled: bool = False,
) -> list[Route]:
    """The routes of an embedded authorization server (see the module docstring)."""
    issuer_url = _url(issuer_url)
    validate_issuer_url(issuer_url)
    registration = client_registration_options or ClientRegistrationOptions()
    revocation = revocation_options or RevocationOptions()
    metadata = build_metadata(issuer_url, service_documentation_url, registration, revocation,
                              supports_identity_assertion=identity_assertion_enabled)
    # An extension of this SDK: a provider may amend the metadata and serve more endpoints
    # (`OAuthProxy`: CIMD support, its consent page and the identity provider's callback).
    prepare_metadata = getattr(provider, "prepare_metadata", None)
    if callable(prepare_metadata):
        metadata = cast(OAuthMetadata, prepare_metadata(metadata))
    authenticator = ClientAuthenticator(provider)
    token_handler = TokenHandler(provider, authenticator, identity_assertion_enabled=identity_assertion_enabled)
    routes = [
        Route(AS_WELL_KNOWN, endpoint=cors_middleware(MetadataHandler(metadata).handle, ["GET", "OPTIONS"]),
              methods=["GET", "OPTIONS"]),
        # no CORS for /authorize: clients redirect the user agent there
        Route(AUTHORIZATION_PATH, endpoint=_BodyLimited(request_response(AuthorizationHandler(provider).handle)),
              methods=["GET", "POST"]),
        Route(TOKEN_PATH, endpoint=_limited_cors(token_handler.handle), methods=["POST", "OPTIONS"]),
    ]
    if registration.enabled:
        handler = RegistrationHandler(provider, options=registration)
        routes.append(Route(REGISTRATION_PATH, endpoint=_limited_cors(handler.handle), methods=["POST", "OPTIONS"]))
    if revocation.enabled:
        revoker = RevocationHandler(provider, authenticator)
        routes.append(Route(REVOCATION_PATH, endpoint=_limited_cors(revoker.handle), methods=["POST", "OPTIONS"]))
    more_routes = getattr(provider, "auth_routes", None)
    if callable(more_routes):
        routes.extend(cast(list[Route], more_routes()))
    return routes


def build_resource_metadata_url(resource_server_url: AnyHttpUrl) -> AnyHttpUrl:
    """Where the RFC 9728 document of a resource lives: the well-known path inserted between the
    host and the resource's path (`https://x.example/mcp` ->
    `https://x.example/.well-known/oauth-protected-resource/mcp`)."""
    parts = urlsplit(str(resource_server_url))
    path = "" if parts.path == "/" else parts.path
    return AnyHttpUrl(f"{parts.scheme}://{parts.netloc}{PRM_WELL_KNOWN}{path}")


def create_protected_resource_routes(
    resource_url: AnyHttpUrl | None,
    authorization_servers: list[AnyHttpUrl],
    scopes_supported: list[str] | None = None,
    resource_name: str | None = None,
    resource_documentation: AnyHttpUrl | None = None,
    *,
    mcp_path: str = "/mcp",
) -> list[Route]:
    """The RFC 9728 metadata route of a protected resource.

    Without `resource_url` (an extension of this SDK) the resource is the request's own base URL
    plus `mcp_path`, for servers that do not know their public URL."""
    authorization_servers = [_url(server) for server in authorization_servers]
    if resource_url is not None:
        metadata = ProtectedResourceMetadata(
            resource=resource_url,
            authorization_servers=authorization_servers,
            scopes_supported=scopes_supported,
            resource_name=resource_name,
            resource_documentation=resource_documentation,
        )
        handler = ProtectedResourceMetadataHandler(metadata)
        path = urlsplit(str(build_resource_metadata_url(resource_url))).path
        return [Route(path, endpoint=cors_middleware(handler.handle, ["GET", "OPTIONS"]), methods=["GET", "OPTIONS"])]

    resource_path = mcp_path.rstrip("/")

    async def request_relative(request: Request) -> Response:
        metadata = ProtectedResourceMetadata(
            resource=AnyHttpUrl(str(request.base_url).rstrip("/") + resource_path),
            authorization_servers=authorization_servers,
            scopes_supported=scopes_supported,
            resource_name=resource_name,
            resource_documentation=resource_documentation,
        )
        return JSONResponse(metadata.model_dump(mode="json", exclude_none=True),
                            headers={"Cache-Control": "public, max-age=3600"})

    return [Route(PRM_WELL_KNOWN + resource_path, endpoint=cors_middleware(request_relative, ["GET", "OPTIONS"]),
                  methods=["GET", "OPTIONS"])]


__all__ = [
    "AUTHORIZATION_PATH",
    "ID_JAG_GRANT_PROFILE",
    "REGISTRATION_PATH",
    "REVOCATION_PATH",
    "TOKEN_PATH",
    "build_metadata",
    "build_resource_metadata_url",
    "cors_middleware",
    "create_auth_routes",
    "create_protected_resource_routes",
    "url_string",
    "validate_issuer_url",
]
