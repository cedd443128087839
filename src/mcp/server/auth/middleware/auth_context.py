"""The access token of the request being handled, as a context variable.

The bearer-token gate sets it for the duration of an authenticated HTTP request; handlers read it
with `get_access_token()`. In memory and over stdio it is always `None`.
"""

from __future__ import annotations

from collections.abc import Generator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, cast

from mcp.server.auth.provider import AccessToken

ACCESS_TOKEN_SCOPE_KEY = "mcp.access_token"
"""The ASGI scope key under which the gate also stores the `AccessToken`."""

_access_token: ContextVar[AccessToken | None] = ContextVar("mcp_access_token", default=None)


def get_access_token() -> AccessToken | None:
    """The `AccessToken` the token verifier returned for the current request, or `None` outside
    an authenticated HTTP request."""
    return _access_token.get()


@contextmanager
def access_token_context(token: AccessToken | None) -> Generator[None, None, None]:
    """Make `token` what `get_access_token()` returns inside the block."""
    reset = _access_token.set(token)
    try:
        yield
    finally:
        _access_token.reset(reset)


def access_token_from_scope(scope: Any) -> AccessToken | None:
    """The `AccessToken` the gate stored in an ASGI scope (for code that serves a request in a
    task that did not inherit the gate's context)."""
    if isinstance(scope, dict):
        token: Any = cast(dict[str, Any], scope).get(ACCESS_TOKEN_SCOPE_KEY)
        if isinstance(token, AccessToken):
            return token
    return None


class AuthContextMiddleware:
    """ASGI middleware: sets the context variable from the scope (for apps that authenticate with
    their own middleware and store the token under `ACCESS_TOKEN_SCOPE_KEY` or as `scope["user"]
    .access_token`)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        token = access_token_from_scope(scope)
        if token is None and isinstance(scope, dict):
            user: Any = cast(dict[str, Any], scope).get("user")
            candidate: Any = getattr(user, "access_token", None)
            token = candidate if isinstance(candidate, AccessToken) else None
        if token is None:
            await self.app(scope, receive, send)
            return
        with access_token_context(token):
            await self.app(scope, receive, send)


__all__ = [
    "ACCESS_TOKEN_SCOPE_KEY",
    "AuthContextMiddleware",
    "access_token_context",
    "access_token_from_scope",
    "get_access_token",
]
