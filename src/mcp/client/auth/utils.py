"""Helpers of the OAuth client: `WWW-Authenticate` parsing, discovery URLs, scope selection,
issuer and resource checks, and the building and parsing of discovery, registration and token
messages.

Nothing here sends anything: the builders return `httpx2.Request`s for a flow to yield, the
`handle_*` functions parse the responses it got back (either library's: they read the same).
"""

from __future__ import annotations

import re
from typing import Any, cast
from urllib.parse import urljoin, urlsplit, urlunsplit

from httpx2 import Request, Response
from pydantic import AnyUrl, ValidationError
from pydantic_core import from_json

from mcp._protocol.http import VERSION_HEADER as MCP_PROTOCOL_VERSION_HEADER
from mcp.client.auth.exceptions import OAuthFlowError, OAuthRegistrationError, OAuthTokenError
from mcp.shared.auth import (
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthMetadata,
    OAuthToken,
    ProtectedResourceMetadata,
)
from mcp.types.version import LATEST_PROTOCOL_VERSION

PRM_WELL_KNOWN = "/.well-known/oauth-protected-resource"
OAUTH_AS_WELL_KNOWN = "/.well-known/oauth-authorization-server"
OIDC_WELL_KNOWN = "/.well-known/openid-configuration"
OFFLINE_ACCESS = "offline_access"

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
    """`build_protected_resource_metadata_discovery_urls` as the provider uses it: the server
    URL's trailing slash ignored and each URL tried once."""
    parts = urlsplit(server_url)
    trimmed = urlunsplit((parts.scheme, parts.netloc, parts.path.rstrip("/"), "", ""))
    return list(dict.fromkeys(build_protected_resource_metadata_discovery_urls(header_url, trimmed)))


def authorization_server_metadata_urls(issuer: str) -> list[str]:
    """Where to look for authorization server metadata of `issuer`, in the MCP order (see
    `build_oauth_authorization_server_metadata_discovery_urls`)."""
    return build_oauth_authorization_server_metadata_discovery_urls(issuer, issuer)


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


def issuers_match(a: str, b: str) -> bool:
    """RFC 8414 §3.3 issuer comparison: identical strings, except that a root issuer with and
    without its trailing slash (`https://as.example` / `https://as.example/`) is the same server."""
    if a == b:
        return True
    shorter, longer = sorted((a, b), key=len)
    parts = urlsplit(shorter)
    return longer == f"{shorter}/" and shorter == f"{parts.scheme}://{parts.netloc}"


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


def redirect_note(response: Response) -> str:
    """` (redirected to <location>; not followed)` for a redirect the client did not follow (the
    location without userinfo, query or fragment, which may carry state), else empty."""
    following = getattr(response, "next_request", None)
    if following is None:
        return ""
    location = following.url.copy_with(userinfo=b"", query=None, fragment=None)
    return f" (redirected to {location}; not followed)"


# -- WWW-Authenticate ---------------------------------------------------------------------------


def extract_field_from_www_auth(response: Response, field_name: str) -> str | None:
    """The `field_name` auth-param of the response's `WWW-Authenticate` header (quoted or
    token form), or `None`."""
    header = response.headers.get("WWW-Authenticate")
    if not header:
        return None
    match = re.search(rf'{re.escape(field_name)}=(?:"([^"]+)"|([^\s,]+))', header)
    if match is None:
        return None
    return match.group(1) or match.group(2)


def extract_scope_from_www_auth(response: Response) -> str | None:
    """The `scope` of the challenge (RFC 6750 §3)."""
    return extract_field_from_www_auth(response, "scope")


def extract_resource_metadata_from_www_auth(response: Response) -> str | None:
    """The `resource_metadata` URL of a 401/403 challenge (RFC 9728 §5.1)."""
    if response.status_code not in (401, 403):
        return None
    return extract_field_from_www_auth(response, "resource_metadata")


# -- discovery ----------------------------------------------------------------------------------


def build_protected_resource_metadata_discovery_urls(www_auth_url: str | None, server_url: str) -> list[str]:
    """Where to look for protected resource metadata, in order (SEP-985): the challenge's
    `resource_metadata`, then the path-based and the root well-known URIs (RFC 9728 §3.1)."""
    urls = [www_auth_url] if www_auth_url else []
    parts = urlsplit(server_url)
    base = f"{parts.scheme}://{parts.netloc}"
    if parts.path and parts.path != "/":
        urls.append(urljoin(base, f"{PRM_WELL_KNOWN}{parts.path}"))
    urls.append(urljoin(base, PRM_WELL_KNOWN))
    return urls


