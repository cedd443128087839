"""`RequireBearerAuth`: the pure-ASGI bearer-token gate in front of the MCP endpoint.

- No `Authorization: Bearer` header, or a token the verifier refuses -> `401` with
  `WWW-Authenticate: Bearer error="invalid_token", error_description="Authentication required",
  resource_metadata="<protected resource metadata URL>"` (RFC 6750 §3, RFC 9728 §5.1). Expired
  tokens and (with `validate_resource`) tokens for another resource get a 401 too.
- A token without every required scope -> `403` with `error="insufficient_scope"` and the required
  `scope` in the challenge.
- Otherwise the request goes through with the `AccessToken` in the scope (`scope["user"]`,
  `scope["auth"]`, `scope["mcp.access_token"]`) and in `get_access_token()`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any, cast

from starlette.authentication import AuthCredentials, BaseUser

from mcp.server.auth.middleware.auth_context import ACCESS_TOKEN_SCOPE_KEY, access_token_context
from mcp.server.auth.provider import AccessToken, TokenVerifier

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class AuthenticatedUser(BaseUser):
    """`request.user` of an authenticated request: the verified `AccessToken` and its scopes."""

    def __init__(self, access_token: AccessToken) -> None:
        self.access_token = access_token
        self.scopes = access_token.scopes

    @property
    def is_authenticated(self) -> bool:
        return True

    @property
    def display_name(self) -> str:
        return self.access_token.subject or self.access_token.client_id

    @property
    def identity(self) -> str:
        return self.access_token.subject or self.access_token.client_id


def _quote(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def same_resource(token_resource: str | None, resource: str) -> bool:
    """Whether a token's resource (audience) is `resource`: identical strings, a lone trailing
    slash aside."""
    return token_resource is not None and token_resource.rstrip("/") == resource.rstrip("/")


class RequireBearerAuth:
    """Pure-ASGI middleware admitting only requests with a valid bearer token.

    `resource_metadata_url` is the URL put in the challenges: a string, or a callable building it
    from the ASGI scope (when the public URL is not configured). `resource` (a string or such a
    callable) is what `validate_resource` compares `AccessToken.resource` to.
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
    ) -> None:
        self.app = app
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
        access_token = await self.token_verifier.verify_token(token) if token else None
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
        missing = [required for required in self.required_scopes if required not in access_token.scopes]
        if missing:
            await self._refuse(scope, send, 403, "insufficient_scope", f"Required scope: {' '.join(missing)}",
                               scope_param=" ".join(self.required_scopes))
            return
        scope["user"] = AuthenticatedUser(access_token)
        scope["auth"] = AuthCredentials(access_token.scopes)
        scope[ACCESS_TOKEN_SCOPE_KEY] = access_token
        with access_token_context(access_token):
            await self.app(scope, receive, send)

    async def _refuse(self, scope: Scope, send: Send, status: int, error: str, description: str,
                      *, scope_param: str | None = None) -> None:
        params = [f"error={_quote(error)}", f"error_description={_quote(description)}"]
        if scope_param:
            params.append(f"scope={_quote(scope_param)}")
        metadata_url = self.resource_metadata_url(scope) if callable(self.resource_metadata_url) \
            else self.resource_metadata_url
        if metadata_url:
            params.append(f"resource_metadata={_quote(metadata_url)}")
        body = json.dumps({"error": error, "error_description": description}).encode()
        await send({
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"www-authenticate", ("Bearer " + ", ".join(params)).encode("latin-1", "replace")),
            ],
        })
        await send({"type": "http.response.body", "body": body})


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


__all__ = ["AuthenticatedUser", "RequireBearerAuth", "same_resource"]
