"""What the OAuth client provider knows and keeps: `OAuthContext` (its configuration, what
discovery found, the client and the tokens, and how a token request is authenticated), the
`TokenStorage` protocol, PKCE parameters, the handler types, and the check of a dynamic
registration the authorization-code flow can use.

`mcp.client.auth.oauth2` is the official path of these names.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
import string
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Protocol, get_args, runtime_checkable
from urllib.parse import quote, urlsplit

import anyio
from pydantic import BaseModel, Field

from mcp.client.auth.exceptions import OAuthRegistrationError, OAuthTokenError
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthMetadata,
    OAuthToken,
    ProtectedResourceMetadata,
    TokenEndpointAuthMethod,
)
from mcp.shared.auth_utils import calculate_token_expiry, check_resource_allowed, resource_url_from_server_url
from mcp.types.version import is_version_at_least

_PKCE_ALPHABET = string.ascii_letters + string.digits + "-._~"

_KNOWN_TOKEN_ENDPOINT_AUTH_METHODS: tuple[str | None, ...] = (None, *get_args(TokenEndpointAuthMethod))
"""Methods a client record may carry. `private_key_jwt` adds nothing here: only
`PrivateKeyJWTOAuthProvider` signs its assertion (in its client-credentials request)."""
_SECRET_AUTH_METHODS = ("client_secret_basic", "client_secret_post")
_REGISTRATION_USABLE_AUTH_METHODS = tuple(m for m in _KNOWN_TOKEN_ENDPOINT_AUTH_METHODS if m != "private_key_jwt")
"""What a dynamic registration of the authorization-code flow may assign: it holds no key to sign
a `private_key_jwt` assertion."""


def check_registration_usable(client_info: OAuthClientInformationFull) -> None:
    """Refuse (`OAuthRegistrationError`) a dynamic registration the authorization-code flow cannot
    use (RFC 7591 §3.2.1 lets the server substitute values; the client checks them): a
    token-endpoint auth method this flow cannot apply (unknown, or `private_key_jwt`), or a
    secret-based method without an issued `client_secret`."""
    method = client_info.token_endpoint_auth_method
    if method not in _REGISTRATION_USABLE_AUTH_METHODS:
        raise OAuthRegistrationError(
            f"Authorization server registered the client with unsupported token_endpoint_auth_method {method!r}"
        )
    if method in _SECRET_AUTH_METHODS and client_info.client_secret is None:
        raise OAuthRegistrationError(
            f"Authorization server registered the client for {method!r} but issued no client_secret"
        )


# -- public protocol and values -----------------------------------------------------------------


@runtime_checkable
class TokenStorage(Protocol):
    """Where the provider keeps tokens and client registrations between runs: four async
    methods, no base class needed."""

    async def get_tokens(self) -> OAuthToken | None: ...

    async def set_tokens(self, tokens: OAuthToken) -> None: ...

    async def get_client_info(self) -> OAuthClientInformationFull | None: ...

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None: ...


class PKCEParameters(BaseModel):
    """A PKCE verifier and its S256 challenge (RFC 7636)."""

    code_verifier: str = Field(..., min_length=43, max_length=128)
    code_challenge: str = Field(..., min_length=43, max_length=128)

    @classmethod
    def generate(cls) -> PKCEParameters:
        verifier = "".join(secrets.choice(_PKCE_ALPHABET) for _ in range(128))
        digest = hashlib.sha256(verifier.encode("ascii")).digest()
        challenge = base64.urlsafe_b64encode(digest).decode("ascii").rstrip("=")
        return cls(code_verifier=verifier, code_challenge=challenge)


RedirectHandler = Callable[[str], Awaitable[None]]
CallbackHandler = Callable[[], Awaitable[AuthorizationCodeResult]]
"""Returns an `AuthorizationCodeResult` (a v1-style `(code, state)` tuple is still accepted)."""
ResourceValidator = Callable[[str, "str | None"], Awaitable[None]]
"""`(server_url, resource_from_metadata)`; raise to refuse the protected resource metadata."""


@dataclass
class OAuthContext:
    """Everything the provider knows: its configuration, what discovery found, the client and
    the tokens. `protocol_version` is the `MCP-Protocol-Version` of the latest request the
    provider authorized."""

    server_url: str
    client_metadata: OAuthClientMetadata
    storage: TokenStorage
    redirect_handler: RedirectHandler | None = None
    callback_handler: CallbackHandler | None = None
    client_metadata_url: str | None = None

    protected_resource_metadata: ProtectedResourceMetadata | None = None
    oauth_metadata: OAuthMetadata | None = None
    auth_server_url: str | None = None
    protocol_version: str | None = None

    client_info: OAuthClientInformationFull | None = None
    current_tokens: OAuthToken | None = None
    token_expiry_time: float | None = None
    lock: anyio.Lock = field(default_factory=anyio.Lock)

    def get_authorization_base_url(self, server_url: str) -> str:
        """`scheme://host[:port]` of `server_url` (the 2025-03-26 authorization base URL)."""
        parts = urlsplit(server_url)
        return f"{parts.scheme}://{parts.netloc}"

    def update_token_expiry(self, token: OAuthToken) -> None:
        self.token_expiry_time = calculate_token_expiry(token.expires_in)

    def is_token_valid(self) -> bool:
        """An access token is held and, when its lifetime is known, has not run out."""
        return bool(
            self.current_tokens and self.current_tokens.access_token
            and (not self.token_expiry_time or time.time() <= self.token_expiry_time)
        )

    def can_refresh_token(self) -> bool:
        return bool(self.current_tokens and self.current_tokens.refresh_token and self.client_info)

    def clear_tokens(self) -> None:
        self.current_tokens = None
        self.token_expiry_time = None

    def get_resource_url(self) -> str:
        """The RFC 8707 `resource`: the protected resource metadata's `resource` when it covers
        the MCP server's URL, else the canonical URL of the MCP server."""
        resource = resource_url_from_server_url(self.server_url)
        prm = self.protected_resource_metadata
        if prm is not None and prm.resource:
            published = str(prm.resource)
            if check_resource_allowed(requested_resource=resource, configured_resource=published):
                resource = published
        return resource

    def should_include_resource_param(self, protocol_version: str | None = None) -> bool:
        """Whether OAuth requests carry the RFC 8707 `resource` parameter: always once protected
        resource metadata was found, else from protocol version 2025-06-18 on."""
        if self.protected_resource_metadata is not None:
            return True
        if not protocol_version:
            return False
        return is_version_at_least(protocol_version, "2025-06-18")

    def prepare_token_auth(self, data: dict[str, str],
                           headers: dict[str, str] | None = None) -> tuple[dict[str, str], dict[str, str]]:
        """`(data, headers)` of a token request with the registered client's authentication
        applied (RFC 6749 §2.3.1): `client_secret_basic` as a URL-encoded `Authorization: Basic`
        header (the secret kept out of the body), `client_secret_post` as form fields; `none`,
        no method and `private_key_jwt` add nothing. Any other method is an `OAuthTokenError`."""
        headers = {} if headers is None else headers
        info = self.client_info
        if info is None:
            return data, headers
        method = info.token_endpoint_auth_method
        if method == "client_secret_basic" and info.client_secret:
            credentials = f"{quote(info.client_id or '', safe='')}:{quote(info.client_secret, safe='')}"
            headers["Authorization"] = "Basic " + base64.b64encode(credentials.encode()).decode("ascii")
            data = {key: value for key, value in data.items() if key != "client_secret"}
        elif method == "client_secret_post" and info.client_secret:
            data["client_id"] = info.client_id or ""
            data["client_secret"] = info.client_secret
        elif method not in _KNOWN_TOKEN_ENDPOINT_AUTH_METHODS:
            raise OAuthTokenError(f"Registered client uses unsupported token_endpoint_auth_method {method!r}")
        return data, headers