def build_oauth_authorization_server_metadata_discovery_urls(auth_server_url: str | None,
                                                             server_url: str) -> list[str]:
    """Where to look for authorization server metadata, in order: RFC 8414 and OIDC path
    insertion, then OIDC path appending (for an issuer with a path), or the two root documents.
    Without an authorization server (2025-03-26 servers) only the MCP server's root RFC 8414
    document."""
    if not auth_server_url:
        parts = urlsplit(server_url)
        return [f"{parts.scheme}://{parts.netloc}{OAUTH_AS_WELL_KNOWN}"]
    parts = urlsplit(auth_server_url)
    base = f"{parts.scheme}://{parts.netloc}"
    path = parts.path.rstrip("/")
    if parts.path and parts.path != "/":
        return [urljoin(base, f"{OAUTH_AS_WELL_KNOWN}{path}"), urljoin(base, f"{OIDC_WELL_KNOWN}{path}"),
                urljoin(base, f"{path}{OIDC_WELL_KNOWN}")]
    return [urljoin(base, OAUTH_AS_WELL_KNOWN), urljoin(base, OIDC_WELL_KNOWN)]


def create_oauth_metadata_request(url: str) -> Request:
    """A metadata GET announcing the latest protocol version."""
    return Request("GET", url, headers={MCP_PROTOCOL_VERSION_HEADER: LATEST_PROTOCOL_VERSION})


async def handle_protected_resource_response(response: Response) -> ProtectedResourceMetadata | None:
    """The metadata of a 200 response; `None` (try the next URL) otherwise or when invalid."""
    if response.status_code != 200:
        return None
    try:
        return ProtectedResourceMetadata.model_validate_json(await response.aread())
    except ValidationError:
        return None


async def handle_auth_metadata_response(response: Response) -> tuple[bool, OAuthMetadata | None]:
    """`(keep_trying, metadata)`: the metadata of a 200 response; a 3xx/4xx means "not here, try
    the next URL"; anything else stops the discovery."""
    if response.status_code == 200:
        try:
            return True, OAuthMetadata.model_validate_json(await response.aread())
        except ValidationError:
            return True, None
    if 300 <= response.status_code < 500:
        return True, None
    return False, None


def validate_metadata_issuer(oauth_metadata: OAuthMetadata, expected_issuer: str) -> None:
    """Refuse (`OAuthFlowError`) metadata whose `issuer` is not the one discovery started from
    (RFC 8414 §3.3, simple string comparison)."""
    if str(oauth_metadata.issuer) != expected_issuer:
        raise OAuthFlowError(
            f"Authorization server metadata issuer mismatch: {oauth_metadata.issuer} != {expected_issuer}"
        )


def validate_authorization_response_iss(iss: str | None, oauth_metadata: OAuthMetadata | None) -> None:
    """RFC 9207 §2.4: an `iss` in the authorization response must be the server's issuer (simple
    string comparison); a missing one is refused only when the server advertised
    `authorization_response_iss_parameter_supported`."""
    expected = str(oauth_metadata.issuer) if oauth_metadata is not None else None
    if iss is not None:
        if iss != expected:
            raise OAuthFlowError(f"Authorization response iss mismatch: {iss} != {expected}")
        return
    if oauth_metadata is not None and oauth_metadata.authorization_response_iss_parameter_supported:
        raise OAuthFlowError("Authorization response missing iss parameter advertised by the authorization server")


# -- scopes -------------------------------------------------------------------------------------


