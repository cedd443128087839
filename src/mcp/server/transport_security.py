"""DNS-rebinding protection for the HTTP transports: Host and Origin allowlists.

On by default for servers bound to localhost: a page on `evil.example` that resolves its name to
127.0.0.1 must not reach a local MCP server through the user's browser.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

LOCALHOST_HOSTS = ("127.0.0.1", "localhost", "::1", "[::1]")


@dataclass
class TransportSecuritySettings:
    """Entries are exact `host[:port]` (Host) or `scheme://host[:port]` (Origin) strings, compared
    case-insensitively; `...:*` allows any port."""

    enable_dns_rebinding_protection: bool = True
    allowed_hosts: list[str] = field(default_factory=list[str])
    allowed_origins: list[str] = field(default_factory=list[str])


def localhost_defaults() -> TransportSecuritySettings:
    return TransportSecuritySettings(
        allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*", "127.0.0.1", "localhost", "[::1]"],
        allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*",
                         "http://127.0.0.1", "http://localhost", "http://[::1]"],
    )


def default_for_host(host: str) -> TransportSecuritySettings | None:
    """The protection a server bound to `host` gets when it configures none."""
    return localhost_defaults() if host in LOCALHOST_HOSTS else None


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


def check(settings: TransportSecuritySettings | None, host: str | None, origin: str | None) -> tuple[int, str] | None:
    """None when allowed, else (HTTP status, plain-text reason): 421 for Host, 403 for Origin."""
    if settings is None or not settings.enable_dns_rebinding_protection:
        return None
    if host is None or not _matches(host, settings.allowed_hosts):
        return 421, "Invalid Host header"
    if origin is not None and not _matches(origin, settings.allowed_origins):
        return 403, "Invalid Origin header"
    return None
