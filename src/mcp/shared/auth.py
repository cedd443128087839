"""OAuth 2.x documents shared by the client and the server side (pydantic models).

- `OAuthToken`: a token endpoint response (RFC 6749 §5.1).
- `OAuthClientMetadata` / `OAuthClientInformationFull`: a client registration request and the
  registered client (RFC 7591), both built on `OAuthClientMetadataBase`.
- `OAuthMetadata`: authorization server metadata (RFC 8414; also what OpenID Connect Discovery
  returns).
- `ProtectedResourceMetadata`: protected resource metadata (RFC 9728).
- `AuthorizationCodeResult`: what an OAuth client's callback handler hands back.

Identifiers that OAuth compares character for character (`issuer`, `resource`, the entries of
`authorization_servers`) are URL types configured with `url_preserve_empty_path`, so a path-less
`https://as.example` stays exactly that (no `/` is added) and RFC 8414 §3.3, RFC 9207 and
RFC 9728 §3.3 comparisons of `str(...)` hold.
"""

from __future__ import annotations

from typing import Any, Literal, cast

from pydantic import AnyHttpUrl, AnyUrl, BaseModel, ConfigDict, Field, field_validator, model_validator

JWT_BEARER_GRANT_TYPE = "urn:ietf:params:oauth:grant-type:jwt-bearer"
"""The RFC 7523 assertion grant (used with an ID-JAG by the identity-assertion extension)."""

CLIENT_CREDENTIALS_GRANT_TYPE = "client_credentials"
JWT_BEARER_CLIENT_ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

TokenEndpointAuthMethod = Literal["none", "client_secret_post", "client_secret_basic", "private_key_jwt"]
"""The token endpoint authentication methods this SDK's clients can use."""

DEFAULT_GRANT_TYPES = ["authorization_code", "refresh_token"]
"""The `grant_types` of a client that names none of its own (RFC 7591 §2)."""

_URL_CONFIG = ConfigDict(url_preserve_empty_path=True)


def _blank_as_missing(value: object) -> object:
    """An optional field sent as `""` means absent (so it does not fail URL validation)."""
    return None if value == "" else value


class OAuthToken(BaseModel):
    """A token endpoint response (RFC 6749 §5.1). `token_type` is case-normalized (`bearer` ->
    `Bearer`, RFC 6750 §4; `dpop` -> `DPoP`, RFC 9449 §5); bearer and DPoP-bound tokens are accepted."""

    access_token: str
    token_type: Literal["Bearer", "DPoP"] = "Bearer"
    expires_in: int | None = None
    scope: str | None = None
    refresh_token: str | None = None

    @field_validator("token_type", mode="before")
    @classmethod
    def normalize_token_type(cls, v: str | None) -> str | None:
        if isinstance(v, str):
            return "DPoP" if v.lower() == "dpop" else v.title()
        return v


class AuthorizationCodeResult(BaseModel):
    """The parameters of the authorization-code redirect, as a callback handler returns them.
    `iss` is the RFC 9207 issuer of the response when the server sent one; the client checks it."""

    code: str
    state: str | None = None
    iss: str | None = None


