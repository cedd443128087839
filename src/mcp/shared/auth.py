"""OAuth 2.x documents shared by the client and the server side (pydantic models).

- `OAuthToken`: a token endpoint response (RFC 6749 §5.1).
- `OAuthClientMetadata` / `OAuthClientInformationFull`: a client registration request and the
  registered client (RFC 7591).
- `OAuthMetadata`: authorization server metadata (RFC 8414; also what OpenID Connect Discovery
  returns).
- `ProtectedResourceMetadata`: protected resource metadata (RFC 9728).

Identifiers that OAuth compares character for character (`issuer`, `resource`, the entries of
`authorization_servers`) are kept as the exact strings the document carried: a URL type would
normalize them (`https://as.example` -> `https://as.example/`) and break RFC 8414 §3.3,
RFC 9207 and RFC 9728 §3.3 comparisons. They are still checked to be absolute URLs.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from pydantic import AfterValidator, AnyHttpUrl, AnyUrl, BaseModel, ConfigDict, Field, field_validator

JWT_BEARER_GRANT_TYPE = "urn:ietf:params:oauth:grant-type:jwt-bearer"
"""The RFC 7523 assertion grant (used with an ID-JAG by the identity-assertion extension)."""

CLIENT_CREDENTIALS_GRANT_TYPE = "client_credentials"
JWT_BEARER_CLIENT_ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

TokenEndpointAuthMethod = Literal["none", "client_secret_post", "client_secret_basic", "private_key_jwt"]


def _absolute_url(value: str) -> str:
    parts = urlsplit(value)
    if not parts.scheme or not parts.netloc:
        raise ValueError(f"must be an absolute URL, got {value!r}")
    return value


UrlString = Annotated[str, AfterValidator(_absolute_url)]
"""An absolute URL kept verbatim (no normalization), for identifiers compared as strings."""


class InvalidScopeError(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InvalidRedirectUriError(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class OAuthToken(BaseModel):
    """A token endpoint response (RFC 6749 §5.1). `token_type` is normalized to `Bearer` whatever
    its case (the comparison is case-insensitive); other types (e.g. `DPoP`) are kept as sent."""

    model_config = ConfigDict(extra="allow")

    access_token: str
    token_type: str = "Bearer"
    expires_in: int | None = None
    scope: str | None = None
    refresh_token: str | None = None
    id_token: str | None = None

    @field_validator("token_type", mode="before")
    @classmethod
    def _normalize_token_type(cls, value: Any) -> Any:
        if isinstance(value, str) and value.lower() == "bearer":
            return "Bearer"
        return value


class OAuthClientMetadata(BaseModel):
    """Client metadata for dynamic registration (RFC 7591 §2); also the shape of a Client ID
    Metadata Document. `redirect_uris` is required (it may be `None` for clients that never
    redirect, such as client-credentials clients)."""

    model_config = ConfigDict(extra="allow")

    redirect_uris: list[AnyUrl] | None = Field(..., min_length=1)
    token_endpoint_auth_method: TokenEndpointAuthMethod | None = None
    grant_types: list[str] = Field(default_factory=lambda: ["authorization_code", "refresh_token"])
    response_types: list[str] = Field(default_factory=lambda: ["code"])
    scope: str | None = None
    client_name: str | None = None
    client_uri: AnyHttpUrl | None = None
    logo_uri: AnyHttpUrl | None = None
    contacts: list[str] | None = None
    tos_uri: AnyHttpUrl | None = None
    policy_uri: AnyHttpUrl | None = None
    jwks_uri: AnyHttpUrl | None = None
    jwks: Any = None
    software_id: str | None = None
    software_version: str | None = None
    application_type: Literal["native", "web"] | None = None
    """OpenID Connect Dynamic Registration: `native` for desktop/CLI/localhost clients, `web` for
    browser applications served from a remote host. When unset the OAuth client provider derives
    it from `redirect_uris` at registration time."""

    def validate_scope(self, requested_scope: str | None) -> list[str] | None:
        """The requested scopes, refused (`InvalidScopeError`) if one was not registered."""
        if requested_scope is None:
            return None
        requested = requested_scope.split()
        allowed = self.scope.split() if self.scope is not None else []
        for scope in requested:
            if scope not in allowed:
                raise InvalidScopeError(f"Client was not registered with scope {scope}")
        return requested

    def validate_redirect_uri(self, redirect_uri: AnyUrl | None) -> AnyUrl:
        """The redirect URI to use: the one given if registered, the only registered one if none
        was given; `InvalidRedirectUriError` otherwise."""
        if redirect_uri is not None:
            if self.redirect_uris is None or redirect_uri not in self.redirect_uris:
                raise InvalidRedirectUriError(f"Redirect URI '{redirect_uri}' not registered for client")
            return redirect_uri
        if self.redirect_uris is not None and len(self.redirect_uris) == 1:
            return self.redirect_uris[0]
        raise InvalidRedirectUriError("redirect_uri must be specified when client has multiple registered URIs")


class OAuthClientInformationFull(OAuthClientMetadata):
    """A registered client: the metadata plus what the authorization server issued (RFC 7591 §3.2.1)."""

    redirect_uris: list[AnyUrl] | None = Field(default=None, min_length=1)
    client_id: str
    client_secret: str | None = None
    client_id_issued_at: int | None = None
    client_secret_expires_at: int | None = None


class OAuthMetadata(BaseModel):
    """Authorization server metadata (RFC 8414 §2), as served at
    `/.well-known/oauth-authorization-server` or `/.well-known/openid-configuration`."""

    model_config = ConfigDict(extra="allow")

    issuer: UrlString
    authorization_endpoint: UrlString | None = None
    token_endpoint: UrlString
    registration_endpoint: UrlString | None = None
    scopes_supported: list[str] | None = None
    response_types_supported: list[str] = Field(default_factory=lambda: ["code"])
    response_modes_supported: list[str] | None = None
    grant_types_supported: list[str] | None = None
    token_endpoint_auth_methods_supported: list[str] | None = None
    token_endpoint_auth_signing_alg_values_supported: list[str] | None = None
    service_documentation: UrlString | None = None
    ui_locales_supported: list[str] | None = None
    op_policy_uri: UrlString | None = None
    op_tos_uri: UrlString | None = None
    revocation_endpoint: UrlString | None = None
    revocation_endpoint_auth_methods_supported: list[str] | None = None
    revocation_endpoint_auth_signing_alg_values_supported: list[str] | None = None
    introspection_endpoint: UrlString | None = None
    introspection_endpoint_auth_methods_supported: list[str] | None = None
    introspection_endpoint_auth_signing_alg_values_supported: list[str] | None = None
    code_challenge_methods_supported: list[str] | None = None
    client_id_metadata_document_supported: bool | None = None
    authorization_response_iss_parameter_supported: bool | None = None
    jwks_uri: UrlString | None = None


class ProtectedResourceMetadata(BaseModel):
    """Protected resource metadata (RFC 9728 §2), as served at
    `/.well-known/oauth-protected-resource[/<path>]`."""

    model_config = ConfigDict(extra="allow")

    resource: UrlString
    authorization_servers: list[UrlString] = Field(..., min_length=1)
    jwks_uri: UrlString | None = None
    scopes_supported: list[str] | None = None
    bearer_methods_supported: list[str] | None = Field(default_factory=lambda: ["header"])
    resource_signing_alg_values_supported: list[str] | None = None
    resource_name: str | None = None
    resource_documentation: UrlString | None = None
    resource_policy_uri: UrlString | None = None
    resource_tos_uri: UrlString | None = None
    tls_client_certificate_bound_access_tokens: bool | None = None
    authorization_details_types_supported: list[str] | None = None
    dpop_signing_alg_values_supported: list[str] | None = None
    dpop_bound_access_tokens_required: bool | None = None


__all__ = [
    "CLIENT_CREDENTIALS_GRANT_TYPE",
    "JWT_BEARER_CLIENT_ASSERTION_TYPE",
    "JWT_BEARER_GRANT_TYPE",
    "InvalidRedirectUriError",
    "InvalidScopeError",
    "OAuthClientInformationFull",
    "OAuthClientMetadata",
    "OAuthMetadata",
    "OAuthToken",
    "ProtectedResourceMetadata",
    "TokenEndpointAuthMethod",
    "UrlString",
]
