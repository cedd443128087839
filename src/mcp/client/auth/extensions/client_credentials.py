"""Machine-to-machine OAuth: the `client_credentials` grant (no browser, no user).

- `ClientCredentialsOAuthProvider`: a client id and secret (`client_secret_basic` by default, or
  `client_secret_post`).
- `PrivateKeyJWTOAuthProvider`: the client authenticates with a signed JWT (`private_key_jwt`,
  RFC 7523 §2.2) produced by an `assertion_provider(audience) -> str` callback;
  `SignedJWTParameters(...).create_assertion_provider()` signs one with a private key and
  `static_assertion_provider(jwt)` always hands out a prebuilt one (workload identity).

Discovery runs as for `OAuthClientProvider`; with `issuer=` the flow stops with an
`OAuthFlowError` when the MCP server points at any other authorization server (the credentials
belong to that one issuer). There is never a dynamic registration.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Awaitable, Callable
from typing import Any, Literal

import httpx
from pydantic import BaseModel, Field

from mcp.client.auth import utils
from mcp.client.auth._flow import Flow
from mcp.client.auth.exceptions import OAuthFlowError
from mcp.client.auth.oauth2 import OAuthClientProvider, TokenStorage
from mcp.shared.auth import (
    CLIENT_CREDENTIALS_GRANT_TYPE,
    JWT_BEARER_CLIENT_ASSERTION_TYPE,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthMetadata,
)

AssertionProvider = Callable[[str], Awaitable[str]]
"""`async (audience) -> signed JWT`; the audience is the authorization server's issuer."""


class _ClientCredentialsBase(OAuthClientProvider):
    """The `client_credentials` grant over the discovery of `OAuthClientProvider`."""

    def __init__(self, server_url: str, storage: TokenStorage, client_id: str, client_secret: str | None,
                 token_endpoint_auth_method: str, scope: str | None, issuer: str | None) -> None:
        metadata = OAuthClientMetadata(
            redirect_uris=None,
            grant_types=[CLIENT_CREDENTIALS_GRANT_TYPE],
            response_types=[],
            token_endpoint_auth_method=token_endpoint_auth_method,  # type: ignore[arg-type]
            scope=scope,
        )
        super().__init__(server_url, metadata, storage)
        self.issuer = issuer
        self._credentials = OAuthClientInformationFull(
            client_id=client_id,
            client_secret=client_secret,
            redirect_uris=None,
            grant_types=[CLIENT_CREDENTIALS_GRANT_TYPE],
            response_types=[],
            token_endpoint_auth_method=token_endpoint_auth_method,  # type: ignore[arg-type]
            scope=scope,
        )
        self.context.client_info = self._credentials
        self.context.client_info_issuer = issuer

    async def _initialize(self) -> None:
        tokens = await self.context.storage.get_tokens()
        if tokens is not None:
            self.context.current_tokens = tokens
        self._initialized = True

    def _use_authorization_server(self, auth_server_url: str, metadata: OAuthMetadata, discovered: bool) -> None:
        if self.issuer is not None and str(metadata.issuer) != self.issuer:
            raise OAuthFlowError(
                f"The MCP server points at authorization server {metadata.issuer!r}, but these client "
                f"credentials belong to {self.issuer!r}"
            )
        if self.context.client_info_issuer is None:
            # a configured secret is bound to the first authorization server it is sent to
            self.context.client_info_issuer = str(metadata.issuer)
        bound = self.context.client_info_issuer
        super()._use_authorization_server(auth_server_url, metadata, discovered)
        if self.context.client_info is None:
            raise OAuthFlowError(
                f"The authorization server changed from {bound!r} to {metadata.issuer!r}; the configured "
                "client credentials are not reused at another authorization server"
            )

    def _select_scopes(self, challenge: dict[str, str], *, step_up: bool) -> list[str]:
        configured = utils.split_scopes(self.context.client_metadata.scope)
        if not configured:
            return super()._select_scopes(challenge, step_up=step_up)
        challenged = utils.split_scopes(challenge.get("scope"))
        return utils.split_scopes(" ".join([*(self.context.requested_scopes or []), *configured, *challenged]))

    def _wants_refresh_tokens(self) -> bool:
        return False

    async def _obtain_token(self) -> Flow:
        response = yield await self._perform_authorization()
        await self._handle_token_response(response)

    async def _perform_authorization(self) -> httpx.Request:
        """The `client_credentials` token request (no user step)."""
        ctx = self.context
        data = {"grant_type": CLIENT_CREDENTIALS_GRANT_TYPE}
        self._add_resource(data)
        if ctx.requested_scopes:
            data["scope"] = " ".join(ctx.requested_scopes)
        return await self._client_credentials_request(data)

    async def _client_credentials_request(self, data: dict[str, str]) -> httpx.Request:
        return self._token_request(data)


