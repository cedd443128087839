"""Bearer-token authentication for the MCP endpoint (RFC 6750), in two shapes.

- `RequireBearerAuth`: one pure-ASGI gate that verifies the token itself (what `MCPServer` uses).
  No `Authorization: Bearer` header, or a token the verifier refuses -> `401` with
  `WWW-Authenticate: Bearer error="invalid_token", error_description="Authentication required",
  resource_metadata="<protected resource metadata URL>"` (RFC 6750 §3, RFC 9728 §5.1). Expired
  tokens and (with `validate_resource`) tokens for another resource get a 401 too. A token without
  every required scope -> `403` `insufficient_scope`. Otherwise the request goes through with the
  `AccessToken` in the scope (`scope["user"]`, `scope["auth"]`, `scope["mcp.access_token"]`) and
  in `get_access_token()`.
- The Starlette pair: `BearerAuthBackend` for `AuthenticationMiddleware` (sets `request.user` to an
  `AuthenticatedUser`, or leaves the request anonymous), then `RequireAuthMiddleware` in front of
  an endpoint (401/403 with the same challenges).
"""

from __future__ import annotations

import json
import logging
import sys
import time
from collections import deque
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any, TypedDict, cast

from pydantic import AnyHttpUrl, ValidationError
from starlette.authentication import AuthCredentials, AuthenticationBackend, SimpleUser
from starlette.requests import HTTPConnection

from mcp._protocol.codec import ParseError, decode
from mcp._protocol.http import DEFAULT_MAX_REQUEST_BODY_SIZE
from mcp.server.auth.middleware._context import auth_context_var
from mcp.server.auth.provider import (
    AccessToken,
    InsufficientScopeError,
    InvalidTokenError,
    TokenVerifier,
    principal_components,
)
from mcp.server.auth.scopes import ScopeRequirements

logger = logging.getLogger(__name__)

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

ACCESS_TOKEN_SCOPE_KEY = "mcp.access_token"
"""The ASGI scope key under which the gate also stores the `AccessToken`."""


class AuthenticatedUser(SimpleUser):
    """`request.user` of an authenticated request: named by the token's client id, carrying the
    verified `AccessToken` and its scopes."""

    def __init__(self, auth_info: AccessToken) -> None:
        super().__init__(auth_info.client_id)
        self.access_token = auth_info
        self.scopes = auth_info.scopes


class AuthorizationContext(TypedDict):
    """The principal a request acts for (see `authorization_context`)."""

    client_id: str
    issuer: str | None
    subject: str | None


def authorization_context(user: AuthenticatedUser) -> AuthorizationContext:
    """The principal `user` stands for, for comparing with the principal that opened a session.
    Components the token verifier did not supply are `None`."""
    client_id, issuer, subject = principal_components(user.access_token)
    return AuthorizationContext(client_id=client_id, issuer=issuer, subject=subject)


def _quote(value: str) -> str:
    """A quoted-string auth-param value; control characters (a verifier's text could carry a CR
    or LF into the header) become spaces."""
    value = "".join(" " if ord(ch) < 0x20 or ord(ch) == 0x7F else ch for ch in value)
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def same_resource(token_resource: str | None, resource: str) -> bool:
    """Whether a token's resource (audience) is `resource`: identical strings, a lone trailing
    slash aside."""
    return token_resource is not None and token_resource.rstrip("/") == resource.rstrip("/")


