"""SEP-990 enterprise-managed authorization, client side: `IdentityAssertionOAuthProvider`.

The client presents an Identity Assertion JWT Authorization Grant (ID-JAG), obtained from the
enterprise identity provider by the application's `assertion_provider(audience, resource)`, to
the MCP authorization server under the RFC 7523 `jwt-bearer` grant and gets an access token.

Deliberately stricter than discovery: the authorization server is configuration. Its RFC 8414
metadata is fetched from the configured `issuer`'s well-known path, the document's `issuer` must
equal it character for character and the token endpoint must be on the issuer's origin, all
before an assertion is requested. The resource server is never asked which authorization server
to use. The client is a pre-registered confidential client (`client_secret` required); there is no
refresh token: an expired token means a new assertion.
"""

from __future__ import annotations

import base64
import logging
from collections.abc import Awaitable, Callable, Generator
from typing import Any, Literal
from urllib.parse import quote

import anyio
import anyio.lowlevel
import httpx
from pydantic import AnyHttpUrl, ValidationError

from mcp.client.auth import utils
from mcp.client.auth._flow import EitherLibraryAuth, Flow, SubFlow, either_library
from mcp.client.auth.exceptions import OAuthFlowError, OAuthTokenError
from mcp.client.auth.oauth2 import MAX_STEP_UP_ATTEMPTS, TokenStorage
from mcp.shared.auth import JWT_BEARER_GRANT_TYPE, OAuthMetadata, OAuthToken

logger = logging.getLogger("mcp.client.auth.identity_assertion")

IdentityAssertionProvider = Callable[[str, str], Awaitable[str]]
"""`async (audience, resource) -> ID-JAG`: `audience` is the authorization server's issuer (as a URL,
see `IdentityAssertionOAuthProvider.audience`), `resource` the MCP server's canonical URI."""


