"""The `/token` endpoint (RFC 6749 §3.2): the authorization code grant with PKCE (§4.1.3,
RFC 7636 §4.6), the refresh token grant (§6) and, when enabled, the RFC 7523 `jwt-bearer` grant
carrying an ID-JAG (SEP-990).

The client authenticates first (`ClientAuthenticator`, 401 `invalid_client` on failure); every
other refusal is a 400 with an RFC 6749 §5.2 error body. Responses are never cached.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import time
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import AnyHttpUrl, AnyUrl, BaseModel, Field, TypeAdapter, ValidationError
from starlette.requests import Request
from starlette.responses import Response

from mcp.server.auth._form import read_form
from mcp.server.auth.errors import stringify_pydantic_error
from mcp.server.auth.json_response import PydanticJSONResponse
from mcp.server.auth.middleware.client_auth import AuthenticationError, ClientAuthenticator
from mcp.server.auth.provider import (
    IdentityAssertionParams,
    OAuthAuthorizationServerProvider,
    TokenError,
    TokenErrorCode,
)
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

_NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}


class AuthorizationCodeRequest(BaseModel):
    """RFC 6749 §4.1.3 with the RFC 7636 `code_verifier` and the RFC 8707 `resource`."""

    grant_type: Literal["authorization_code"]
    code: str = Field(..., description="The authorization code")
    redirect_uri: AnyUrl | None = Field(None, description="Must be the same as redirect URI provided in /authorize")
    client_id: str
    client_secret: str | None = None
    code_verifier: str = Field(..., description="PKCE code verifier")
    resource: str | None = Field(None, description="Resource indicator for the token")


class RefreshTokenRequest(BaseModel):
    """RFC 6749 §6."""

    grant_type: Literal["refresh_token"]
    refresh_token: str = Field(..., description="The refresh token")
    scope: str | None = Field(None, description="Optional scope parameter")
    client_id: str
    client_secret: str | None = None
    resource: str | None = Field(None, description="Resource indicator for the token")


class JwtBearerRequest(BaseModel):
    """RFC 7523 §2.1: the client presents an ID-JAG (a signed JWT) as the `assertion`."""

    grant_type: Literal["urn:ietf:params:oauth:grant-type:jwt-bearer"]
    assertion: str = Field(..., description="The ID-JAG (a signed JWT) being presented as the grant")
    scope: str | None = Field(None, description="Optional scope parameter")
    client_id: str
    client_secret: str | None = None
    resource: str | None = Field(None, description="Resource indicator for the token")


TokenRequest = Annotated[
    AuthorizationCodeRequest | RefreshTokenRequest | JwtBearerRequest,
    Field(discriminator="grant_type"),
]
token_request_adapter = TypeAdapter[TokenRequest](TokenRequest)


class TokenErrorResponse(BaseModel):
    """An RFC 6749 §5.2 error body."""

    error: TokenErrorCode
    error_description: str | None = None
    error_uri: AnyHttpUrl | None = None


TokenSuccessResponse = OAuthToken
"""The success body: the provider's `OAuthToken` (a separate name for the HTTP side)."""