class RequireBearerAuth:
    """Pure-ASGI middleware admitting only requests with a valid bearer token.

    `resource_metadata_url` is the URL put in the challenges: a string, or a callable building it
    from the ASGI scope (when the public URL is not configured). `resource` (a string or such a
    callable) is what `validate_resource` compares `AccessToken.resource` to. With
    `scope_requirements` the gate reads a POST's body to see what it calls, at most
    `max_body_size` bytes of it (the app's own limit: a larger body is left to the app's 413).
    """

    def __init__(
        self,
        app: ASGIApp,
        token_verifier: TokenVerifier,
        *,
        required_scopes: list[str] | None = None,
        resource_metadata_url: str | Callable[[Scope], str] | None = None,
        resource: str | Callable[[Scope], str] | None = None,
        validate_resource: bool = False,
        scope_requirements: ScopeRequirements | None = None,
        max_body_size: int = DEFAULT_MAX_REQUEST_BODY_SIZE,
    ) -> None:
        self.app = app
        self.scope_requirements = scope_requirements
        self.max_body_size = max_body_size
        """The app's request body limit: with `scope_requirements` the gate reads bodies, never past it."""
        self.token_verifier = token_verifier
        self.required_scopes = list(required_scopes or [])
        self.resource_metadata_url = resource_metadata_url
        self.resource = resource
        self.validate_resource = validate_resource

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") == "OPTIONS":
            await self.app(scope, receive, send)
            return
        token = _bearer_token(scope)
        try:
            access_token = await self.token_verifier.verify_token(token) if token else None
        except InvalidTokenError as exc:
            await self._refuse(scope, send, 401, "invalid_token", exc.description)
            return
        except InsufficientScopeError as exc:
            await self._refuse(scope, send, 403, "insufficient_scope", exc.description,
                               scope_param=" ".join(exc.required))
            return
        except Exception as exc:  # a verifier bug or an unreachable issuer: a refusal, never a 500
            _log_verifier_failure(self.token_verifier, exc, token or "")
            await self._refuse(scope, send, 401, "invalid_token", "Token could not be verified")
            return
        if access_token is None:
            await self._refuse(scope, send, 401, "invalid_token", "Authentication required")
            return
        if access_token.expires_at is not None and access_token.expires_at < time.time():
            await self._refuse(scope, send, 401, "invalid_token", "Token has expired")
            return
        if self.validate_resource:
            expected = self.resource(scope) if callable(self.resource) else self.resource
            if expected is None or not same_resource(access_token.resource, expected):
                await self._refuse(scope, send, 401, "invalid_token", "Token was not issued for this resource")
                return
        missing = next((required for required in self.required_scopes if required not in access_token.scopes), None)
        if missing is not None:  # named one at a time, and no `scope` auth-param, as the official SDK
            await self._refuse(scope, send, 403, "insufficient_scope", f"Required scope: {missing}")
            return
        if self.scope_requirements and scope.get("method") == "POST":
            body, receive = await _buffered(scope, receive, self.max_body_size)
            denied = None if body is None else self.scope_requirements.denied_call(_json_or_none(body),
                                                                                   access_token.scopes)
            if denied is not None:
                needed = list(dict.fromkeys([*self.required_scopes, *denied[2]]))
                await self._refuse(scope, send, 403, "insufficient_scope",
                                   f"This {denied[0]} requires scope: {' '.join(denied[2])}", scope_param=" ".join(needed))
                return
        user = AuthenticatedUser(access_token)
        scope["user"] = user
        scope["auth"] = AuthCredentials(access_token.scopes)
        scope[ACCESS_TOKEN_SCOPE_KEY] = access_token
        reset = auth_context_var.set(user)
        try:
            await self.app(scope, receive, send)
        finally:
            auth_context_var.reset(reset)

    async def _refuse(self, scope: Scope, send: Send, status: int, error: str, description: str,
                      *, scope_param: str | None = None) -> None:
        params = [f"error={_quote(error)}", f"error_description={_quote(description)}"]
        if scope_param:
            params.append(f"scope={_quote(scope_param)}")
        metadata_url = self.resource_metadata_url(scope) if callable(self.resource_metadata_url) \
            else self.resource_metadata_url
        if metadata_url:
            params.append(f"resource_metadata={_quote(metadata_url)}")
        await _send_challenge(send, status, error, description, "Bearer " + ", ".join(params))


async def _buffered(scope: Scope, receive: Receive, limit: int) -> tuple[bytes | None, Receive]:
    """The request body, and a `receive` that hands it over again before the rest.

    A body over `limit` (by its Content-Length, or once the bytes read pass it) is read no
    further: the body is `None`, and the app is handed what was read, then a disconnect. The
    transport behind the gate (whose limit `limit` is) then answers its own 413, exactly as
    without the gate, and neither holds more than `limit` plus one read; an app that would read
    on never sees a byte the gate did not."""
    pending: deque[MutableMapping[str, Any]] = deque()
    declared = _content_length(scope)
    if declared is not None and declared > limit:
        return None, _then_disconnect(pending)
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            pending.append(message)  # a disconnect: replayed after the body
            break
        chunk: bytes = message.get("body", b"")
        size += len(chunk)
        chunks.append(chunk)
        if size > limit:
            pending.extend({"type": "http.request", "body": part, "more_body": True} for part in chunks)
            return None, _then_disconnect(pending)
        if not message.get("more_body", False):
            break
    body = b"".join(chunks)
    pending.appendleft({"type": "http.request", "body": body, "more_body": False})

    async def replay() -> MutableMapping[str, Any]:
        return pending.popleft() if pending else await receive()

    return body, replay


def _then_disconnect(pending: deque[MutableMapping[str, Any]]) -> Receive:
    """A `receive` handing over `pending`, then only disconnects."""

    async def replay() -> MutableMapping[str, Any]:
        return pending.popleft() if pending else {"type": "http.disconnect"}

    return replay


def _content_length(scope: Scope) -> int | None:
    """The declared body length (a number too long to be a real one counts as huge)."""
    headers = cast(list[tuple[bytes, bytes]], scope.get("headers") or [])
    for name, value in headers:
        if name.lower() == b"content-length":
            return (int(value) if len(value) <= 18 else sys.maxsize) if value.isdigit() else None
    return None


