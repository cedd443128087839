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
import warnings
from collections.abc import Awaitable, Callable
from typing import Any, Literal
from urllib.parse import urlsplit

import httpx2
from pydantic import BaseModel, Field

from mcp.client.auth import utils
from mcp.client.auth.exceptions import OAuthFlowError
from mcp.client.auth.oauth2 import OAuthClientProvider, TokenStorage
from mcp.shared.auth import (
    CLIENT_CREDENTIALS_GRANT_TYPE,
    JWT_BEARER_CLIENT_ASSERTION_TYPE,
    OAuthClientInformationFull,
    OAuthClientMetadata,
)
from mcp.shared.exceptions import MCPDeprecationWarning

AssertionProvider = Callable[[str], Awaitable[str]]
"""`async (audience) -> signed JWT`; the audience is the authorization server's issuer."""


def _checked_issuer(issuer: str | None) -> str | None:
    """The configured issuer (an http(s) URL); leaving it out is deprecated (it will be required
    in 3.0): without it the MCP server decides where the credentials are sent."""
    if issuer is None:
        warnings.warn(
            "Omitting `issuer` is deprecated and it will be required in 3.0. Without it, the MCP server "
            "decides which authorization server receives this client's credentials; pass "
            "issuer=<your authorization server's issuer URL> so they are only ever sent there.",
            MCPDeprecationWarning,
            stacklevel=3,
        )
        return None
    if urlsplit(issuer).scheme not in ("http", "https"):
        raise ValueError(f"issuer must be the authorization server's http(s) issuer URL, got {issuer!r}")
    return issuer


class _ClientCredentialsBase(OAuthClientProvider):
    """The `client_credentials` grant over the discovery of `OAuthClientProvider`: fixed client
    information (never a registration), no user step, and with `issuer=` token requests built only
    from metadata of that authorization server."""

    def __init__(self, server_url: str, storage: TokenStorage, client_id: str, client_secret: str | None,
                 token_endpoint_auth_method: str, scope: str | None, issuer: str | None) -> None:
        metadata = OAuthClientMetadata(
            redirect_uris=None,
            grant_types=[CLIENT_CREDENTIALS_GRANT_TYPE],
            token_endpoint_auth_method=token_endpoint_auth_method,  # type: ignore[arg-type]
            scope=scope,
        )
        super().__init__(server_url, metadata, storage)
        self._issuer = issuer
        self._fixed_client_info = OAuthClientInformationFull(
            redirect_uris=None,
            client_id=client_id,
            client_secret=client_secret,
            grant_types=[CLIENT_CREDENTIALS_GRANT_TYPE],
            token_endpoint_auth_method=token_endpoint_auth_method,  # type: ignore[arg-type]
            scope=scope,
        )

    @property
    def issuer(self) -> str | None:
        """The authorization server the credentials belong to, when configured."""
        return self._issuer

    async def _initialize(self) -> None:
        self.context.current_tokens = await self.context.storage.get_tokens()
        self.context.client_info = self._fixed_client_info
        self._initialized = True

    def _select_authorization_server(self, advertised: list[str]) -> str:
        """The advertised server that is the configured issuer, else the first."""
        issuer = self._issuer
        return next((server for server in advertised if issuer is not None and utils.issuers_match(server, issuer)),
                    advertised[0])

    def _require_metadata_for_issuer(self) -> None:
        """With an issuer configured, a token request is built only from metadata discovered for
        it; anything else held is dropped with the tokens, so the next request discovers afresh."""
        issuer = self._issuer
        if issuer is None:
            return
        ctx = self.context
        metadata = ctx.oauth_metadata
        if metadata is not None and utils.issuers_match(str(metadata.issuer), issuer):
            return
        ctx.oauth_metadata = None
        ctx.clear_tokens()
        if metadata is None:
            raise OAuthFlowError(f"No authorization server metadata discovered for configured issuer {issuer}")
        raise OAuthFlowError(f"Authorization server metadata issuer mismatch: {metadata.issuer} != {issuer}")

    async def _perform_authorization(self) -> httpx2.Request:
        """The `client_credentials` token request (no user step)."""
        return await self._exchange_token_client_credentials()

    async def _exchange_token_client_credentials(self) -> httpx2.Request:
        self._require_metadata_for_issuer()
        ctx = self.context
        data: dict[str, str] = {"grant_type": CLIENT_CREDENTIALS_GRANT_TYPE}
        data, headers = await self._authenticate(data, {"Content-Type": "application/x-www-form-urlencoded"})
        if ctx.should_include_resource_param(ctx.protocol_version):
            data["resource"] = ctx.get_resource_url()
        if ctx.client_metadata.scope:
            data["scope"] = ctx.client_metadata.scope
        return httpx2.Request("POST", self._get_token_endpoint(), data=data, headers=headers)

    async def _authenticate(self, data: dict[str, str],
                            headers: dict[str, str]) -> tuple[dict[str, str], dict[str, str]]:
        """The client authentication of the token request: the registered method's."""
        return self.context.prepare_token_auth(data, headers)


class ClientCredentialsOAuthProvider(_ClientCredentialsBase):
    """The `client_credentials` grant with a client id and secret (`client_secret_basic` by
    default, or `client_secret_post`). Pass `issuer` to name the authorization server the
    credentials belong to (omitting it is deprecated)."""

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
        issuer = _checked_issuer(issuer)
        super().__init__(server_url, storage, client_id, client_secret, token_endpoint_auth_method, scope, issuer)


class PrivateKeyJWTOAuthProvider(_ClientCredentialsBase):
    """The `client_credentials` grant, the client authenticating with a signed JWT
    (`private_key_jwt`, RFC 7523 §2.2) from `assertion_provider(audience)`; the audience is the
    authorization server's issuer. Pass `issuer` to name that server (omitting it is deprecated)."""

    def __init__(
        self,
        server_url: str,
        storage: TokenStorage,
        client_id: str,
        assertion_provider: AssertionProvider,
        scope: str | None = None,
        issuer: str | None = None,
    ) -> None:
        issuer = _checked_issuer(issuer)
        super().__init__(server_url, storage, client_id, None, "private_key_jwt", scope, issuer)
        self._assertion_provider = assertion_provider

    @property
    def assertion_provider(self) -> AssertionProvider:
        return self._assertion_provider

    async def _authenticate(self, data: dict[str, str],
                            headers: dict[str, str]) -> tuple[dict[str, str], dict[str, str]]:
        await self._add_client_authentication_jwt(token_data=data)
        return data, headers

    async def _add_client_authentication_jwt(self, *, token_data: dict[str, str]) -> None:
        """Add the client assertion (RFC 7523 §2.2), its audience the authorization server's issuer."""
        metadata = self.context.oauth_metadata
        if metadata is None:
            raise OAuthFlowError("Missing OAuth metadata for private_key_jwt flow")
        token_data["client_assertion"] = await self._assertion_provider(str(metadata.issuer))
        token_data["client_assertion_type"] = JWT_BEARER_CLIENT_ASSERTION_TYPE


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
