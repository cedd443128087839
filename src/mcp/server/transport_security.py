"""DNS-rebinding protection and body limits for the HTTP transports.

`TransportSecuritySettings` holds the Host and Origin allowlists. Protection is on by default for
servers bound to localhost: a page on `evil.example` that resolves its name to 127.0.0.1 must not
reach a local MCP server through the user's browser. The rule itself lives in
`mcp.server._host_check` (the transports run it per request without loading this model).
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any, Final

from pydantic import BaseModel, Field

from mcp._protocol.http import DEFAULT_MAX_REQUEST_BODY_SIZE as _DEFAULT_BODY
from mcp.server._host_check import (
    LOCALHOST_ALLOWED_HOSTS,
    LOCALHOST_ALLOWED_ORIGINS,
    LOCALHOST_HOSTS,
    check,
    host_allowed,
    origin_allowed,
)

__all__ = ["DEFAULT_MAX_REQUEST_BODY_SIZE", "RequestBodyLimitMiddleware", "TransportSecurityMiddleware",
           "TransportSecuritySettings", "check", "default_for_host", "localhost_defaults"]

logger = logging.getLogger("mcp.server.transport_security")

DEFAULT_MAX_REQUEST_BODY_SIZE: Final = _DEFAULT_BODY
"""The largest HTTP request body the server transports accept by default (4 MiB)."""

_Scope = MutableMapping[str, Any]
_Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
_Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
_ASGIApp = Callable[[_Scope, _Receive, _Send], Awaitable[None]]


class TransportSecuritySettings(BaseModel):
    """Entries are exact `host[:port]` (Host) or `scheme://host[:port]` (Origin) strings, compared
    case-insensitively; `...:*` allows any port."""

    enable_dns_rebinding_protection: bool = True
    """Check Host and Origin against the allowlists (recommended whenever a browser can reach it)."""
    allowed_hosts: list[str] = Field(default_factory=list[str])
    """Host header values accepted when the protection is on."""
    allowed_origins: list[str] = Field(default_factory=list[str])
    """Origin header values accepted when the protection is on (no Origin is always accepted)."""


def localhost_defaults() -> TransportSecuritySettings:
    return TransportSecuritySettings(allowed_hosts=list(LOCALHOST_ALLOWED_HOSTS),
                                     allowed_origins=list(LOCALHOST_ALLOWED_ORIGINS))


def default_for_host(host: str) -> TransportSecuritySettings | None:
    """The protection a server bound to `host` gets when it configures none."""
    return localhost_defaults() if host in LOCALHOST_HOSTS else None


class TransportSecurityMiddleware:
    """Request checks for a hand-built HTTP endpoint: JSON Content-Type on POST (400), then, when
    the protection is on, Host (421) and Origin (403). Without settings only the Content-Type is
    checked."""

    def __init__(self, settings: TransportSecuritySettings | None = None) -> None:
        self.settings = settings or TransportSecuritySettings(enable_dns_rebinding_protection=False)

    def _validate_host(self, host: str | None) -> bool:
        if host_allowed(self.settings, host):
            return True
        logger.warning("Invalid Host header: %s", host)
        return False

    def _validate_origin(self, origin: str | None) -> bool:
        if origin_allowed(self.settings, origin):
            return True
        logger.warning("Invalid Origin header: %s", origin)
        return False

    def _validate_content_type(self, content_type: str | None) -> bool:
        return content_type is not None and content_type.lower().startswith("application/json")

    async def validate_request(self, request: Any, is_post: bool = False) -> Any:
        """None when `request` (a Starlette `Request`) passes, else the error `Response` to send."""
        from starlette.responses import Response

        if is_post and not self._validate_content_type(request.headers.get("content-type")):
            return Response("Invalid Content-Type header", status_code=400)
        if not self.settings.enable_dns_rebinding_protection:
            return None
        if not self._validate_host(request.headers.get("host")):
            return Response("Invalid Host header", status_code=421)
        if not self._validate_origin(request.headers.get("origin")):
            return Response("Invalid Origin header", status_code=403)
        return None


class RequestBodyLimitMiddleware:
    """ASGI middleware answering 413 to a request whose body is larger than `max_body_size`
    (by its Content-Length, or by counting as it arrives); the app sees the buffered body."""

    def __init__(self, app: _ASGIApp, max_body_size: int) -> None:
        self.app = app
        self.max_body_size = max_body_size

    async def __call__(self, scope: _Scope, receive: _Receive, send: _Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", ()):
            if name.lower() == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    break
                if declared > self.max_body_size:
                    await _too_large(send)
                    return
                break
        body = bytearray()
        received = complete = False
        trailing: MutableMapping[str, Any] | None = None
        while True:
            message = await receive()
            if message["type"] != "http.request":
                trailing = message  # e.g. a disconnect: the app sees it after the body
                break
            received = True
            chunk: bytes = message.get("body", b"")
            if len(body) + len(chunk) > self.max_body_size:
                await _too_large(send)
                return
            body.extend(chunk)
            if not message.get("more_body", False):
                complete = True
                break
        replay: deque[MutableMapping[str, Any]] = deque()
        if received:
            replay.append({"type": "http.request", "body": bytes(body), "more_body": not complete})
        if trailing is not None:
            replay.append(trailing)

        async def replayed() -> MutableMapping[str, Any]:
            return replay.popleft() if replay else await receive()

        await self.app(scope, replayed, send)


async def _too_large(send: _Send) -> None:
    body = b"Request body too large"
    await send({"type": "http.response.start", "status": 413,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                            (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})