def get_client_metadata_scopes(
    www_authenticate_scope: str | None,
    protected_resource_metadata: ProtectedResourceMetadata | None,
    authorization_server_metadata: OAuthMetadata | None = None,
    client_grant_types: list[str] | None = None,
) -> str | None:
    """The scope to request, in the MCP order: the challenge's, the resource's `scopes_supported`,
    the authorization server's, else none. `offline_access` is added (SEP-2207) when the server
    supports it and the client uses refresh tokens."""
    selected: str | None = None
    if www_authenticate_scope is not None:
        selected = www_authenticate_scope
    elif protected_resource_metadata is not None and protected_resource_metadata.scopes_supported is not None:
        selected = " ".join(protected_resource_metadata.scopes_supported)
    elif authorization_server_metadata is not None and authorization_server_metadata.scopes_supported is not None:
        selected = " ".join(authorization_server_metadata.scopes_supported)
    server_scopes = authorization_server_metadata.scopes_supported if authorization_server_metadata else None
    if (selected is not None and server_scopes is not None and OFFLINE_ACCESS in server_scopes
            and client_grant_types is not None and "refresh_token" in client_grant_types
            and OFFLINE_ACCESS not in selected.split()):
        selected = f"{selected} {OFFLINE_ACCESS}"
    return selected


def union_scopes(previous_scope: str | None, new_scope: str | None) -> str | None:
    """Both scope strings merged, order kept, duplicates dropped (SEP-2350 step-up requests the
    previous scopes plus the challenged ones)."""
    if not previous_scope:
        return new_scope
    if not new_scope:
        return previous_scope
    return " ".join(split_scopes(f"{previous_scope} {new_scope}"))


# -- registration -------------------------------------------------------------------------------


def create_client_registration_request(auth_server_metadata: OAuthMetadata | None,
                                       client_metadata: OAuthClientMetadata, auth_base_url: str) -> Request:
    """The RFC 7591 registration POST: to the advertised `registration_endpoint`, else to
    `/register` on `auth_base_url`."""
    if auth_server_metadata is not None and auth_server_metadata.registration_endpoint:
        url = str(auth_server_metadata.registration_endpoint)
    else:
        url = urljoin(auth_base_url, "/register")
    body = client_metadata.model_dump(by_alias=True, mode="json", exclude_none=True)
    return Request("POST", url, json=body, headers={"Content-Type": "application/json"})


async def handle_registration_response(response: Response) -> OAuthClientInformationFull:
    """The registered client of a 200/201 response (`OAuthRegistrationError` otherwise). A
    server-sent `issuer` is dropped: that field is the SDK's own record of where the credentials
    were registered, never taken from the wire."""
    if response.status_code not in (200, 201):
        await response.aread()
        raise OAuthRegistrationError(f"Registration failed: {response.status_code}{redirect_note(response)} {response.text}")
    try:
        body = from_json(await response.aread())
        if isinstance(body, dict):
            cast(dict[str, Any], body).pop("issuer", None)
        return OAuthClientInformationFull.model_validate(body)
    except ValueError as exc:
        raise OAuthRegistrationError(f"Invalid registration response: {exc}") from exc


def credentials_match_issuer(client_info: OAuthClientInformationFull, issuer: str,
                             client_metadata_url: str | None) -> bool:
    """Whether stored credentials may be used with `issuer` (SEP-2352): a Client ID Metadata
    Document id (the configured `client_metadata_url`) works anywhere; credentials without a
    recorded issuer carry no binding; otherwise the recorded issuer must match."""
    if client_metadata_url is not None and client_info.client_id == client_metadata_url:
        return True
    if client_info.issuer is None:
        return True
    return issuers_match(client_info.issuer, issuer)


def should_use_client_metadata_url(oauth_metadata: OAuthMetadata | None, client_metadata_url: str | None) -> bool:
    """Use the URL-based client id (CIMD) instead of registering: only when one is configured and
    the server advertises `client_id_metadata_document_supported`."""
    if not client_metadata_url or oauth_metadata is None:
        return False
    return oauth_metadata.client_id_metadata_document_supported is True


def create_client_info_from_metadata_url(client_metadata_url: str,
                                         redirect_uris: list[AnyUrl] | None = None) -> OAuthClientInformationFull:
    """The client information of a CIMD client: the URL is the client id, with no secret."""
    return OAuthClientInformationFull(client_id=client_metadata_url, token_endpoint_auth_method="none",
                                      redirect_uris=redirect_uris)


# -- tokens -------------------------------------------------------------------------------------


async def handle_token_response_scopes(response: Response) -> OAuthToken:
    """The `OAuthToken` of a token response (check the status first); `OAuthTokenError` when the
    body is not one."""
    try:
        return OAuthToken.model_validate_json(await response.aread())
    except ValidationError as exc:
        raise OAuthTokenError(f"Invalid token response: {exc}") from exc
