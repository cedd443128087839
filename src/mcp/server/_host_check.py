"""The DNS-rebinding rule of the HTTP transports, without the settings model: a request's Host
(and Origin, when sent) must be on the allowlists. Kept free of pydantic, so the transports run it
per request without importing the model (`mcp.server.transport_security` is its public home)."""

from __future__ import annotations

import functools
import logging
from typing import Any

# The refusals are logged under the official module's name, where the troubleshooting page sends
# operators ("WARNING mcp.server.transport_security: Invalid Host header: <host>").
logger = logging.getLogger("mcp.server.transport_security")

LOCALHOST_HOSTS = ("127.0.0.1", "localhost", "::1", "[::1]")
LOCALHOST_ALLOWED_HOSTS = ("127.0.0.1:*", "localhost:*", "[::1]:*", "127.0.0.1", "localhost", "[::1]")
LOCALHOST_ALLOWED_ORIGINS = ("http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*",
                             "http://127.0.0.1", "http://localhost", "http://[::1]")


def _matches(value: str, patterns: list[str]) -> bool:
    exact, any_port = _compiled(tuple(patterns))  # the lists may be edited: the key follows them
    value = value.lower()  # host names and URL schemes are case-insensitive
    if value in exact:
        return True
    if any_port:
        base, colon, port = value.rpartition(":")
        return bool(colon) and port.isdigit() and base in any_port
    return False


@functools.lru_cache(maxsize=32)
def _compiled(patterns: tuple[str, ...]) -> tuple[frozenset[str], frozenset[str]]:
    """(exact entries, bases of `base:*` entries), lower-cased: compiled once per allowlist rather
    than on every request."""
    lowered = [pattern.lower() for pattern in patterns]
    return frozenset(lowered), frozenset(pattern[:-2] for pattern in lowered if pattern.endswith(":*"))


def host_allowed(settings: Any, host: str | None) -> bool:
    return host is not None and _matches(host, settings.allowed_hosts)


def origin_allowed(settings: Any, origin: str | None) -> bool:
    """An absent Origin (a same-origin or non-browser request) is allowed."""
    return not origin or _matches(origin, settings.allowed_origins)


def check(settings: Any, host: str | None, origin: str | None) -> tuple[int, str] | None:
    """None when allowed, else (HTTP status, plain-text reason): 421 for Host, 403 for Origin.
    `settings` is a `TransportSecuritySettings` (or None: no protection)."""
    if settings is None or not settings.enable_dns_rebinding_protection:
        return None
    if not host_allowed(settings, host):
        logger.warning("Invalid Host header: %s", host)
        return 421, "Invalid Host header"
    if not origin_allowed(settings, origin):
        logger.warning("Invalid Origin header: %s", origin)
        return 403, "Invalid Origin header"
    return None