class InvalidScopeError(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InvalidRedirectUriError(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class OAuthClientMetadataBase(BaseModel):
    """The RFC 7591 §2 client metadata both the registration request and the registered-client
    record carry unchanged. Fields whose accepted values differ between what a client sends and
    what a server may echo are declared on the two subclasses."""

    model_config = _URL_CONFIG

    response_types: list[str] = ["code"]
    scope: str | None = None
    client_name: str | None = None
    client_uri: AnyHttpUrl | None = None
    logo_uri: AnyHttpUrl | None = None
    contacts: list[str] | None = None
    tos_uri: AnyHttpUrl | None = None
    policy_uri: AnyHttpUrl | None = None
    jwks_uri: AnyHttpUrl | None = None
    jwks: Any | None = None
    software_id: str | None = None
    software_version: str | None = None

    @field_validator("client_uri", "logo_uri", "tos_uri", "policy_uri", "jwks_uri", mode="before")
    @classmethod
    def _empty_string_optional_url_to_none(cls, v: object) -> object:
        return _blank_as_missing(v)


class OAuthClientMetadata(OAuthClientMetadataBase):
    """A client registration request (RFC 7591 §2), also the shape of a Client ID Metadata
    Document: values narrowed to what this SDK sends. `redirect_uris` must be given (it may be
    `None` for clients that never redirect, such as client-credentials clients).
    `application_type` (OpenID Connect registration) defaults to `native`, as MCP clients usually
    redirect to loopback; set `web` for a browser client served from a remote host."""

    redirect_uris: list[AnyUrl] | None = Field(..., min_length=1)
    token_endpoint_auth_method: TokenEndpointAuthMethod | None = None
    grant_types: list[Literal["authorization_code", "refresh_token", "urn:ietf:params:oauth:grant-type:jwt-bearer"]
                      | str] = list(DEFAULT_GRANT_TYPES)
    application_type: Literal["web", "native"] = "native"


class OAuthClientInformationFull(OAuthClientMetadataBase):
    """A registered client (RFC 7591 §3.2.1): its metadata plus what the authorization server
    issued.

    A server may replace requested values with its own, so `application_type`,
    `token_endpoint_auth_method` and `grant_types` accept any string and `redirect_uris` may be
    missing. Members sent as `null` or `""` are read as absent (their defaults apply).
    `issuer` is not an RFC 7591 field: the SDK records which authorization server the credentials
    belong to, so they are not reused with another one (SEP-2352)."""

    redirect_uris: list[AnyUrl] | None = None
    token_endpoint_auth_method: str | None = None
    grant_types: list[str] = list(DEFAULT_GRANT_TYPES)
    application_type: str | None = None
    client_id: str
    client_secret: str | None = None
    client_id_issued_at: int | None = None
    client_secret_expires_at: int | None = None
    issuer: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _placeholder_members_read_as_omitted(cls, data: object) -> object:
        if isinstance(data, dict):
            members = cast(dict[str, Any], data)
            return {key: value for key, value in members.items() if value is not None and value != ""}
        return data

    def validate_scope(self, requested_scope: str | None) -> list[str] | None:
        """The requested scopes, refused (`InvalidScopeError`) if one was not registered."""
        if requested_scope is None:
            return None
        requested = requested_scope.split(" ")
        allowed = self.scope.split(" ") if self.scope is not None else []
        for scope in requested:
            if scope not in allowed:
                raise InvalidScopeError(f"Client was not registered with scope {scope}")
        return requested

    def validate_redirect_uri(self, redirect_uri: AnyUrl | None) -> AnyUrl:
        """The redirect URI to use: the one given if registered, the only registered one if none
        was given; `InvalidRedirectUriError` otherwise."""
        if redirect_uri is not None:
            if not self.redirect_uris or redirect_uri not in self.redirect_uris:
                raise InvalidRedirectUriError(f"Redirect URI '{redirect_uri}' not registered for client")
            return redirect_uri
        if self.redirect_uris and len(self.redirect_uris) == 1:
            return self.redirect_uris[0]
        raise InvalidRedirectUriError("redirect_uri must be specified unless the client has exactly one registered URI")


class OAuthMetadata(BaseModel):
    """Authorization server metadata (RFC 8414 §2), as served at
    `/.well-known/oauth-authorization-server` or `/.well-known/openid-configuration`.
    `authorization_grant_profiles_supported` lists grant profiles such as the SEP-990 ID-JAG one."""

    model_config = _URL_CONFIG

    issuer: AnyHttpUrl
    authorization_endpoint: AnyHttpUrl
    token_endpoint: AnyHttpUrl
    registration_endpoint: AnyHttpUrl | None = None
    scopes_supported: list[str] | None = None
    response_types_supported: list[str] = ["code"]
    response_modes_supported: list[str] | None = None
    grant_types_supported: list[str] | None = None
    token_endpoint_auth_methods_supported: list[str] | None = None
    token_endpoint_auth_signing_alg_values_supported: list[str] | None = None
    service_documentation: AnyHttpUrl | None = None
    ui_locales_supported: list[str] | None = None
    op_policy_uri: AnyHttpUrl | None = None
    op_tos_uri: AnyHttpUrl | None = None
    revocation_endpoint: AnyHttpUrl | None = None
    revocation_endpoint_auth_methods_supported: list[str] | None = None
    revocation_endpoint_auth_signing_alg_values_supported: list[str] | None = None
    introspection_endpoint: AnyHttpUrl | None = None
    introspection_endpoint_auth_methods_supported: list[str] | None = None
    introspection_endpoint_auth_signing_alg_values_supported: list[str] | None = None
    code_challenge_methods_supported: list[str] | None = None
    client_id_metadata_document_supported: bool | None = None
    authorization_response_iss_parameter_supported: bool | None = None
    authorization_grant_profiles_supported: list[str] | None = None
    dpop_signing_alg_values_supported: list[str] | None = None
    """RFC 9449 §5.1: the DPoP proof algorithms the token endpoint accepts."""


class ProtectedResourceMetadata(BaseModel):
    """Protected resource metadata (RFC 9728 §2), as served at
    `/.well-known/oauth-protected-resource[/<path>]`. MCP only uses the `header` bearer method."""

    model_config = _URL_CONFIG

    resource: AnyHttpUrl
    authorization_servers: list[AnyHttpUrl] = Field(..., min_length=1)
    jwks_uri: AnyHttpUrl | None = None
    scopes_supported: list[str] | None = None
    bearer_methods_supported: list[str] | None = Field(default=["header"])
    resource_signing_alg_values_supported: list[str] | None = None
    resource_name: str | None = None
    resource_documentation: AnyHttpUrl | None = None
    resource_policy_uri: AnyHttpUrl | None = None
    resource_tos_uri: AnyHttpUrl | None = None
    tls_client_certificate_bound_access_tokens: bool | None = None
    authorization_details_types_supported: list[str] | None = None
    dpop_signing_alg_values_supported: list[str] | None = None
    dpop_bound_access_tokens_required: bool | None = None


__all__ = [
    "CLIENT_CREDENTIALS_GRANT_TYPE",
    "DEFAULT_GRANT_TYPES",
    "JWT_BEARER_CLIENT_ASSERTION_TYPE",
    "JWT_BEARER_GRANT_TYPE",
    "AuthorizationCodeResult",
    "InvalidRedirectUriError",
    "InvalidScopeError",
    "OAuthClientInformationFull",
    "OAuthClientMetadata",
    "OAuthClientMetadataBase",
    "OAuthMetadata",
    "OAuthToken",
    "ProtectedResourceMetadata",
    "TokenEndpointAuthMethod",
]
