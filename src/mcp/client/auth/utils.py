"""Pure helpers of the OAuth client: `WWW-Authenticate` parsing, discovery URLs, resource checks.

Nothing here does I/O; the provider in `oauth2.py` yields the requests.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit, urlunsplit

PRM_WELL_KNOWN = "/.well-known/oauth-protected-resource"
OAUTH_AS_WELL_KNOWN = "/.well-known/oauth-authorization-server"
OIDC_WELL_KNOWN = "/.well-known/openid-configuration"

_TOKEN = r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+"
_PARAM = re.compile(rf"\s*({_TOKEN})\s*=\s*(\"(?:[^\"\\]|\\.)*\"|[^\s,]*)\s*")
_SCHEME = re.compile(rf"\s*({_TOKEN})(?=\s|$|,)")


def parse_www_authenticate(header: str | None, scheme: str = "Bearer") -> dict[str, str] | None:
    """The auth-params of the `scheme` challenge in a `WWW-Authenticate` value (RFC 9110 §11.6.1),
    with quoted strings unquoted; `None` when there is no such challenge.

    `Bearer realm="x", error="insufficient_scope", scope="a b"` -> `{"realm": "x", "error": ..., "scope": "a b"}`.
    Several challenges in one value (`Bearer ..., DPoP algs="ES256"`) are told apart by a scheme
    token that is not followed by `=`.
    """
    if not header:
        return None
    challenges: list[tuple[str, dict[str, str]]] = []
    pos = 0
    current: dict[str, str] | None = None
    while pos < len(header):
        if header[pos] in ", \t":
            pos += 1
            continue
        param = _PARAM.match(header, pos)
        if param is not None and current is not None:
            name, value = param.group(1).lower(), param.group(2)
            if value.startswith('"') and value.endswith('"') and len(value) >= 2:
                value = re.sub(r"\\(.)", r"\1", value[1:-1])
            current.setdefault(name, value)
            pos = param.end()
            continue
        match = _SCHEME.match(header, pos)
        if match is None:
            break
        current = {}
        challenges.append((match.group(1), current))
        pos = match.end()
        # token68 form (`Basic abc==`): skip it
        token68 = re.match(r"\s*([A-Za-z0-9\-._~+/]+=*)\s*(?=,|$)", header[pos:])
        if token68 is not None and "=" not in header[pos:pos + token68.end()].rstrip("=").strip():
            pos += token68.end()
    for name, params in challenges:
        if name.lower() == scheme.lower():
            return params
    return None


def split_scopes(scope: str | None) -> list[str]:
    """A space-separated scope string as a list, order kept, duplicates dropped."""
    seen: dict[str, None] = {}
    for item in (scope or "").split():
        seen.setdefault(item, None)
    return list(seen)


def origin(url: str) -> str:
    """`scheme://host[:port]` of `url` (scheme and host lowercased)."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), "", "", ""))


def canonical_resource(url: str) -> str:
    """The canonical URI of an MCP server (RFC 8707 §2 as profiled by MCP): lowercase scheme and
    host, no fragment, no query, no trailing slash unless the path is exactly `/`."""
    parts = urlsplit(url)
    path = parts.path
    if path.endswith("/") and path != "/":
        path = path.rstrip("/")
    if path == "/":
        path = ""
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), path, "", ""))


def protected_resource_metadata_urls(server_url: str, header_url: str | None) -> list[str]:
    """Where to look for protected resource metadata, in order: the `resource_metadata` URL of the
    `WWW-Authenticate` challenge, the path-based well-known URI, the root well-known URI."""
    urls: list[str] = []
    if header_url:
        urls.append(header_url)
    parts = urlsplit(server_url)
    base = origin(server_url)
    path = parts.path.rstrip("/")
    if path:
        urls.append(f"{base}{PRM_WELL_KNOWN}{path}")
    urls.append(f"{base}{PRM_WELL_KNOWN}")
    deduplicated: list[str] = []
    for url in urls:
        if url not in deduplicated:
            deduplicated.append(url)
    return deduplicated


def authorization_server_metadata_urls(issuer: str) -> list[str]:
    """Where to look for authorization server metadata of `issuer`, in the MCP order: RFC 8414 path
    insertion, OIDC path insertion, OIDC path appending (without a path: RFC 8414, then OIDC)."""
    parts = urlsplit(issuer)
    base = origin(issuer)
    path = parts.path.rstrip("/")
    if not path:
        return [f"{base}{OAUTH_AS_WELL_KNOWN}", f"{base}{OIDC_WELL_KNOWN}"]
    return [f"{base}{OAUTH_AS_WELL_KNOWN}{path}", f"{base}{OIDC_WELL_KNOWN}{path}", f"{base}{path}{OIDC_WELL_KNOWN}"]


def resource_covers(resource: str, server_url: str) -> bool:
    """Whether the protected resource identifier `resource` (from metadata) names the MCP server at
    `server_url`: same scheme, host and port, and `server_url`'s path is the resource's path or
    lies below it (on a `/` boundary)."""
    wanted, published = urlsplit(canonical_resource(server_url)), urlsplit(canonical_resource(resource))
    if (wanted.scheme, wanted.hostname, _port(wanted)) != (published.scheme, published.hostname, _port(published)):
        return False
    base = published.path.rstrip("/")
    path = wanted.path.rstrip("/")
    return path == base or path.startswith(base + "/")


def _port(parts: object) -> int | None:
    scheme = getattr(parts, "scheme", "")
    try:
        port = getattr(parts, "port", None)
    except ValueError:
        return None
    if port is not None:
        return port
    return {"http": 80, "https": 443}.get(scheme)


def issuers_match(expected: str, actual: str) -> bool:
    """RFC 8414 §3.3 issuer check for a metadata document: identical strings (a lone trailing `/`
    on an otherwise identical identifier is tolerated, as pydantic-built servers add one)."""
    return expected == actual or expected.rstrip("/") == actual.rstrip("/")


def is_valid_client_metadata_url(url: str | None) -> bool:
    """A Client ID Metadata Document URL must be HTTPS with a host and a non-root path."""
    if not url:
        return False
    parts = urlsplit(url)
    return parts.scheme == "https" and bool(parts.netloc) and parts.path not in ("", "/")


def is_loopback_or_custom(url: str) -> bool:
    """A redirect URI a native application would use: loopback HTTP(S) or a private-use scheme."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        return True
    return (parts.hostname or "") in ("localhost", "127.0.0.1", "::1")
