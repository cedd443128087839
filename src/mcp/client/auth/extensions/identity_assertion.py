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
import time
from collections.abc import Awaitable, Callable, Generator
from typing import Any, Literal
from urllib.parse import quote, urlsplit

import anyio
import anyio.lowlevel
import httpx2

from mcp.client.auth import utils
from mcp.client.auth._flow import EitherLibraryAuth, Flow, SubFlow, either_library
from mcp.client.auth.exceptions import OAuthFlowError, OAuthTokenError
from mcp.client.auth.oauth2 import TokenStorage
from mcp.shared.auth import JWT_BEARER_GRANT_TYPE, OAuthClientInformationFull, OAuthToken
from mcp.shared.auth_utils import calculate_token_expiry, resource_url_from_server_url

logger = logging.getLogger("mcp.client.auth.identity_assertion")

IdentityAssertionProvider = Callable[[str, str], Awaitable[str]]
"""`async (audience, resource) -> ID-JAG`: `audience` is the configured issuer (the ID-JAG `aud`),
`resource` the MCP server's canonical URI (its `resource` claim)."""


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
            raise ValueError("client_secret is required: this provider supports confidential clients only")
        if not issuer:
            raise ValueError("issuer is required: the authorization server is configuration, not discovery")
        self._resource = resource_url_from_server_url(server_url)
        self._storage = storage
        self._issuer = issuer
        self._assertion_provider = assertion_provider
        self._scope = scope
        self._client = OAuthClientInformationFull(
            client_id=client_id,
            client_secret=client_secret,
            redirect_uris=None,
            grant_types=[JWT_BEARER_GRANT_TYPE],
            token_endpoint_auth_method=token_endpoint_auth_method,
            issuer=issuer,
        )
        self._token_endpoint: str | None = None
        self._tokens: OAuthToken | None = None
        self._expiry: float | None = None
        self._initialized = False
        self._lock_holder: tuple[Any, anyio.Lock] | None = None

    def _lock(self) -> anyio.Lock:
        """The flow lock of the running event loop (a provider may outlive one loop)."""
        token = anyio.lowlevel.current_token()
        if self._lock_holder is None or self._lock_holder[0] != token:
            self._lock_holder = (token, anyio.Lock())
        return self._lock_holder[1]

    def sync_auth_flow(self, request: httpx2.Request) -> Generator[httpx2.Request, httpx2.Response, None]:
        """The flow is asynchronous only: a synchronous client gets a clear error."""
        raise RuntimeError(f"{type(self).__name__} is asynchronous: use it with httpx2.AsyncClient or httpx.AsyncClient")
        yield request  # a generator, as httpx.Auth flows are

    def _build_token_request(self, scope: str | None, assertion: str) -> httpx2.Request:
        """The RFC 7523 `jwt-bearer` token request, with the confidential client's authentication."""
        assert self._token_endpoint is not None
        client_id, secret = self._client.client_id or "", self._client.client_secret or ""
        data = {"grant_type": JWT_BEARER_GRANT_TYPE, "assertion": assertion, "client_id": client_id,
                "resource": self._resource}
        if scope:
            data["scope"] = scope
        headers = {"Content-Type": "application/x-www-form-urlencoded"}
        if self._client.token_endpoint_auth_method == "client_secret_basic":
            credentials = f"{quote(client_id, safe='')}:{quote(secret, safe='')}"  # RFC 6749 §2.3.1
            headers["Authorization"] = "Basic " + base64.b64encode(credentials.encode()).decode("ascii")
        else:
            data["client_secret"] = secret
        return httpx2.Request("POST", self._token_endpoint, data=data, headers=headers)

    @either_library
    async def async_auth_flow(self, request: httpx2.Request) -> Flow:
        """As `OAuthClientProvider`'s flow: a request sent without a valid token keeps the lock
        until its answer (the requests behind it wait for its exchange); one with a token does not,
        and a challenge it meets after another request's exchange replaced the token is answered
        with that token."""
        await request.aread()  # the request may be sent again after the exchange
        lock = self._lock()
        await lock.acquire()
        held = True
        try:
            if not self._initialized:
                self._tokens = await self._storage.get_tokens()
                self._expiry = calculate_token_expiry(self._tokens.expires_in) if self._tokens else None
                self._initialized = True
            sent: str | None = None
            if self._tokens and (self._expiry is None or time.time() <= self._expiry):
                sent = self._tokens.access_token
                request.headers["Authorization"] = f"Bearer {sent}"
                lock.release()
                held = False
            response = yield request

            if response.status_code == 401:
                scope = self._scope
            elif response.status_code == 403 and \
                    utils.extract_field_from_www_auth(response, "error") == "insufficient_scope":
                scope = utils.union_scopes(self._scope, utils.extract_scope_from_www_auth(response))
            else:
                return
            if not held:
                await lock.acquire()
                held = True
            if sent is None or (self._tokens is not None and self._tokens.access_token == sent):
                async with SubFlow(self._exchange(scope)) as flow:
                    outgoing = await flow.step(None)
                    while outgoing is not None:
                        outgoing = await flow.step((yield outgoing))
            if self._tokens is not None:
                request.headers["Authorization"] = f"Bearer {self._tokens.access_token}"
            lock.release()
            held = False
            yield request
        finally:
            if held:
                lock.release()

    async def _exchange(self, scope: str | None) -> Flow:
        """Metadata of the configured issuer (once), then the `jwt-bearer` token request."""
        if self._token_endpoint is None:
            # the configured issuer's own metadata; the resource server is never asked
            for url in utils.build_oauth_authorization_server_metadata_discovery_urls(self._issuer, self._issuer):
                reply = yield utils.create_oauth_metadata_request(url)
                keep_trying, metadata = await utils.handle_auth_metadata_response(reply)
                if not keep_trying:
                    break
                if metadata is not None:
                    utils.validate_metadata_issuer(metadata, self._issuer)
                    endpoint = str(metadata.token_endpoint)
                    if _origin(endpoint) != _origin(self._issuer):
                        raise OAuthFlowError(
                            f"Token endpoint {endpoint} is not on the configured issuer origin {self._issuer}"
                        )
                    self._token_endpoint = endpoint
                    break
            if self._token_endpoint is None:
                raise OAuthFlowError(f"No authorization server metadata at configured issuer {self._issuer}")

        assertion = await self._assertion_provider(self._issuer, self._resource)
        reply = yield self._build_token_request(scope, assertion)
        if reply.status_code != 200:
            body = (await reply.aread()).decode(errors="replace")
            raise OAuthTokenError(f"Token exchange failed ({reply.status_code}){utils.redirect_note(reply)}: {body}")
        tokens = await utils.handle_token_response_scopes(reply)
        if tokens.scope is None:
            tokens.scope = scope
        self._tokens = tokens
        self._expiry = calculate_token_expiry(tokens.expires_in)
        await self._storage.set_tokens(tokens)


_DEFAULT_PORTS = {"https": 443, "http": 80}


def _origin(url: str) -> tuple[str, str, int | None]:
    """`(scheme, host, port)` of `url`, the port defaulted from the scheme."""
    parts = urlsplit(url)
    return parts.scheme, parts.hostname or "", parts.port if parts.port is not None else _DEFAULT_PORTS.get(parts.scheme)


__all__ = ["IdentityAssertionOAuthProvider", "IdentityAssertionProvider"]
