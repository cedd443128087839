"""Small URL and time helpers of OAuth shared by clients and servers: the canonical resource URL
(RFC 8707), hierarchical resource matching, and token expiry from `expires_in`."""

from __future__ import annotations

import time
from urllib.parse import urlsplit, urlunsplit

from pydantic import AnyUrl, HttpUrl


def resource_url_from_server_url(url: str | HttpUrl | AnyUrl) -> str:
    """The RFC 8707 resource URL of a server URL: scheme and host lowercased, fragment removed
    (§2: a resource "MUST NOT include a fragment component"); path and query kept."""
    parts = urlsplit(str(url))
    return urlunsplit(parts._replace(scheme=parts.scheme.lower(), netloc=parts.netloc.lower(), fragment=""))


def check_resource_allowed(requested_resource: str, configured_resource: str) -> bool:
    """Whether `requested_resource` lies within `configured_resource`: the same origin (scheme,
    host, port) and a path at or below the configured one, on a `/` boundary (a trailing slash
    does not matter, and `/api123` is not below `/api`)."""
    requested, configured = urlsplit(requested_resource), urlsplit(configured_resource)
    if requested.scheme.lower() != configured.scheme.lower() or requested.netloc.lower() != configured.netloc.lower():
        return False
    requested_path = requested.path if requested.path.endswith("/") else requested.path + "/"
    configured_path = configured.path if configured.path.endswith("/") else configured.path + "/"
    return requested_path.startswith(configured_path)


def calculate_token_expiry(expires_in: int | str | None) -> float | None:
    """The Unix time a token expires at, from its `expires_in` seconds (some servers send a
    string); `None` when the token did not say."""
    if expires_in is None:
        return None
    return time.time() + int(expires_in)


__all__ = ["calculate_token_expiry", "check_resource_allowed", "resource_url_from_server_url"]