@dataclass
class TokenHandler:
    """The `/token` endpoint: `Route("/token", endpoint=handler.handle, methods=["POST"])`."""

    provider: OAuthAuthorizationServerProvider[Any, Any, Any]
    client_authenticator: ClientAuthenticator
    identity_assertion_enabled: bool = False

    def response(self, obj: TokenSuccessResponse | TokenErrorResponse) -> Response:
        """`obj` as a non-cacheable JSON response: 400 for an error, 200 for tokens."""
        status_code = 400 if isinstance(obj, TokenErrorResponse) else 200
        return PydanticJSONResponse(content=obj, status_code=status_code, headers=_NO_STORE)

    async def handle(self, request: Request) -> Response:
        try:
            client = await self.client_authenticator.authenticate_request(request)
        except AuthenticationError as exc:
            return PydanticJSONResponse(
                content=TokenErrorResponse(error="invalid_client", error_description=exc.message),
                status_code=401,
                headers=_NO_STORE,
            )
        try:
            token_request = token_request_adapter.validate_python(dict(await read_form(request)))
        except ValidationError as exc:
            return self.response(TokenErrorResponse(error="invalid_request",
                                                    error_description=stringify_pydantic_error(exc)))
        if token_request.grant_type not in client.grant_types:
            return self.response(TokenErrorResponse(
                error="unsupported_grant_type",
                error_description=f"Unsupported grant type (supported grant types are {client.grant_types})",
            ))
        try:
            if isinstance(token_request, AuthorizationCodeRequest):
                outcome = await self._authorization_code(client, token_request)
            elif isinstance(token_request, RefreshTokenRequest):
                outcome = await self._refresh_token(client, token_request)
            else:
                outcome = await self._identity_assertion(client, token_request)
        except TokenError as exc:
            outcome = TokenErrorResponse(error=exc.error, error_description=exc.error_description)
        return self.response(outcome)

    async def _authorization_code(self, client: OAuthClientInformationFull,
                                  request: AuthorizationCodeRequest) -> OAuthToken | TokenErrorResponse:
        code = await self.provider.load_authorization_code(client, request.code)
        if code is None or code.client_id != request.client_id:
            # a code of another client is treated as unknown
            return TokenErrorResponse(error="invalid_grant", error_description="authorization code does not exist")
        if code.expires_at < time.time():
            return TokenErrorResponse(error="invalid_grant", error_description="authorization code has expired")
        # §10.6: the redirect_uri must be the one the code was issued for, when one was given
        expected = str(code.redirect_uri) if code.redirect_uri_provided_explicitly else None
        given = str(request.redirect_uri) if request.redirect_uri is not None else None
        if given != expected:
            return TokenErrorResponse(error="invalid_request",
                                      error_description="redirect_uri did not match the one used when creating auth code")
        digest = hashlib.sha256(request.code_verifier.encode()).digest()
        challenge = base64.urlsafe_b64encode(digest).decode().rstrip("=")
        if not hmac.compare_digest(challenge, code.code_challenge):
            return TokenErrorResponse(error="invalid_grant", error_description="incorrect code_verifier")
        return await self.provider.exchange_authorization_code(client, code)

    async def _refresh_token(self, client: OAuthClientInformationFull,
                             request: RefreshTokenRequest) -> OAuthToken | TokenErrorResponse:
        refresh_token = await self.provider.load_refresh_token(client, request.refresh_token)
        if refresh_token is None or refresh_token.client_id != request.client_id:
            return TokenErrorResponse(error="invalid_grant", error_description="refresh token does not exist")
        if refresh_token.expires_at and refresh_token.expires_at < time.time():
            return TokenErrorResponse(error="invalid_grant", error_description="refresh token has expired")
        scopes: list[str] = request.scope.split(" ") if request.scope else refresh_token.scopes
        for scope in scopes:
            if scope not in refresh_token.scopes:
                return TokenErrorResponse(error="invalid_scope",
                                          error_description=f"cannot request scope `{scope}` not provided by refresh token")
        return await self.provider.exchange_refresh_token(client, refresh_token, scopes)

    async def _identity_assertion(self, client: OAuthClientInformationFull,
                                  request: JwtBearerRequest) -> OAuthToken | TokenErrorResponse:
        if not self.identity_assertion_enabled:
            return TokenErrorResponse(error="unsupported_grant_type",
                                      error_description="The JWT bearer grant is not supported by this authorization server")
        if not client.client_secret:
            # only confidential clients may present an ID-JAG (the client authenticated, so this
            # is unauthorized_client rather than invalid_client)
            return TokenErrorResponse(error="unauthorized_client",
                                      error_description="The JWT bearer grant requires a confidential client")
        params = IdentityAssertionParams(
            assertion=request.assertion,
            scopes=request.scope.split(" ") if request.scope else None,
            resource=request.resource,
        )
        return await self.provider.exchange_identity_assertion(client, params)


__all__ = [
    "AuthorizationCodeRequest",
    "JwtBearerRequest",
    "RefreshTokenRequest",
    "TokenErrorResponse",
    "TokenHandler",
    "TokenRequest",
    "TokenSuccessResponse",
    "token_request_adapter",
]
