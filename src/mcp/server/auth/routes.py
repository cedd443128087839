"""Starlette routes for authorization: the embedded authorization server and the protected
resource metadata document.

- `create_auth_routes(provider, issuer_url, ...)`: RFC 8414 metadata, `/authorize`, `/token`
  (authorization code with PKCE S256, refresh token, and with `identity_assertion_enabled` the
  RFC 7523 `jwt-bearer` grant), `/register` (RFC 7591, when enabled), `/revoke` (RFC 7009, when
  enabled). Validation, client authentication and PKCE happen here; decisions and storage are the
  provider's.
- `create_protected_resource_routes(...)`: RFC 9728 metadata at
  `/.well-known/oauth-protected-resource<path of the resource>`.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import secrets
import time
import uuid
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from pydantic import AnyHttpUrl, AnyUrl, ValidationError
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from mcp.server.auth.provider import (
    AuthorizationParams,
    AuthorizeError,
    IdentityAssertionParams,
    OAuthAuthorizationServerProvider,
    RegistrationError,
    TokenError,
    construct_redirect_uri,
)
from mcp.server.auth.settings import ClientRegistrationOptions, RevocationOptions
from mcp.shared.auth import (
    JWT_BEARER_GRANT_TYPE,
    InvalidRedirectUriError,
    InvalidScopeError,
    OAuthClientInformationFull,
    OAuthClientMetadata,
)

PRM_WELL_KNOWN = "/.well-known/oauth-protected-resource"
AS_WELL_KNOWN = "/.well-known/oauth-authorization-server"
ID_JAG_GRANT_PROFILE = "urn:ietf:params:oauth:grant-profile:id-jag"
AUTHORIZATION_PATH = "/authorize"
TOKEN_PATH = "/token"
REGISTRATION_PATH = "/register"
REVOCATION_PATH = "/revoke"

_NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}
_CORS = {"Access-Control-Allow-Origin": "*", "Access-Control-Allow-Methods": "GET, OPTIONS",
         "Access-Control-Allow-Headers": "*"}

Provider = OAuthAuthorizationServerProvider[Any, Any, Any]


def url_string(url: AnyUrl | str) -> str:
    """A URL as published in metadata: as given, minus the `/` a URL type adds to an empty path
    (`https://auth.example.com/` -> `https://auth.example.com`)."""
    text = str(url)
    parts = urlsplit(text)
    if parts.path == "/" and not parts.query and not parts.fragment:
        return text[:-1]
    return text


def _path_of(url: AnyUrl | str) -> str:
    return urlsplit(str(url)).path.rstrip("/")


def _error(error: str, description: str | None = None, status: int = 400,
           headers: dict[str, str] | None = None) -> JSONResponse:
    body: dict[str, str] = {"error": error}
    if description:
        body["error_description"] = description
    return JSONResponse(body, status_code=status, headers={**_NO_STORE, **(headers or {})})


# -- protected resource metadata (RFC 9728) --------------------------------------------------------


def protected_resource_metadata(resource: str, authorization_servers: list[str], scopes_supported: list[str] | None,
                                resource_name: str | None = None,
                                resource_documentation: str | None = None) -> dict[str, Any]:
    document: dict[str, Any] = {"resource": resource, "authorization_servers": authorization_servers}
    if scopes_supported is not None:
        document["scopes_supported"] = scopes_supported
    document["bearer_methods_supported"] = ["header"]
    if resource_name is not None:
        document["resource_name"] = resource_name
    if resource_documentation is not None:
        document["resource_documentation"] = resource_documentation
    return document


def create_protected_resource_routes(
    resource_url: AnyHttpUrl | str | None,
    authorization_servers: list[AnyHttpUrl] | list[str],
    scopes_supported: list[str] | None = None,
    resource_name: str | None = None,
    resource_documentation: AnyHttpUrl | str | None = None,
    *,
    mcp_path: str = "/mcp",
) -> list[Route]:
    """The RFC 9728 metadata route for the MCP endpoint. Without `resource_url` the resource is
    the request's own base URL plus `mcp_path`."""
    path = _path_of(resource_url) if resource_url is not None else mcp_path.rstrip("/")
    servers = [url_string(server) for server in authorization_servers]
    documentation = url_string(resource_documentation) if resource_documentation is not None else None

    async def metadata(request: Request) -> Response:
        if request.method == "OPTIONS":
            return Response(status_code=204, headers=_CORS)
        resource = url_string(resource_url) if resource_url is not None else _request_base(request) + path
        document = protected_resource_metadata(resource, servers, scopes_supported, resource_name, documentation)
        return JSONResponse(document, headers=_CORS)

    return [Route(f"{PRM_WELL_KNOWN}{path}", endpoint=metadata, methods=["GET", "OPTIONS"])]


