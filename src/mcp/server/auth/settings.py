"""`AuthSettings`: the public face of a protected MCP server (pure pydantic, no HTTP stack)."""

from __future__ import annotations

from pydantic import AnyHttpUrl, BaseModel, Field


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
    - `resource_server_url`: the public URL of this MCP endpoint: the resource identifier tokens are
      issued for, and where the metadata document's well-known path comes from.
    - `required_scopes`: every token must carry all of them (else 403 `insufficient_scope`).
    - `validate_token_resource`: refuse (401) any token whose `AccessToken.resource` is not
      `resource_server_url`; leave off when the authorization server uses its own audience
      identifiers and check `aud` in the verifier instead.
    - `service_documentation_url`, `client_registration_options`, `revocation_options`,
      `identity_assertion_enabled`: for an embedded authorization server (`auth_server_provider=`).
    """

    issuer_url: AnyHttpUrl
    resource_server_url: AnyHttpUrl | None = None
    required_scopes: list[str] | None = None
    service_documentation_url: AnyHttpUrl | None = None
    client_registration_options: ClientRegistrationOptions | None = None
    revocation_options: RevocationOptions | None = None
    identity_assertion_enabled: bool = False
    validate_token_resource: bool = Field(default=False)


__all__ = ["AuthSettings", "ClientRegistrationOptions", "RevocationOptions"]
