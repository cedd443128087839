"""The authenticated user of the request being handled, as a context variable.

`auth_context_var` holds the `AuthenticatedUser` for the duration of an authenticated HTTP
request (set by the bearer-token gate, or by `AuthContextMiddleware` after Starlette's
`AuthenticationMiddleware`); handlers read the token with `get_access_token()`. In memory and over
stdio it is `None`.
"""

from __future__ import annotations

from collections.abc import Generator
from contextlib import contextmanager
from typing import Any, cast

from starlette.types import ASGIApp, Receive, Scope, Send

from mcp.server.auth.middleware._context import auth_context_var
from mcp.server.auth.middleware.bearer_auth import ACCESS_TOKEN_SCOPE_KEY, AuthenticatedUser
from mcp.server.auth.provider import AccessToken


def get_access_token() -> AccessToken | None:
    """The `AccessToken` of the current request's authenticated user, or `None` outside an
    authenticated HTTP request."""
    user = auth_context_var.get()
    return user.access_token if user is not None else None


@contextmanager
def access_token_context(token: AccessToken | None) -> Generator[None, None, None]:
    """Make `token` what `get_access_token()` returns inside the block."""
    reset = auth_context_var.set(AuthenticatedUser(token) if token is not None else None)
    try:
        yield
    finally:
        auth_context_var.reset(reset)


def access_token_from_scope(scope: Any) -> AccessToken | None:
    """The `AccessToken` the gate stored in an ASGI scope (for code that serves a request in a
    task that did not inherit the gate's context)."""
    if isinstance(scope, dict):
        token: Any = cast(dict[str, Any], scope).get(ACCESS_TOKEN_SCOPE_KEY)
        if isinstance(token, AccessToken):
            return token
    return None


class AuthContextMiddleware:
    """ASGI middleware putting `scope["user"]` (an `AuthenticatedUser`, as Starlette's
    `AuthenticationMiddleware` with `BearerAuthBackend` leaves it) into `auth_context_var` for the
    rest of the request. Add it after the authentication middleware."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        user = scope.get("user")
        if not isinstance(user, AuthenticatedUser):
            await self.app(scope, receive, send)
            return
        reset = auth_context_var.set(user)
        try:
            await self.app(scope, receive, send)
        finally:
            auth_context_var.reset(reset)


__all__ = [
    "ACCESS_TOKEN_SCOPE_KEY",
    "AuthContextMiddleware",
    "access_token_context",
    "access_token_from_scope",
    "auth_context_var",
    "get_access_token",
]