class IdentityAssertionOAuthProvider(EitherLibraryAuth):
    """The `jwt-bearer` grant with an ID-JAG, as an `httpx.Auth`."""

    requires_response_body = True
    """The official value, unused by httpx here: see `OAuthClientProvider.requires_response_body`."""

    def __init__(
        self,
        server_url: str,
        storage: TokenStorage,
        client_id: str,
        client_secret: str,
        issuer: str,
        assertion_provider: IdentityAssertionProvider,
        scope: str | None = None,
        token_endpoint_auth_method: Literal["client_secret_basic", "client_secret_post"] = "client_secret_post",
    ) -> None:
        if not client_secret:
            raise ValueError("client_secret is required: the identity assertion grant is for confidential clients")
        if not issuer:
            raise ValueError("issuer is required: the authorization server is configuration, not discovery")
        if token_endpoint_auth_method not in ("client_secret_post", "client_secret_basic"):
            raise ValueError(
                "token_endpoint_auth_method must be 'client_secret_post' or 'client_secret_basic', "
                f"got {token_endpoint_auth_method!r}"
            )
        self.server_url = server_url
        self.storage = storage
        self.client_id = client_id
        self.client_secret = client_secret
        self.issuer = issuer
        self.assertion_provider = assertion_provider
        self.scope = scope
        self.token_endpoint_auth_method = token_endpoint_auth_method
        self.metadata: OAuthMetadata | None = None
        self.current_tokens: OAuthToken | None = None
        self._requested_scopes = utils.split_scopes(scope)
        self._step_ups: dict[frozenset[str], int] = {}
        self._initialized = False
        self._lock_holder: tuple[Any, anyio.Lock] | None = None

    @property
    def resource(self) -> str:
        """The MCP server's canonical URI: the `resource` of the grant and of the ID-JAG."""
        return utils.canonical_resource(self.server_url)

    @property
    def audience(self) -> str:
        """The ID-JAG `aud`: the authorization server's issuer as a URL (`https://as.example` ->
        `https://as.example/`, the form pydantic-built authorization servers validate against)."""
        issuer = str(self.metadata.issuer) if self.metadata is not None else self.issuer
        try:
            return str(AnyHttpUrl(issuer))
        except ValidationError:
            return issuer

    def _lock(self) -> anyio.Lock:
        token = anyio.lowlevel.current_token()
        if self._lock_holder is None or self._lock_holder[0] != token:
            self._lock_holder = (token, anyio.Lock())
        return self._lock_holder[1]

    def sync_auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        """The flow is asynchronous only: a synchronous client gets a clear error."""
        raise RuntimeError(f"{type(self).__name__} is asynchronous: use it with httpx2.AsyncClient or httpx.AsyncClient")
        yield request  # a generator, as httpx.Auth flows are

    @either_library
    async def async_auth_flow(self, request: httpx.Request) -> Flow:
        await request.aread()
        async with self._lock():
            if not self._initialized:
                self.current_tokens = await self.storage.get_tokens()
                self._initialized = True
            self._add_auth_header(request)
        sent = self._access_token()
        response = yield request

        if response.status_code == 401:
            async with self._lock():
                if self._access_token() == sent:
                    async with SubFlow(self._exchange()) as sub:
                        outgoing = await sub.step(None)
                        while outgoing is not None:
                            outgoing = await sub.step((yield outgoing))
                self._add_auth_header(request)
            sent = self._access_token()
            response = yield request

        if response.status_code == 403:
            challenge = utils.parse_www_authenticate(response.headers.get("www-authenticate")) or {}
            if challenge.get("error") != "insufficient_scope":
                return
            async with self._lock():
                if self._access_token() == sent:
                    challenged = utils.split_scopes(challenge.get("scope"))
                    key = frozenset(challenged)
                    if self._step_ups.get(key, 0) >= MAX_STEP_UP_ATTEMPTS:
                        return
                    self._step_ups[key] = self._step_ups.get(key, 0) + 1
                    self._requested_scopes = utils.split_scopes(" ".join([*self._requested_scopes, *challenged]))
                    async with SubFlow(self._exchange()) as sub:
                        outgoing = await sub.step(None)
                        while outgoing is not None:
                            outgoing = await sub.step((yield outgoing))
                self._add_auth_header(request)
            yield request

    def _access_token(self) -> str | None:
        return self.current_tokens.access_token if self.current_tokens is not None else None

    def _add_auth_header(self, request: httpx.Request) -> None:
        token = self._access_token()
        if token:
            request.headers["Authorization"] = f"Bearer {token}"

    async def _exchange(self) -> Flow:
        if self.metadata is None:
            url = utils.authorization_server_metadata_urls(self.issuer)[0]
            response = yield httpx.Request("GET", url, headers={"Accept": "application/json"})
            if response.status_code != 200:
                raise OAuthFlowError(f"Authorization server metadata not found at {url}: HTTP {response.status_code}")
            try:
                metadata = OAuthMetadata.model_validate_json(response.content)
            except ValidationError as exc:
                raise OAuthFlowError(f"Invalid authorization server metadata at {url}: {exc}") from exc
            if str(metadata.issuer) != self.issuer:
                raise OAuthFlowError(
                    f"Authorization server metadata issuer mismatch: configured {self.issuer!r}, "
                    f"the document at {url} names {metadata.issuer!r}"
                )
            if utils.origin(str(metadata.token_endpoint)) != utils.origin(self.issuer):
                raise OAuthFlowError(
                    f"The token endpoint {metadata.token_endpoint!r} is not on the issuer's origin {self.issuer!r}"
                )
            self.metadata = metadata
        assertion = await self.assertion_provider(self.audience, self.resource)
        data = {"grant_type": JWT_BEARER_GRANT_TYPE, "assertion": assertion, "resource": self.resource}
        if self._requested_scopes:
            data["scope"] = " ".join(self._requested_scopes)
        headers = {"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"}
        if self.token_endpoint_auth_method == "client_secret_basic":
            credentials = f"{quote(self.client_id, safe='')}:{quote(self.client_secret, safe='')}"
            headers["Authorization"] = "Basic " + base64.b64encode(credentials.encode()).decode("ascii")
        else:
            data["client_id"] = self.client_id
            data["client_secret"] = self.client_secret
        response = yield httpx.Request("POST", str(self.metadata.token_endpoint), data=data, headers=headers)
        if response.status_code != 200:
            raise OAuthTokenError(f"Identity assertion exchange failed: HTTP {response.status_code} {response.text[:500]}")
        try:
            token = OAuthToken.model_validate_json(response.content)
        except ValidationError as exc:
            raise OAuthTokenError(f"Invalid token response: {exc}") from exc
        self.current_tokens = token
        await self.storage.set_tokens(token)


__all__ = ["IdentityAssertionOAuthProvider", "IdentityAssertionProvider"]
