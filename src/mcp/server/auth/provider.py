"""What an MCP server needs to know about tokens, and the embedded authorization server protocol.

- `TokenVerifier` + `AccessToken`: the resource-server integration surface. `verify_token` gets the
  raw bearer token and returns an `AccessToken` (valid) or `None` (not).
- `OAuthAuthorizationServerProvider`: the whole authorization server, for servers that embed one
  (`create_auth_routes`). New servers should verify tokens from an external authorization server
  instead.

Pure pydantic: importing this module loads no HTTP stack.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic, Literal, Protocol, TypeVar, runtime_checkable
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from pydantic import AnyUrl, BaseModel

from mcp.shared.auth import OAuthClientInformationFull, OAuthToken


class AccessToken(BaseModel):
    """A verified access token: who it was issued to, what it allows, until when, and for which
    resource (the token's audience, RFC 8707). `claims` carries anything else the verifier read."""

    token: str
    client_id: str
    scopes: list[str]
    expires_at: int | None = None
    resource: str | None = None
    subject: str | None = None
    claims: dict[str, Any] | None = None


def principal_components(token: AccessToken) -> tuple[str, str | None, str | None]:
    """Who a token stands for, as `(client_id, issuer, subject)`: the issuer comes from the `iss`
    claim the verifier recorded. A component the verifier did not supply is `None`, so comparisons
    (e.g. "is this the principal that opened the session?") fall back to the others."""
    issuer = (token.claims or {}).get("iss")
    return token.client_id, (str(issuer) if issuer is not None else None), token.subject


class AuthorizationParams(BaseModel):
    """A validated authorization request, handed to `OAuthAuthorizationServerProvider.authorize`."""

    state: str | None
    scopes: list[str] | None
    code_challenge: str
    redirect_uri: AnyUrl
    redirect_uri_provided_explicitly: bool
    resource: str | None = None


class AuthorizationCode(BaseModel):
    code: str
    scopes: list[str]
    expires_at: float
    client_id: str
    code_challenge: str
    redirect_uri: AnyUrl
    redirect_uri_provided_explicitly: bool
    resource: str | None = None
    subject: str | None = None


class RefreshToken(BaseModel):
    token: str
    client_id: str
    scopes: list[str]
    expires_at: int | None = None
    resource: str | None = None
    subject: str | None = None
    """The resource owner, carried over to the access tokens a refresh issues."""


class IdentityAssertionParams(BaseModel):
    """A `jwt-bearer` grant presenting an ID-JAG (SEP-990): the raw assertion and what the client
    asked for. `scopes` and `resource` are only the client's request: take what is granted from
    the validated assertion."""

    assertion: str
    scopes: list[str] | None = None
    resource: str | None = None


RegistrationErrorCode = Literal[
    "invalid_redirect_uri",
    "invalid_client_metadata",
    "invalid_software_statement",
    "unapproved_software_statement",
]
"""RFC 7591 §3.2.2 registration error codes."""

AuthorizationErrorCode = Literal[
    "invalid_request",
    "unauthorized_client",
    "access_denied",
    "unsupported_response_type",
    "invalid_scope",
    "server_error",
    "temporarily_unavailable",
    "invalid_target",
]
"""RFC 6749 §4.1.2.1 authorization error codes (plus RFC 8707 `invalid_target`)."""

TokenErrorCode = Literal[
    "invalid_request",
    "invalid_client",
    "invalid_grant",
    "unauthorized_client",
    "unsupported_grant_type",
    "invalid_scope",
    "invalid_target",
]
"""RFC 6749 §5.2 token error codes (plus RFC 8707 `invalid_target`)."""


@dataclass(frozen=True)
class RegistrationError(Exception):
    """Refuse a client registration (RFC 7591 §3.2.2 `error`, e.g. `invalid_client_metadata`)."""

    error: RegistrationErrorCode
    error_description: str | None = None


@dataclass(frozen=True)
class AuthorizeError(Exception):
    """Refuse an authorization request (RFC 6749 §4.1.2.1 `error`, e.g. `access_denied`)."""

    error: AuthorizationErrorCode
    error_description: str | None = None


@dataclass(frozen=True)
class TokenError(Exception):
    """Refuse a token request (RFC 6749 §5.2 `error`, e.g. `invalid_grant`, `invalid_target`)."""

    error: TokenErrorCode
    error_description: str | None = None


class InvalidTokenError(Exception):
    """A verifier's refusal with its reason: the gate answers `401 invalid_token` with
    `description` as `error_description` (returning `None` gives the generic description). The
    description is sent to the client: never put the token, or secrets, in it."""

    def __init__(self, description: str = "Authentication required") -> None:
        super().__init__(description)
        self.description = description


class InsufficientScopeError(Exception):
    """A valid token that lacks scopes: the gate answers `403 insufficient_scope` with the
    challenge's `scope` set to `required`."""

    def __init__(self, required: list[str], description: str | None = None) -> None:
        self.required = list(required)
        self.description = description or f"Required scope: {' '.join(self.required)}"
        super().__init__(self.description)


@runtime_checkable
class TokenVerifier(Protocol):
    """Turns a bearer token into an `AccessToken`, or `None` when it is not valid. A verifier may
    raise `InvalidTokenError` (401) or `InsufficientScopeError` (403) to say why; ready-made ones
    live in `mcp.server.auth.verifiers` (`JWTVerifier`, `IntrospectionVerifier`,
    `StaticTokenVerifier`)."""

    async def verify_token(self, token: str) -> AccessToken | None: ...


AuthorizationCodeT = TypeVar("AuthorizationCodeT", bound=AuthorizationCode)
RefreshTokenT = TypeVar("RefreshTokenT", bound=RefreshToken)
AccessTokenT = TypeVar("AccessTokenT", bound=AccessToken)


class OAuthAuthorizationServerProvider(Protocol, Generic[AuthorizationCodeT, RefreshTokenT, AccessTokenT]):
    """The storage and decisions of an embedded authorization server; `create_auth_routes`
    serves the HTTP side (validation, PKCE, client authentication) and calls these.

    Subclass it and implement what your server supports; the defaults of `register_client`,
    `revoke_token` and `exchange_identity_assertion` refuse."""

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        """The registered client, or `None`."""
        ...

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        """Store a dynamically registered client (raise `RegistrationError` to refuse)."""
        raise RegistrationError("invalid_client_metadata", "dynamic client registration is not supported")

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        """Start the user's authorization; return the URL to redirect the user agent to (your
        login/consent page, or `construct_redirect_uri(params.redirect_uri, code=..., state=...)`)."""
        ...

    async def load_authorization_code(self, client: OAuthClientInformationFull,
                                      authorization_code: str) -> AuthorizationCodeT | None: ...

    async def exchange_authorization_code(self, client: OAuthClientInformationFull,
                                          authorization_code: AuthorizationCodeT) -> OAuthToken: ...

    async def load_refresh_token(self, client: OAuthClientInformationFull, refresh_token: str) -> RefreshTokenT | None: ...

    async def exchange_refresh_token(self, client: OAuthClientInformationFull, refresh_token: RefreshTokenT,
                                     scopes: list[str]) -> OAuthToken: ...

    async def load_access_token(self, token: str) -> AccessTokenT | None: ...

    async def revoke_token(self, token: AccessTokenT | RefreshTokenT) -> None:
        """Revoke an access or refresh token (and, typically, its counterpart)."""
        return None

    async def exchange_identity_assertion(self, client: OAuthClientInformationFull,
                                          params: IdentityAssertionParams) -> OAuthToken:
        """SEP-990: validate the ID-JAG in `params.assertion` and issue a token. Only called with
        `identity_assertion_enabled=True`, for an authenticated confidential client registered
        for the `jwt-bearer` grant."""
        raise TokenError("unsupported_grant_type", "identity assertions are not accepted")


class ProviderTokenVerifier(TokenVerifier):
    """A `TokenVerifier` backed by an embedded authorization server's `load_access_token`."""

    def __init__(self, provider: OAuthAuthorizationServerProvider[Any, Any, Any]) -> None:
        self.provider = provider

    async def verify_token(self, token: str) -> AccessToken | None:
        return await self.provider.load_access_token(token)


def construct_redirect_uri(redirect_uri_base: str, **params: str | None) -> str:
    """`redirect_uri_base` with `params` (the non-`None` ones) added to its query."""
    parts = urlsplit(str(redirect_uri_base))
    query = parse_qsl(parts.query, keep_blank_values=True)
    query.extend((key, value) for key, value in params.items() if value is not None)
    return urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(query), parts.fragment))


__all__ = [
    "AccessToken",
    "AccessTokenT",
    "AuthorizationCode",
    "AuthorizationCodeT",
    "AuthorizationErrorCode",
    "AuthorizationParams",
    "AuthorizeError",
    "IdentityAssertionParams",
    "InsufficientScopeError",
    "InvalidTokenError",
    "OAuthAuthorizationServerProvider",
    "ProviderTokenVerifier",
    "RefreshToken",
    "RefreshTokenT",
    "RegistrationError",
    "RegistrationErrorCode",
    "TokenError",
    "TokenErrorCode",
    "TokenVerifier",
    "construct_redirect_uri",
    "principal_components",
]