def _request_base(request: Request) -> str:
    return str(request.base_url).rstrip("/")


# -- authorization server metadata (RFC 8414) -------------------------------------------------------


def build_metadata(
    issuer_url: AnyHttpUrl | str,
    service_documentation_url: AnyHttpUrl | str | None = None,
    client_registration_options: ClientRegistrationOptions | None = None,
    revocation_options: RevocationOptions | None = None,
    identity_assertion_enabled: bool = False,
) -> dict[str, Any]:
    issuer = url_string(issuer_url)
    base = issuer.rstrip("/")
    registration = client_registration_options or ClientRegistrationOptions()
    revocation = revocation_options or RevocationOptions()
    grant_types = ["authorization_code", "refresh_token"]
    if identity_assertion_enabled:
        grant_types.append(JWT_BEARER_GRANT_TYPE)
    document: dict[str, Any] = {
        "issuer": issuer,
        "authorization_endpoint": base + AUTHORIZATION_PATH,
        "token_endpoint": base + TOKEN_PATH,
    }
    if registration.enabled:
        document["registration_endpoint"] = base + REGISTRATION_PATH
    if registration.valid_scopes is not None:
        document["scopes_supported"] = registration.valid_scopes
    document["response_types_supported"] = ["code"]
    document["grant_types_supported"] = grant_types
    document["token_endpoint_auth_methods_supported"] = ["client_secret_post", "client_secret_basic", "none"]
    document["code_challenge_methods_supported"] = ["S256"]
    if service_documentation_url is not None:
        document["service_documentation"] = url_string(service_documentation_url)
    if revocation.enabled:
        document["revocation_endpoint"] = base + REVOCATION_PATH
        document["revocation_endpoint_auth_methods_supported"] = ["client_secret_post", "client_secret_basic"]
    if identity_assertion_enabled:
        document["authorization_grant_profiles_supported"] = [ID_JAG_GRANT_PROFILE]
    return document


def create_auth_routes(
    provider: Provider,
    issuer_url: AnyHttpUrl | str,
    service_documentation_url: AnyHttpUrl | str | None = None,
    client_registration_options: ClientRegistrationOptions | None = None,
    revocation_options: RevocationOptions | None = None,
    identity_assertion_enabled: bool = False,
) -> list[Route]:
    """The routes of an embedded authorization server, relative to the issuer's path."""
    registration = client_registration_options or ClientRegistrationOptions()
    revocation = revocation_options or RevocationOptions()
    document = build_metadata(issuer_url, service_documentation_url, registration, revocation,
                              identity_assertion_enabled)
    issuer = document["issuer"]
    prefix = _path_of(issuer_url)

    async def metadata(request: Request) -> Response:
        if request.method == "OPTIONS":
            return Response(status_code=204, headers=_CORS)
        return JSONResponse(document, headers=_CORS)

    routes = [
        Route(f"{AS_WELL_KNOWN}{prefix}", endpoint=metadata, methods=["GET", "OPTIONS"]),
        Route(prefix + AUTHORIZATION_PATH, endpoint=_authorize_endpoint(provider, issuer), methods=["GET", "POST"]),
        Route(prefix + TOKEN_PATH, endpoint=_token_endpoint(provider, identity_assertion_enabled), methods=["POST"]),
    ]
    if registration.enabled:
        routes.append(Route(prefix + REGISTRATION_PATH, endpoint=_registration_endpoint(provider, registration),
                            methods=["POST"]))
    if revocation.enabled:
        routes.append(Route(prefix + REVOCATION_PATH, endpoint=_revocation_endpoint(provider), methods=["POST"]))
    return routes


# -- /authorize -------------------------------------------------------------------------------------