class ClientCredentialsOAuthProvider(_ClientCredentialsBase):
    """The `client_credentials` grant with a shared secret."""

    def __init__(
        self,
        server_url: str,
        storage: TokenStorage,
        client_id: str,
        client_secret: str,
        token_endpoint_auth_method: Literal["client_secret_basic", "client_secret_post"] = "client_secret_basic",
        scope: str | None = None,
        issuer: str | None = None,
    ) -> None:
        if token_endpoint_auth_method not in ("client_secret_basic", "client_secret_post"):
            raise ValueError(
                "token_endpoint_auth_method must be 'client_secret_basic' or 'client_secret_post', "
                f"got {token_endpoint_auth_method!r}"
            )
        if not client_secret:
            raise ValueError("client_secret is required")
        super().__init__(server_url, storage, client_id, client_secret, token_endpoint_auth_method, scope, issuer)


class PrivateKeyJWTOAuthProvider(_ClientCredentialsBase):
    """The `client_credentials` grant, the client authenticating with a signed JWT
    (`private_key_jwt`) from `assertion_provider(audience)`."""

    def __init__(
        self,
        server_url: str,
        storage: TokenStorage,
        client_id: str,
        assertion_provider: AssertionProvider,
        scope: str | None = None,
        issuer: str | None = None,
    ) -> None:
        super().__init__(server_url, storage, client_id, None, "private_key_jwt", scope, issuer)
        self.assertion_provider = assertion_provider

    def _auth_methods(self) -> tuple[str, ...]:
        return ("private_key_jwt",)

    async def _client_credentials_request(self, data: dict[str, str]) -> httpx.Request:
        ctx = self.context
        metadata = ctx.oauth_metadata
        assert metadata is not None and ctx.client_info is not None
        assertion = await self.assertion_provider(str(metadata.issuer))
        data = {
            **data,
            "client_id": ctx.client_info.client_id,
            "client_assertion_type": JWT_BEARER_CLIENT_ASSERTION_TYPE,
            "client_assertion": assertion,
        }
        headers = {"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"}
        return httpx.Request("POST", self._token_endpoint(), data=data, headers=headers)

    def _refresh_request(self) -> httpx.Request:  # pragma: no cover - client_credentials has no refresh
        raise OAuthFlowError("private_key_jwt clients obtain new tokens instead of refreshing")

    def _apply_client_auth(self, data: dict[str, str], headers: dict[str, str],
                           client_info: OAuthClientInformationFull) -> None:
        raise OAuthFlowError("private_key_jwt token requests are built with a fresh client assertion")


class SignedJWTParameters(BaseModel):
    """What a `private_key_jwt` client assertion is signed with (RFC 7523 §3): `iss` and `sub`
    (normally both the client id), the private key (PEM) and algorithm, and the lifetime."""

    issuer: str
    subject: str
    signing_key: str
    signing_algorithm: str = "RS256"
    lifetime_seconds: int = Field(default=300)
    additional_claims: dict[str, Any] | None = None

    def create_assertion(self, audience: str) -> str:
        """A freshly signed assertion for `audience` (needs PyJWT with cryptography)."""
        import jwt

        now = int(time.time())
        claims: dict[str, Any] = {
            "iss": self.issuer,
            "sub": self.subject,
            "aud": audience,
            "iat": now,
            "exp": now + self.lifetime_seconds,
            "jti": str(uuid.uuid4()),
        }
        if self.additional_claims:
            claims.update(self.additional_claims)
        return jwt.encode(claims, self.signing_key, algorithm=self.signing_algorithm)

    def create_assertion_provider(self) -> AssertionProvider:
        async def provide(audience: str) -> str:
            return self.create_assertion(audience)

        return provide


def static_assertion_provider(token: str) -> AssertionProvider:
    """An assertion provider that always returns `token` (e.g. a workload identity JWT minted
    elsewhere)."""

    async def provide(audience: str) -> str:
        return token

    return provide


__all__ = [
    "AssertionProvider",
    "ClientCredentialsOAuthProvider",
    "PrivateKeyJWTOAuthProvider",
    "SignedJWTParameters",
    "static_assertion_provider",
]
