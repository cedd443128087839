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
_PARAM = re.compile(rf"^({_TOKEN})\s*=\s*(.*)$", re.DOTALL)
_SCHEME = re.compile(rf"^({_TOKEN})(?:\s+(.*))?$", re.DOTALL)
_SCHEME_WITH_PARAM = re.compile(rf"^{_TOKEN}\s+{_TOKEN}\s*=")


def _split_items(header: str) -> list[str]:
    """Split a header value on the commas that are not inside a quoted string."""
    items: list[str] = []
    buf: list[str] = []
    quoted = escaped = False
    for ch in header:
        if escaped:
            escaped = False
        elif quoted and ch == "\\":
            escaped = True
        elif ch == '"':
            quoted = not quoted
        elif ch == "," and not quoted:
            items.append("".join(buf).strip())
            buf = []
            continue
        buf.append(ch)
    items.append("".join(buf).strip())
    return [item for item in items if item]


def _unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value.startswith('"') and value.endswith('"'):
        return re.sub(r"\\(.)", r"\1", value[1:-1])
    return value


def parse_www_authenticate(header: str | None, scheme: str = "Bearer") -> dict[str, str] | None:
    """The auth-params of the `scheme` challenge in a `WWW-Authenticate` value (RFC 9110 §11.6.1),
    names lowercased and quoted strings unquoted; `None` when there is no such challenge.

    `Bearer realm="x", error="insufficient_scope", scope="a b"` -> `{"realm": "x", "error": ..., "scope": "a b"}`.
    Several challenges in one value (`Bearer ..., DPoP algs="ES256"`) are told apart by a scheme
    token that is not followed by `=`.
    """
    if not header:
        return None
    found: dict[str, str] | None = None
    current: dict[str, str] | None = None
    for item in _split_items(header):
        param = _PARAM.match(item)
        if param is not None and current is not None and not _SCHEME_WITH_PARAM.match(item):
            current.setdefault(param.group(1).lower(), _unquote(param.group(2)))
            continue
        challenge = _SCHEME.match(item)
        if challenge is None:
            current = None
            continue
        current = {}
        if found is None and challenge.group(1).lower() == scheme.lower():
            found = current
        rest = challenge.group(2)
        if rest:
            first = _PARAM.match(rest.strip())
            if first is not None:
                current.setdefault(first.group(1).lower(), _unquote(first.group(2)))
    return found


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