def _authorize_endpoint(provider: Provider, issuer: str) -> Callable[[Request], Awaitable[Response]]:
    async def authorize(request: Request) -> Response:
        params: dict[str, str] = dict(request.query_params)
        if request.method == "POST":
            params.update(await _form(request))
        client_id = params.get("client_id")
        if not client_id:
            return _error("invalid_request", "client_id is required")
        client = await provider.get_client(client_id)
        if client is None:
            return _error("invalid_request", f"Client ID '{client_id}' not found")
        try:
            raw_redirect = params.get("redirect_uri")
            redirect_uri = client.validate_redirect_uri(AnyUrl(raw_redirect) if raw_redirect else None)
        except (InvalidRedirectUriError, ValidationError) as exc:
            return _error("invalid_request", getattr(exc, "message", None) or "invalid redirect_uri")
        state = params.get("state")

        def refuse(error: str, description: str | None) -> Response:
            location = construct_redirect_uri(str(redirect_uri), error=error, error_description=description,
                                              state=state, iss=issuer)
            return RedirectResponse(location, status_code=302, headers=_NO_STORE)

        if params.get("response_type") != "code":
            return refuse("unsupported_response_type", "response_type must be 'code'")
        code_challenge = params.get("code_challenge")
        if not code_challenge:
            return refuse("invalid_request", "code_challenge is required (PKCE)")
        if params.get("code_challenge_method", "S256") != "S256":
            return refuse("invalid_request", "code_challenge_method must be S256")
        try:
            scopes = client.validate_scope(params.get("scope"))
        except InvalidScopeError as exc:
            return refuse("invalid_scope", exc.message)
        if scopes is None and client.scope:
            scopes = client.scope.split()
        authorization = AuthorizationParams(
            state=state,
            scopes=scopes,
            code_challenge=code_challenge,
            redirect_uri=redirect_uri,
            redirect_uri_provided_explicitly=params.get("redirect_uri") is not None,
            resource=params.get("resource"),
        )
        try:
            location = await provider.authorize(client, authorization)
        except AuthorizeError as exc:
            return refuse(exc.error, exc.error_description)
        if location.startswith(str(redirect_uri)) and "code=" in location and "iss=" not in location:
            location = construct_redirect_uri(location, iss=issuer)
        return RedirectResponse(location, status_code=302, headers=_NO_STORE)

    return authorize


# -- client authentication --------------------------------------------------------------------------


class _ClientAuthError(Exception):
    def __init__(self, response: Response) -> None:
        self.response = response