def _json_or_none(body: bytes) -> Any:
    try:
        return decode(body)  # (the transport's parser: nesting too deep is a ParseError, not a RecursionError)
    except ParseError:
        return None  # the transport answers unparsable input itself


def _log_verifier_failure(verifier: TokenVerifier, exc: Exception, token: str) -> None:
    """Log a verifier's crash without the token (no traceback: its text may quote the token)."""
    message = str(exc).replace(token, "[token]") if token else str(exc)
    logger.error("token verifier %s failed: %s: %s", type(verifier).__name__, type(exc).__name__, message[:500])


def _bearer_token(scope: Scope) -> str | None:
    headers = cast(list[tuple[bytes, bytes]], scope.get("headers") or [])
    for name, value in headers:
        if name.lower() == b"authorization":
            text = value.decode("latin-1").strip()
            scheme, _, credentials = text.partition(" ")
            if scheme.lower() == "bearer" and credentials.strip():
                return credentials.strip()
            return None
    return None


async def _send_challenge(send: Send, status: int, error: str, description: str, challenge: str) -> None:
    """A JSON error response with its `WWW-Authenticate` challenge."""
    body = json.dumps({"error": error, "error_description": description}).encode()
    await send({
        "type": "http.response.start",
        "status": status,
        "headers": [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"www-authenticate", challenge.encode("latin-1", "replace")),
        ],
    })
    await send({"type": "http.response.body", "body": body})


class BearerAuthBackend(AuthenticationBackend):
    """A Starlette authentication backend verifying `Authorization: Bearer` tokens.

    A request without a bearer token, with a token the verifier refuses, an expired one, or (with
    `resource_server_url`) one whose `AccessToken.resource` is another resource stays anonymous;
    `RequireAuthMiddleware` then refuses it.
    """

    def __init__(self, token_verifier: TokenVerifier, *, resource_server_url: AnyHttpUrl | None = None) -> None:
        self.token_verifier = token_verifier
        self.resource_server_url = resource_server_url

    async def authenticate(self, conn: HTTPConnection) -> tuple[AuthCredentials, AuthenticatedUser] | None:
        header = conn.headers.get("authorization")
        if not header or not header.lower().startswith("bearer "):
            return None
        try:
            access_token = await self.token_verifier.verify_token(header[len("Bearer "):])
        except (InvalidTokenError, InsufficientScopeError):
            return None
        except Exception as exc:
            _log_verifier_failure(self.token_verifier, exc, header[len("Bearer "):])
            return None
        if access_token is None:
            return None
        if access_token.expires_at and access_token.expires_at < int(time.time()):
            return None
        if self.resource_server_url and not self._issued_for_this_resource(access_token.resource):
            logger.warning("Bearer token resource %r is not resource_server_url %s",
                           access_token.resource, self.resource_server_url)
            return None
        return AuthCredentials(access_token.scopes), AuthenticatedUser(access_token)

    def _issued_for_this_resource(self, resource: str | None) -> bool:
        """Compared as URLs (case and default ports do not matter), a trailing slash aside."""
        try:
            token_resource = str(AnyHttpUrl(resource or ""))
        except ValidationError:
            return False
        return token_resource.removesuffix("/") == str(self.resource_server_url).removesuffix("/")


class RequireAuthMiddleware:
    """ASGI middleware admitting only requests `BearerAuthBackend` authenticated with every one of
    `required_scopes`: 401 `invalid_token` otherwise, 403 `insufficient_scope` for a missing scope,
    with `resource_metadata` in the challenge when given."""

    def __init__(self, app: Any, required_scopes: list[str], resource_metadata_url: AnyHttpUrl | None = None) -> None:
        self.app = app
        self.required_scopes = required_scopes
        self.resource_metadata_url = resource_metadata_url

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not isinstance(scope.get("user"), AuthenticatedUser):
            await self._send_auth_error(send, status_code=401, error="invalid_token",
                                        description="Authentication required")
            return
        credentials = scope.get("auth")
        granted: list[str] = list(getattr(credentials, "scopes", None) or [])
        for required in self.required_scopes:
            if credentials is None or required not in granted:
                await self._send_auth_error(send, status_code=403, error="insufficient_scope",
                                            description=f"Required scope: {required}")
                return
        await self.app(scope, receive, send)

    async def _send_auth_error(self, send: Send, status_code: int, error: str, description: str) -> None:
        """The error response with its `WWW-Authenticate: Bearer` challenge."""
        params = [f'error="{error}"', f'error_description="{description}"']
        if self.resource_metadata_url:
            params.append(f'resource_metadata="{self.resource_metadata_url}"')
        await _send_challenge(send, status_code, error, description, "Bearer " + ", ".join(params))


__all__ = [
    "AuthenticatedUser",
    "AuthorizationContext",
    "BearerAuthBackend",
    "RequireAuthMiddleware",
    "RequireBearerAuth",
    "authorization_context",
    "same_resource",
]
