"""`AuthSettings`: the public face of a protected MCP server (pure pydantic, no HTTP stack)."""

from __future__ import annotations

import warnings

from pydantic import AnyHttpUrl, BaseModel, ConfigDict, Field, model_validator
from typing_extensions import Self

from mcp.shared.exceptions import MCPDeprecationWarning


class ClientRegistrationOptions(BaseModel):
    """Dynamic client registration (RFC 7591) on an embedded authorization server."""

    enabled: bool = False
    client_secret_expiry_seconds: int | None = None
    valid_scopes: list[str] | None = None
    default_scopes: list[str] | None = None


class RevocationOptions(BaseModel):
    """Token revocation (RFC 7009) on an embedded authorization server."""

    enabled: bool = False


class AuthSettings(BaseModel):
    """How an MCP server is protected.

    - `issuer_url`: the authorization server that issues the tokens this server accepts (listed in
      the protected resource metadata).
    - `resource_server_url` (required, may be `None`): the public URL of this MCP endpoint: the
      resource identifier tokens are issued for, and where the metadata document's well-known path
      comes from.
    - `required_scopes`: every token must carry all of them (else 403 `insufficient_scope`).
    - `validate_token_resource`: refuse (401) any token whose `AccessToken.resource` is not
      `resource_server_url`. Set it to `False` when the token verifier checks the audience itself;
      left unset with a `resource_server_url` it behaves as `False` and warns
      (`MCPDeprecationWarning`), as 3.0 makes `True` the default there.
    - `service_documentation_url`, `client_registration_options`, `revocation_options`,
      `identity_assertion_enabled`: for an embedded authorization server (`auth_server_provider=`).

    URLs keep an empty path as given (`https://as.example` gets no `/`), since issuers are compared
    as exact strings (RFC 8414 §3.3, RFC 9207).
    """

    model_config = ConfigDict(url_preserve_empty_path=True)

    issuer_url: AnyHttpUrl = Field(
        ..., description="OAuth authorization server URL that issues tokens for this resource server."
    )
    service_documentation_url: AnyHttpUrl | None = None
    client_registration_options: ClientRegistrationOptions | None = None
    revocation_options: RevocationOptions | None = None
    required_scopes: list[str] | None = None
    identity_assertion_enabled: bool = Field(
        default=False,
        description="Advertise and accept the SEP-990 identity assertion grant (RFC 7523 jwt-bearer carrying an "
        "ID-JAG) at the token endpoint. The provider must implement `exchange_identity_assertion`.",
    )
    resource_server_url: AnyHttpUrl | None = Field(
        ...,
        description="The URL of the MCP server: the resource identifier, and the base of the protected "
        "resource metadata route.",
    )
    validate_token_resource: bool | None = Field(
        default=None,
        description="Only accept tokens whose `AccessToken.resource` is `resource_server_url`. Unset with "
        "`resource_server_url` given, it warns and behaves as False; 3.0 makes True the default there.",
    )

    @model_validator(mode="after")
    def _check_validate_token_resource(self) -> Self:
        if self.validate_token_resource and self.resource_server_url is None:
            raise ValueError("validate_token_resource requires resource_server_url")
        if self.validate_token_resource is None and self.resource_server_url is not None:
            warnings.warn(
                "`AuthSettings.validate_token_resource` is not set, so bearer tokens are not checked "
                "against `resource_server_url`; it will default to True in 3.0 when `resource_server_url` is "
                "set. Set it to True to have the server refuse tokens issued for another resource, or to "
                "False if your TokenVerifier validates the token's audience itself.",
                MCPDeprecationWarning,
                stacklevel=3,
            )
        return self


__all__ = ["AuthSettings", "ClientRegistrationOptions", "RevocationOptions"]