async def _authenticate_client(provider: Provider, request: Request,
                               form: dict[str, str]) -> OAuthClientInformationFull:
    """RFC 6749 §2.3: `client_secret_basic`, `client_secret_post`, or a public client id."""
    client_id = form.get("client_id")
    client_secret = form.get("client_secret")
    used_basic = False
    header = request.headers.get("authorization")
    if header and header.lower().startswith("basic "):
        try:
            decoded = base64.b64decode(header[6:].strip(), validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            raise _ClientAuthError(_error("invalid_client", "Malformed Basic authorization header", 401,
                                          {"WWW-Authenticate": 'Basic realm="token"'})) from None
        basic_id, sep, basic_secret = decoded.partition(":")
        if not sep:
            raise _ClientAuthError(_error("invalid_client", "Malformed Basic authorization header", 401,
                                          {"WWW-Authenticate": 'Basic realm="token"'}))
        basic_id, basic_secret = unquote(basic_id), unquote(basic_secret)
        if client_id is not None and client_id != basic_id:
            raise _ClientAuthError(_error("invalid_request", "client_id does not match the Authorization header"))
        client_id, client_secret, used_basic = basic_id, basic_secret, True
    if not client_id:
        raise _ClientAuthError(_error("invalid_client", "client authentication is required", 401))
    client = await provider.get_client(client_id)
    challenge = {"WWW-Authenticate": 'Basic realm="token"'} if used_basic else None
    if client is None:
        raise _ClientAuthError(_error("invalid_client", "Invalid client_id", 401, challenge))
    if client.client_secret:
        if client.token_endpoint_auth_method == "none":
            pass
        elif not client_secret or not hmac.compare_digest(client_secret.encode(), client.client_secret.encode()):
            raise _ClientAuthError(_error("invalid_client", "Invalid client_secret", 401, challenge))
        elif client.client_secret_expires_at and client.client_secret_expires_at < time.time():
            raise _ClientAuthError(_error("invalid_client", "Client secret has expired", 401, challenge))
    return client


async def _form(request: Request) -> dict[str, str]:
    """An `application/x-www-form-urlencoded` body (parsed here: no multipart dependency). A
    parameter sent twice keeps its first value."""
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if content_type != "application/x-www-form-urlencoded":
        return {}
    form: dict[str, str] = {}
    for key, value in parse_qsl((await request.body()).decode("utf-8", "replace"), keep_blank_values=True):
        form.setdefault(key, value)
    return form


def _is_confidential(client: OAuthClientInformationFull) -> bool:
    return bool(client.client_secret) and client.token_endpoint_auth_method != "none"


# -- /token -----------------------------------------------------------------------------------------


def _token_endpoint(provider: Provider, identity_assertion_enabled: bool) -> Callable[[Request], Awaitable[Response]]:
    async def token(request: Request) -> Response:
        form = await _form(request)
        try:
            client = await _authenticate_client(provider, request, form)
        except _ClientAuthError as exc:
            return exc.response
        grant_type = form.get("grant_type")
        try:
            if grant_type == "authorization_code":
                issued = await _authorization_code_grant(provider, client, form)
            elif grant_type == "refresh_token":
                issued = await _refresh_token_grant(provider, client, form)
            elif grant_type == JWT_BEARER_GRANT_TYPE and identity_assertion_enabled:
                issued = await _identity_assertion_grant(provider, client, form)
            else:
                return _error("unsupported_grant_type", f"grant_type {grant_type!r} is not supported")
        except TokenError as exc:
            return _error(exc.error, exc.error_description)
        return JSONResponse(issued.model_dump(mode="json", exclude_none=True), headers=_NO_STORE)

    return token


def _require_grant(client: OAuthClientInformationFull, grant_type: str) -> None:
    if grant_type not in client.grant_types:
        raise TokenError("unauthorized_client", f"The client is not registered for the {grant_type} grant")


async def _authorization_code_grant(provider: Provider, client: OAuthClientInformationFull,
                                    form: dict[str, str]) -> Any:
    _require_grant(client, "authorization_code")
    code = form.get("code")
    verifier = form.get("code_verifier")
    if not code or not verifier:
        raise TokenError("invalid_request", "code and code_verifier are required")
    authorization_code = await provider.load_authorization_code(client, code)
    if authorization_code is None or authorization_code.client_id != client.client_id:
        raise TokenError("invalid_grant", "authorization code does not exist")
    if authorization_code.expires_at < time.time():
        raise TokenError("invalid_grant", "authorization code has expired")
    if authorization_code.redirect_uri_provided_explicitly and \
            form.get("redirect_uri") != str(authorization_code.redirect_uri):
        raise TokenError("invalid_request", "redirect_uri does not match the authorization request")
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
    if not hmac.compare_digest(challenge, authorization_code.code_challenge):
        raise TokenError("invalid_grant", "incorrect code_verifier")
    resource = form.get("resource")
    if resource is not None and authorization_code.resource is not None and resource != authorization_code.resource:
        raise TokenError("invalid_target", "resource does not match the authorization request")
    return await provider.exchange_authorization_code(client, authorization_code)


async def _refresh_token_grant(provider: Provider, client: OAuthClientInformationFull, form: dict[str, str]) -> Any:
    _require_grant(client, "refresh_token")
    raw = form.get("refresh_token")
    if not raw:
        raise TokenError("invalid_request", "refresh_token is required")
    refresh_token = await provider.load_refresh_token(client, raw)
    if refresh_token is None or refresh_token.client_id != client.client_id:
        raise TokenError("invalid_grant", "refresh token does not exist")
    if refresh_token.expires_at is not None and refresh_token.expires_at < time.time():
        raise TokenError("invalid_grant", "refresh token has expired")
    scopes = form["scope"].split() if form.get("scope") else list(refresh_token.scopes)
    for scope in scopes:
        if scope not in refresh_token.scopes:
            raise TokenError("invalid_scope", f"cannot request scope `{scope}` not provided by refresh token")
    return await provider.exchange_refresh_token(client, refresh_token, scopes)


async def _identity_assertion_grant(provider: Provider, client: OAuthClientInformationFull,
                                    form: dict[str, str]) -> Any:
    if not _is_confidential(client):
        raise TokenError("unauthorized_client", "The identity assertion grant requires a confidential client")
    _require_grant(client, JWT_BEARER_GRANT_TYPE)
    assertion = form.get("assertion")
    if not assertion:
        raise TokenError("invalid_request", "assertion is required")
    params = IdentityAssertionParams(
        assertion=assertion,
        scopes=form["scope"].split() if form.get("scope") else None,
        resource=form.get("resource"),
    )
    return await provider.exchange_identity_assertion(client, params)


# -- /register --------------------------------------------------------------------------------------


def _registration_endpoint(provider: Provider,
                           options: ClientRegistrationOptions) -> Callable[[Request], Awaitable[Response]]:
    async def register(request: Request) -> Response:
        try:
            body = json.loads(await request.body())
            metadata = OAuthClientMetadata.model_validate(body)
        except (ValueError, ValidationError) as exc:
            return _error("invalid_client_metadata", str(exc).splitlines()[0] if str(exc) else "invalid metadata")
        if JWT_BEARER_GRANT_TYPE in metadata.grant_types:
            return _error("invalid_client_metadata", "the jwt-bearer grant cannot be registered dynamically")
        if "authorization_code" not in metadata.grant_types or \
                not set(metadata.grant_types) <= {"authorization_code", "refresh_token"}:
            return _error("invalid_client_metadata", "grant_types must be authorization_code and optionally refresh_token")
        scope = metadata.scope
        if scope is None and options.default_scopes:
            scope = " ".join(options.default_scopes)
        if scope is not None and options.valid_scopes is not None:
            invalid = [item for item in scope.split() if item not in options.valid_scopes]
            if invalid:
                return _error("invalid_client_metadata", f"Requested scopes are not valid: {', '.join(invalid)}")
        method = metadata.token_endpoint_auth_method or "client_secret_post"
        if method not in ("none", "client_secret_post", "client_secret_basic"):
            return _error("invalid_client_metadata", f"token_endpoint_auth_method {method!r} is not supported")
        issued_at = int(time.time())
        expiry = options.client_secret_expiry_seconds
        client_info = OAuthClientInformationFull.model_validate({
            **metadata.model_dump(exclude_none=True),
            "scope": scope,
            "token_endpoint_auth_method": method,
            "client_id": str(uuid.uuid4()),
            "client_secret": None if method == "none" else secrets.token_hex(32),
            "client_id_issued_at": issued_at,
            "client_secret_expires_at": (issued_at + expiry) if expiry is not None and method != "none" else None,
        })
        try:
            await provider.register_client(client_info)
        except RegistrationError as exc:
            return _error(exc.error, exc.error_description)
        return JSONResponse(client_info.model_dump(mode="json", exclude_none=True), status_code=201,
                            headers=_NO_STORE)

    return register


# -- /revoke ----------------------------------------------------------------------------------------


def _revocation_endpoint(provider: Provider) -> Callable[[Request], Awaitable[Response]]:
    async def revoke(request: Request) -> Response:
        form = await _form(request)
        try:
            client = await _authenticate_client(provider, request, form)
        except _ClientAuthError as exc:
            return exc.response
        raw = form.get("token")
        if not raw:
            return _error("invalid_request", "token is required")
        hint = form.get("token_type_hint")
        loaders: list[Callable[[], Awaitable[Any]]] = [
            lambda: provider.load_access_token(raw),
            lambda: provider.load_refresh_token(client, raw),
        ]
        if hint == "refresh_token":
            loaders.reverse()
        for load in loaders:
            found = await load()
            if found is not None:
                if getattr(found, "client_id", None) == client.client_id:
                    await provider.revoke_token(found)
                break
        return Response(status_code=200, headers=_NO_STORE)

    return revoke


__all__ = [
    "ID_JAG_GRANT_PROFILE",
    "build_metadata",
    "create_auth_routes",
    "create_protected_resource_routes",
    "protected_resource_metadata",
    "url_string",
]
