"""`OAuthClientProvider`: the MCP authorization flow as an `httpx.Auth`.

Attach it to the `httpx.AsyncClient` handed to `streamable_http_client(url, http_client=...)`.
Every request carries the stored access token; a `401` starts the flow:

1. Protected resource metadata (RFC 9728): the `resource_metadata` URL of the `WWW-Authenticate`
   challenge, then `/.well-known/oauth-protected-resource/<path>`, then the root well-known URI.
   Its `resource` must name the MCP server (or `validate_resource_url` decides). No document at
   all means a 2025-03-26 server: the authorization server is the MCP server's origin.
2. Authorization server metadata (RFC 8414 / OpenID Connect Discovery, in the MCP order); its
   `issuer` must be the authorization server it was fetched for. Without any document the
   2025-03-26 default endpoints (`/authorize`, `/token`, `/register`) are used.
3. A refresh (when a refresh token from that authorization server is at hand), else:
4. A client: stored (pre-registered) client information, else a Client ID Metadata Document URL
   (when the server advertises support), else dynamic registration (RFC 7591). Credentials are
   bound to the issuer that issued them: when the protected resource moves to another
   authorization server they are not reused there.
5. Authorization code + PKCE (S256) with `state`, `resource` (RFC 8707) and the selected scope:
   the challenge's `scope`, else the resource's `scopes_supported`, else `client_metadata.scope`,
   else none; `offline_access` is added when the authorization server lists it (and the client
   wants refresh tokens) and never requested when it does not. The response's `state` must match
   and its `iss` is checked per RFC 9207 against the recorded issuer, before the code is sent
   anywhere.
6. Token exchange with the client's token endpoint authentication method
   (`client_secret_basic`, `client_secret_post` or `none`), then the original request is replayed.

A `403` with `error="insufficient_scope"` re-authorizes once per challenged scope set with the
union of the previously requested and the challenged scopes (step-up), then gives up.

All discovery, registration and token requests are yielded to httpx, so they go through the same
client (its transport, mounts, proxies and timeouts). The provider serializes flows with a lock;
concurrent requests that hit a `401` while a flow runs reuse its result.
"""

from __future__ import annotations

import base64
import hashlib
import logging
import secrets
import string
import time
from collections.abc import Awaitable, Callable, Generator
from dataclasses import dataclass, field
from typing import Any, Protocol, cast, get_args, runtime_checkable
from urllib.parse import parse_qsl, quote, urlencode, urlsplit, urlunsplit

import anyio
import anyio.lowlevel
import httpx
from pydantic import BaseModel, Field, ValidationError

from mcp.client.auth import utils
from mcp.client.auth._flow import EitherLibraryAuth, Flow, SubFlow, either_library
from mcp.client.auth.exceptions import OAuthFlowError, OAuthRegistrationError, OAuthTokenError
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthMetadata,
    OAuthToken,
    ProtectedResourceMetadata,
    TokenEndpointAuthMethod,
)
from mcp.shared.auth_utils import calculate_token_expiry

logger = logging.getLogger("mcp.client.auth")

MAX_STEP_UP_ATTEMPTS = 1
"""Re-authorizations for the same challenged scope set before a `403` is final."""
TOKEN_EXPIRY_LEEWAY = 30.0
"""Seconds before `expires_in` runs out at which a token counts as expired."""
OFFLINE_ACCESS = utils.OFFLINE_ACCESS
_PKCE_ALPHABET = string.ascii_letters + string.digits + "-._~"
_JSON = {"Accept": "application/json"}
_SUPPORTED_AUTH_METHODS = ("client_secret_basic", "client_secret_post", "none")
_KNOWN_TOKEN_ENDPOINT_AUTH_METHODS: tuple[str | None, ...] = (None, *get_args(TokenEndpointAuthMethod))
_SECRET_AUTH_METHODS = ("client_secret_basic", "client_secret_post")


def _with_client_secret(data: dict[str, str], headers: dict[str, str], client_id: str, secret: str,
                        method: str) -> tuple[dict[str, str], dict[str, str]]:
    """A token request authenticated with a client secret (RFC 6749 §2.3.1): `client_secret_basic`
    as a URL-encoded `Authorization: Basic` header (the secret kept out of the body),
    `client_secret_post` as `client_id`/`client_secret` form fields. Returns new form data;
    `headers` is updated in place."""
    if method == "client_secret_basic":
        credentials = f"{quote(client_id, safe='')}:{quote(secret, safe='')}"
        headers["Authorization"] = "Basic " + base64.b64encode(credentials.encode()).decode("ascii")
        return {key: value for key, value in data.items() if key != "client_secret"}, headers
    return {**data, "client_id": client_id, "client_secret": secret}, headers


def check_registration_usable(client_info: OAuthClientInformationFull) -> None:
    """Refuse (`OAuthRegistrationError`) a dynamic registration the authorization-code flow cannot
    use (RFC 7591 §3.2.1 lets the server substitute values; the client checks them): a
    token-endpoint auth method this flow cannot apply (unknown, or `private_key_jwt`, which needs
    a key this flow does not hold), or a secret-based method without an issued `client_secret`."""
    method = client_info.token_endpoint_auth_method
    if method not in _KNOWN_TOKEN_ENDPOINT_AUTH_METHODS or method == "private_key_jwt":
        raise OAuthRegistrationError(
            f"Authorization server registered the client with unsupported token_endpoint_auth_method {method!r}"
        )
    if method in _SECRET_AUTH_METHODS and client_info.client_secret is None:
        raise OAuthRegistrationError(
            f"Authorization server registered the client for {method!r} but issued no client_secret"
        )

# -- public protocol and values -----------------------------------------------------------------


@runtime_checkable
class TokenStorage(Protocol):
    """Where the provider keeps tokens and client registrations between runs: four async
    methods, no base class needed."""

    async def get_tokens(self) -> OAuthToken | None: ...

    async def set_tokens(self, tokens: OAuthToken) -> None: ...

    async def get_client_info(self) -> OAuthClientInformationFull | None: ...

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None: ...


class PKCEParameters(BaseModel):
    """A PKCE verifier and its S256 challenge (RFC 7636)."""

    code_verifier: str = Field(..., min_length=43, max_length=128)
    code_challenge: str = Field(..., min_length=43, max_length=128)

    @classmethod
    def generate(cls) -> PKCEParameters:
        verifier = "".join(secrets.choice(_PKCE_ALPHABET) for _ in range(128))
        digest = hashlib.sha256(verifier.encode("ascii")).digest()
        challenge = base64.urlsafe_b64encode(digest).decode("ascii").rstrip("=")
        return cls(code_verifier=verifier, code_challenge=challenge)


RedirectHandler = Callable[[str], Awaitable[None]]
CallbackHandler = Callable[[], Awaitable[AuthorizationCodeResult]]
"""Returns an `AuthorizationCodeResult` (a v1-style `(code, state)` tuple is still accepted)."""
ResourceValidator = Callable[[str, "str | None"], Awaitable[None]]
"""`(server_url, resource_from_metadata)`; raise to refuse the protected resource metadata."""


@dataclass
class OAuthContext:
    """Everything the provider knows: its configuration, what discovery found, the client and
    the tokens (with the issuer each is bound to).

    The fields up to `lock` are the official ones, in their order (positional construction
    works); the rest are this SDK's bookkeeping. `protocol_version` is the `MCP-Protocol-Version`
    of the latest request the provider authorized."""

    server_url: str
    client_metadata: OAuthClientMetadata
    storage: TokenStorage
    redirect_handler: RedirectHandler | None = None
    callback_handler: CallbackHandler | None = None
    client_metadata_url: str | None = None

    protected_resource_metadata: ProtectedResourceMetadata | None = None
    oauth_metadata: OAuthMetadata | None = None
    auth_server_url: str | None = None
    protocol_version: str | None = None

    client_info: OAuthClientInformationFull | None = None
    current_tokens: OAuthToken | None = None
    token_expiry_time: float | None = None
    lock: anyio.Lock = field(default_factory=anyio.Lock)

    validate_resource_url: ResourceValidator | None = None
    oauth_metadata_discovered: bool = False
    """False when `oauth_metadata` holds the 2025-03-26 default endpoints (nothing was fetched)."""
    resource: str | None = None
    client_info_issuer: str | None = None
    tokens_issuer: str | None = None
    requested_scopes: list[str] | None = None
    step_up_attempts: dict[frozenset[str], int] = field(default_factory=lambda: {})

    def get_authorization_base_url(self, server_url: str) -> str:
        """`scheme://host[:port]` of `server_url` (the 2025-03-26 authorization base URL)."""
        parts = urlsplit(server_url)
        return f"{parts.scheme}://{parts.netloc}"

    def should_include_resource_param(self, protocol_version: str | None = None) -> bool:
        """Whether OAuth requests carry the RFC 8707 `resource` parameter: always once protected
        resource metadata was found, else from protocol version 2025-06-18 on."""
        if self.protected_resource_metadata is not None:
            return True
        if not protocol_version:
            return False
        return protocol_version >= "2025-06-18"  # ISO dates compare as strings

    def prepare_token_auth(self, data: dict[str, str],
                           headers: dict[str, str] | None = None) -> tuple[dict[str, str], dict[str, str]]:
        """`(data, headers)` of a token request with the registered client's authentication
        applied (RFC 6749 §2.3.1): `client_secret_basic` as a URL-encoded `Authorization: Basic`
        header (the secret left out of the body), `client_secret_post` as form fields. An
        unknown registered method is an `OAuthTokenError`."""
        headers = {} if headers is None else headers
        info = self.client_info
        if info is None:
            return data, headers
        method = info.token_endpoint_auth_method
        if method in _SECRET_AUTH_METHODS and info.client_secret:
            return _with_client_secret(data, headers, info.client_id, info.client_secret, method)
        if method not in _KNOWN_TOKEN_ENDPOINT_AUTH_METHODS:
            raise OAuthTokenError(f"Registered client uses unsupported token_endpoint_auth_method {method!r}")
        return data, headers

    def get_resource_url(self) -> str:
        """The `resource` parameter (RFC 8707): the protected resource's identifier exactly as
        published in its metadata, else the canonical URI of the MCP server."""
        if self.resource is not None:
            return self.resource
        return utils.canonical_resource(self.server_url)

    def update_token_expiry(self, token: OAuthToken) -> None:
        self.token_expiry_time = calculate_token_expiry(token.expires_in)

    def is_token_valid(self) -> bool:
        if self.current_tokens is None or not self.current_tokens.access_token:
            return False
        return self.token_expiry_time is None or time.time() < self.token_expiry_time - TOKEN_EXPIRY_LEEWAY

    def can_refresh_token(self) -> bool:
        return bool(self.current_tokens and self.current_tokens.refresh_token and self.client_info)

    def clear_tokens(self) -> None:
        self.current_tokens = None
        self.token_expiry_time = None
        self.tokens_issuer = None


# -- the provider -------------------------------------------------------------------------------


class OAuthClientProvider(EitherLibraryAuth):
    """OAuth 2.1 authorization for MCP over HTTP, as an `httpx.Auth` (see the module docstring)."""

    requires_response_body = True
    """The official value. httpx reads it only in the base `Auth` flows, which this class
    overrides (`async_auth_flow`, `sync_auth_flow`), so responses are never read up front: SSE
    streams stay streams, and the flow reads the bodies it needs (challenges, metadata, tokens)."""

    def __init__(
        self,
        server_url: str,
        client_metadata: OAuthClientMetadata,
        storage: TokenStorage,
        redirect_handler: RedirectHandler | None = None,
        callback_handler: CallbackHandler | None = None,
        client_metadata_url: str | None = None,
        validate_resource_url: ResourceValidator | None = None,
    ) -> None:
        if client_metadata_url is not None and not utils.is_valid_client_metadata_url(client_metadata_url):
            raise ValueError(
                f"client_metadata_url must be a valid HTTPS URL with a non-root path, got {client_metadata_url!r}"
            )
        self.context = OAuthContext(
            server_url=server_url,
            client_metadata=client_metadata,
            storage=storage,
            redirect_handler=redirect_handler,
            callback_handler=callback_handler,
            client_metadata_url=client_metadata_url,
            validate_resource_url=validate_resource_url,
        )
        self._initialized = False
        self._lock_holder: tuple[Any, anyio.Lock] | None = None
        self._registration_body: dict[str, Any] = {}

    # -- httpx.Auth -----------------------------------------------------------------------------

    def sync_auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        """The flow is asynchronous only: a synchronous client gets a clear error."""
        raise RuntimeError(f"{type(self).__name__} is asynchronous: use it with httpx2.AsyncClient or httpx.AsyncClient")
        yield request  # a generator, as httpx.Auth flows are

    @either_library
    async def async_auth_flow(self, request: httpx.Request) -> Flow:
        await request.aread()  # the request may be replayed after the flow
        self.context.protocol_version = request.headers.get("mcp-protocol-version", self.context.protocol_version)
        async with self._lock():
            if not self._initialized:
                await self._initialize()
            if not self.context.is_token_valid() and self.context.can_refresh_token() \
                    and self.context.oauth_metadata is not None:
                response = yield self._refresh_request()
                await response.aread()
                await self._handle_refresh_response(response)
            self._add_auth_header(request)
        sent = self._access_token()
        response = yield request

        if response.status_code == 401:
            challenge = _challenge(response)
            async with self._lock():
                if self._access_token() == sent or not self.context.is_token_valid():
                    async with SubFlow(self._oauth_flow(challenge, step_up=False)) as sub:
                        outgoing = await sub.step(None)
                        while outgoing is not None:
                            outgoing = await sub.step((yield outgoing))
                self._add_auth_header(request)
            sent = self._access_token()
            response = yield request

        if response.status_code == 403:
            challenge = _challenge(response)
            if challenge.get("error") != "insufficient_scope":
                return
            async with self._lock():
                if self._access_token() == sent:
                    key = frozenset(utils.split_scopes(challenge.get("scope")))
                    attempts = self.context.step_up_attempts.get(key, 0)
                    if attempts >= MAX_STEP_UP_ATTEMPTS or not self._may_step_up():
                        logger.warning("insufficient_scope for %s again: not re-authorizing", sorted(key))
                        return
                    self.context.step_up_attempts[key] = attempts + 1
                    async with SubFlow(self._oauth_flow(challenge, step_up=True)) as sub:
                        outgoing = await sub.step(None)
                        while outgoing is not None:
                            outgoing = await sub.step((yield outgoing))
                self._add_auth_header(request)
            yield request

    # -- state ----------------------------------------------------------------------------------

    def _lock(self) -> anyio.Lock:
        """The flow lock of the running event loop (a provider may outlive one loop)."""
        token = anyio.lowlevel.current_token()
        if self._lock_holder is None or self._lock_holder[0] != token:
            self._lock_holder = (token, anyio.Lock())
        return self._lock_holder[1]

    async def _initialize(self) -> None:
        ctx = self.context
        tokens = await ctx.storage.get_tokens()
        if tokens is not None:
            ctx.current_tokens = tokens
            ctx.token_expiry_time = None  # the issue time is unknown: trust it until a 401
        client_info = await ctx.storage.get_client_info()
        if client_info is not None:
            ctx.client_info = client_info
            ctx.client_info_issuer = client_info.issuer
        self._initialized = True

    def _access_token(self) -> str | None:
        tokens = self.context.current_tokens
        return tokens.access_token if tokens is not None else None

    def _add_auth_header(self, request: httpx.Request) -> None:
        token = self._access_token()
        if token:
            request.headers["Authorization"] = f"Bearer {token}"

    def _may_step_up(self) -> bool:
        """Whether a `403 insufficient_scope` may start a new authorization (clients acting on
        their own behalf may override this to abort instead)."""
        return True

    async def _store_tokens(self, token: OAuthToken) -> None:
        ctx = self.context
        ctx.current_tokens = token
        ctx.update_token_expiry(token)
        ctx.tokens_issuer = str(ctx.oauth_metadata.issuer) if ctx.oauth_metadata is not None else None
        await ctx.storage.set_tokens(token)

    async def _store_client_info(self, client_info: OAuthClientInformationFull) -> None:
        """Keep a new registration, bound (SEP-2352: `issuer`, persisted with it) to the
        authorization server whose discovered metadata it was obtained from."""
        ctx = self.context
        if ctx.oauth_metadata is not None and ctx.oauth_metadata_discovered:
            client_info = client_info.model_copy(update={"issuer": str(ctx.oauth_metadata.issuer)})
        ctx.client_info = client_info
        ctx.client_info_issuer = client_info.issuer
        await ctx.storage.set_client_info(client_info)

    # -- the flow -------------------------------------------------------------------------------

    async def _oauth_flow(self, challenge: dict[str, str], *, step_up: bool) -> Flow:
        """Discovery, then a refresh or a new grant. Yields the HTTP requests to make; each
        yield receives the (read) response."""
        ctx = self.context

        prm: ProtectedResourceMetadata | None = None
        for url in utils.protected_resource_metadata_urls(ctx.server_url, challenge.get("resource_metadata")):
            response = yield httpx.Request("GET", url, headers=_JSON)
            if response.status_code == 200:
                prm = _parse(ProtectedResourceMetadata, response)
                if prm is not None:
                    break
        if prm is not None:
            await self._validate_resource(prm)
            auth_server_url = str(prm.authorization_servers[0])
            ctx.resource = str(prm.resource)
        else:
            logger.debug("no protected resource metadata for %s: 2025-03-26 discovery", ctx.server_url)
            auth_server_url = utils.origin(ctx.server_url)
            ctx.resource = None
        ctx.protected_resource_metadata = prm

        metadata: OAuthMetadata | None = None
        if self._pinned_metadata_matches(auth_server_url):
            metadata = ctx.oauth_metadata
        else:
            for url in self._metadata_urls(auth_server_url):
                response = yield httpx.Request("GET", url, headers=_JSON)
                if response.status_code != 200:
                    continue
                metadata = _parse(OAuthMetadata, response)
                if metadata is None:
                    continue
                self._check_metadata_issuer(auth_server_url, metadata)
                break
        discovered = metadata is not None
        if metadata is None:
            metadata = self._default_metadata(auth_server_url)
        self._use_authorization_server(auth_server_url, metadata, discovered)

        if not step_up and ctx.can_refresh_token():
            response = yield self._refresh_request()
            if await self._handle_refresh_response(response):
                return

        ctx.requested_scopes = self._select_scopes(challenge, step_up=step_up)
        async with SubFlow(self._obtain_token()) as grant:
            outgoing = await grant.step(None)
            while outgoing is not None:
                outgoing = await grant.step((yield outgoing))

    def _pinned_metadata_matches(self, auth_server_url: str) -> bool:
        """Subclasses configured with a fixed authorization server may skip re-discovery."""
        return False

    def _metadata_urls(self, auth_server_url: str) -> list[str]:
        return utils.authorization_server_metadata_urls(auth_server_url)

    def _check_metadata_issuer(self, auth_server_url: str, metadata: OAuthMetadata) -> None:
        """RFC 8414 §3.3 / SEP-2468: the document must name the issuer discovery started from,
        compared as strings. Only on the 2025-03-26 path (no protected resource metadata, the
        issuer is the server's origin) may a root issuer carry its trailing slash."""
        issuer = str(metadata.issuer)
        if self.context.protected_resource_metadata is None and utils.issuers_match(issuer, auth_server_url):
            return
        utils.validate_metadata_issuer(metadata, auth_server_url)

    def _default_metadata(self, auth_server_url: str) -> OAuthMetadata:
        """The 2025-03-26 fallback: default endpoint paths on the authorization server."""
        base = auth_server_url.rstrip("/")
        return OAuthMetadata.model_validate({
            "issuer": auth_server_url,
            "authorization_endpoint": f"{base}/authorize",
            "token_endpoint": f"{base}/token",
            "registration_endpoint": f"{base}/register",
        })

    async def _validate_resource(self, prm: ProtectedResourceMetadata) -> None:
        ctx = self.context
        if ctx.validate_resource_url is not None:
            await ctx.validate_resource_url(ctx.server_url, str(prm.resource))
            return
        if not utils.resource_covers(str(prm.resource), ctx.server_url):
            raise OAuthFlowError(
                f"Protected resource {prm.resource!r} does not match the MCP server {ctx.server_url!r}; "
                "refusing to authorize for it"
            )

    def _use_authorization_server(self, auth_server_url: str, metadata: OAuthMetadata, discovered: bool) -> None:
        """Adopt `metadata`; drop credentials and tokens bound to a different issuer."""
        ctx = self.context
        issuer = str(metadata.issuer)
        # credentials without a recorded issuer (pre-registered, or stored before issuer binding)
        # carry no binding and are used as they are
        bound = ctx.client_info_issuer
        if ctx.client_info is not None and bound is not None and not utils.issuers_match(bound, issuer) \
                and not self._portable_client(metadata):
            logger.info("authorization server changed from %s to %s: registering again", bound, issuer)
            ctx.client_info = None
            ctx.client_info_issuer = None
        if ctx.current_tokens is not None:
            if ctx.tokens_issuer is None:
                ctx.tokens_issuer = issuer
            elif ctx.tokens_issuer != issuer:
                ctx.clear_tokens()
                ctx.requested_scopes = None
        elif ctx.auth_server_url is not None and ctx.oauth_metadata is not None and str(ctx.oauth_metadata.issuer) != issuer:
            ctx.requested_scopes = None
        ctx.auth_server_url = auth_server_url
        ctx.oauth_metadata = metadata
        ctx.oauth_metadata_discovered = discovered

    def _portable_client(self, metadata: OAuthMetadata) -> bool:
        """A Client ID Metadata Document client id works at any server that supports CIMD."""
        ctx = self.context
        return (ctx.client_info is not None and ctx.client_metadata_url is not None
                and ctx.client_info.client_id == ctx.client_metadata_url
                and bool(metadata.client_id_metadata_document_supported))

    def _select_scopes(self, challenge: dict[str, str], *, step_up: bool) -> list[str]:
        ctx = self.context
        challenged = utils.split_scopes(challenge.get("scope"))
        prm = ctx.protected_resource_metadata
        if challenged:
            base = challenged
        elif step_up:
            base = []
        elif prm is not None and prm.scopes_supported:
            base = list(prm.scopes_supported)
        else:
            base = utils.split_scopes(ctx.client_metadata.scope)
        scopes = utils.split_scopes(" ".join([*(ctx.requested_scopes or []), *base]))
        metadata = ctx.oauth_metadata
        offered = metadata.scopes_supported if metadata is not None and metadata.scopes_supported else []
        if OFFLINE_ACCESS not in offered:
            scopes = [scope for scope in scopes if scope != OFFLINE_ACCESS]
        elif scopes and OFFLINE_ACCESS not in scopes and self._wants_refresh_tokens():
            scopes.append(OFFLINE_ACCESS)
        return scopes

    def _wants_refresh_tokens(self) -> bool:
        return "refresh_token" in self.context.client_metadata.grant_types

    # -- the authorization code grant -----------------------------------------------------------

    async def _obtain_token(self) -> Flow:
        """Register (if needed), authorize with the user, exchange the code."""
        ctx = self.context
        metadata = ctx.oauth_metadata
        assert metadata is not None
        if ctx.redirect_handler is None or ctx.callback_handler is None:
            raise OAuthFlowError("The authorization code flow needs redirect_handler and callback_handler")
        if ctx.oauth_metadata_discovered:
            methods = metadata.code_challenge_methods_supported
            if not methods or "S256" not in methods:
                raise OAuthFlowError(
                    f"Authorization server {metadata.issuer!r} does not advertise PKCE S256 support "
                    "(code_challenge_methods_supported); refusing to proceed"
                )
        if ctx.client_info is None:
            if self._can_use_client_metadata_document(metadata):
                assert ctx.client_metadata_url is not None
                await self._store_client_info(self._client_metadata_document_info(ctx.client_metadata_url))
            else:
                response = yield self._registration_request(metadata)
                await self._handle_registration_response(response)
        response = yield await self._perform_authorization()
        await self._handle_token_response(response)

    async def _perform_authorization(self) -> httpx.Request:
        """The user-facing step (redirect, then wait for the callback) with a registered client;
        returns the token request exchanging the code. The hook subclasses override (as in the
        official SDK) to check or replace how the token request is obtained."""
        ctx = self.context
        metadata, client_info = ctx.oauth_metadata, ctx.client_info
        assert metadata is not None and client_info is not None
        assert ctx.redirect_handler is not None and ctx.callback_handler is not None
        pkce = PKCEParameters.generate()
        state = secrets.token_urlsafe(32)
        await ctx.redirect_handler(self._authorization_url(metadata, client_info, pkce, state))
        result = await ctx.callback_handler()
        code = self._check_authorization_response(result, state, metadata)
        return self._token_request(self._code_grant(code, pkce.code_verifier, client_info))

    def _can_use_client_metadata_document(self, metadata: OAuthMetadata) -> bool:
        return self.context.client_metadata_url is not None and bool(metadata.client_id_metadata_document_supported)

    def _client_metadata_document_info(self, url: str) -> OAuthClientInformationFull:
        data = self.context.client_metadata.model_dump(exclude_none=True)
        data.update(client_id=url, token_endpoint_auth_method="none")
        data.pop("client_secret", None)
        return OAuthClientInformationFull.model_validate(data)

    def _registration_request(self, metadata: OAuthMetadata) -> httpx.Request:
        ctx = self.context
        endpoint = metadata.registration_endpoint
        if endpoint is None:
            raise OAuthRegistrationError(
                f"No client registration for {metadata.issuer!r}: no stored client information, no "
                "Client ID Metadata Document support and no registration_endpoint"
            )
        body = ctx.client_metadata.model_dump(mode="json", exclude_none=True)
        if ctx.requested_scopes and "scope" not in body:
            body["scope"] = " ".join(ctx.requested_scopes)
        if "token_endpoint_auth_method" not in body:
            supported = metadata.token_endpoint_auth_methods_supported or []
            chosen = next((m for m in _SUPPORTED_AUTH_METHODS if m in supported), None)
            if chosen is not None:
                body["token_endpoint_auth_method"] = chosen
        self._registration_body = body
        return httpx.Request("POST", str(endpoint), json=body, headers=_JSON)

    async def _handle_registration_response(self, response: httpx.Response) -> None:
        if response.status_code not in (200, 201):
            raise OAuthRegistrationError(
                f"Registration failed: HTTP {response.status_code} {_snippet(response)}"
            )
        try:
            data = response.json()
            # what was asked for and not echoed back stays as registered (RFC 7591 §3.2.1)
            info = OAuthClientInformationFull.model_validate({**self._registration_body, **data})
        except (ValueError, ValidationError) as exc:
            raise OAuthRegistrationError(f"Invalid registration response: {exc}") from exc
        method = info.token_endpoint_auth_method
        if method is not None and method not in self._auth_methods():
            raise OAuthRegistrationError(
                f"The authorization server registered this client for token_endpoint_auth_method "
                f"{method!r}, which this client does not implement"
            )
        if method in _SECRET_AUTH_METHODS:
            check_registration_usable(info)
        await self._store_client_info(info)

    def _auth_methods(self) -> tuple[str, ...]:
        return _SUPPORTED_AUTH_METHODS

    def _authorization_url(self, metadata: OAuthMetadata, client_info: OAuthClientInformationFull,
                           pkce: PKCEParameters, state: str) -> str:
        ctx = self.context
        endpoint = metadata.authorization_endpoint
        redirect_uris = client_info.redirect_uris or ctx.client_metadata.redirect_uris
        if not redirect_uris:
            raise OAuthFlowError("The authorization code flow needs a redirect URI in client_metadata.redirect_uris")
        params: dict[str, str] = {
            "response_type": "code",
            "client_id": client_info.client_id,
            "redirect_uri": str(redirect_uris[0]),
            "state": state,
            "code_challenge": pkce.code_challenge,
            "code_challenge_method": "S256",
        }
        self._add_resource(params)
        if ctx.requested_scopes:
            params["scope"] = " ".join(ctx.requested_scopes)
            if OFFLINE_ACCESS in ctx.requested_scopes:
                params["prompt"] = "consent"  # OIDC Core §11: offline access needs consent
        parts = urlsplit(str(endpoint))
        query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k not in params]
        query.extend(params.items())
        return urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(query, quote_via=quote), ""))

    def _check_authorization_response(self, result: Any, state: str, metadata: OAuthMetadata) -> str:
        if isinstance(result, tuple):
            code, state_value, *rest = cast(tuple[Any, ...], result)
            result = AuthorizationCodeResult(code=code, state=state_value, iss=rest[0] if rest else None)
        if not isinstance(result, AuthorizationCodeResult):
            raise OAuthFlowError(f"callback_handler must return an AuthorizationCodeResult, got {type(result).__name__}")
        if result.state != state:
            raise OAuthFlowError("Authorization response state does not match the request: discarded")
        if self.context.oauth_metadata_discovered:
            # RFC 9207 §2.4 as profiled by MCP: a present `iss` must equal the recorded issuer (simple
            # string comparison, no normalization); an absent one is refused only if advertised.
            if result.iss is not None:
                if result.iss != str(metadata.issuer):
                    raise OAuthFlowError(
                        f"Authorization response iss {result.iss!r} does not match the authorization "
                        f"server issuer {metadata.issuer!r}: discarded"
                    )
            elif metadata.authorization_response_iss_parameter_supported:
                raise OAuthFlowError("Authorization response lacks the iss parameter the authorization server "
                                     "advertises: discarded")
        if not result.code:
            raise OAuthFlowError("Authorization response carries no code")
        return result.code

    def _code_grant(self, code: str, verifier: str, client_info: OAuthClientInformationFull) -> dict[str, str]:
        redirect_uris = client_info.redirect_uris or self.context.client_metadata.redirect_uris or []
        data = {
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": str(redirect_uris[0]) if redirect_uris else "",
            "client_id": client_info.client_id,
            "code_verifier": verifier,
        }
        self._add_resource(data)
        return data

    def _add_resource(self, params: dict[str, str]) -> None:
        """The RFC 8707 `resource` parameter, when the server is known to expect it (protected
        resource metadata was found, or the protocol version is 2025-06-18 or later)."""
        ctx = self.context
        if ctx.should_include_resource_param(ctx.protocol_version):
            params["resource"] = ctx.get_resource_url()

    # -- token requests -------------------------------------------------------------------------

    def _token_endpoint(self) -> str:
        metadata = self.context.oauth_metadata
        if metadata is not None:
            return str(metadata.token_endpoint)
        return f"{utils.origin(self.context.server_url)}/token"

    def _token_auth_method(self, client_info: OAuthClientInformationFull) -> str:
        if client_info.token_endpoint_auth_method is not None:
            return client_info.token_endpoint_auth_method
        metadata = self.context.oauth_metadata
        supported = metadata.token_endpoint_auth_methods_supported if metadata is not None else None
        if client_info.client_secret:
            for method in ("client_secret_basic", "client_secret_post"):
                if supported and method in supported:
                    return method
            return "client_secret_basic"
        return "none"

    def _apply_client_auth(self, data: dict[str, str], headers: dict[str, str],
                           client_info: OAuthClientInformationFull) -> None:
        """Authenticate the client on a token request (RFC 6749 §2.3)."""
        method = self._token_auth_method(client_info)
        if method in _SECRET_AUTH_METHODS:
            if not client_info.client_secret:
                raise OAuthTokenError(f"{method} needs a client_secret")
            prepared, _ = _with_client_secret(data, headers, client_info.client_id, client_info.client_secret, method)
            data.clear()
            data.update(prepared)
        elif method == "none":
            data["client_id"] = client_info.client_id
        else:
            raise OAuthTokenError(f"Unsupported token endpoint authentication method {method!r}")

    def _token_request(self, data: dict[str, str]) -> httpx.Request:
        client_info = self.context.client_info
        if client_info is None:
            raise OAuthTokenError("No client information for the token request")
        headers = {"Content-Type": "application/x-www-form-urlencoded", **_JSON}
        data = dict(data)
        self._apply_client_auth(data, headers, client_info)
        return httpx.Request("POST", self._token_endpoint(), data=data, headers=headers)

    async def _handle_token_response(self, response: httpx.Response) -> None:
        if response.status_code != 200:
            raise OAuthTokenError(f"Token request failed: HTTP {response.status_code} {_snippet(response)}")
        try:
            token = OAuthToken.model_validate_json(response.content)
        except ValidationError as exc:
            raise OAuthTokenError(f"Invalid token response: {exc}") from exc
        await self._store_tokens(token)

    def _refresh_request(self) -> httpx.Request:
        tokens = self.context.current_tokens
        assert tokens is not None and tokens.refresh_token
        data = {"grant_type": "refresh_token", "refresh_token": tokens.refresh_token}
        self._add_resource(data)
        if self.context.client_info is not None:
            data["client_id"] = self.context.client_info.client_id
        return self._token_request(data)

    async def _handle_refresh_response(self, response: httpx.Response) -> bool:
        ctx = self.context
        if response.status_code != 200:
            logger.info("token refresh failed (HTTP %d): authorizing again", response.status_code)
            ctx.clear_tokens()
            return False
        try:
            token = OAuthToken.model_validate_json(response.content)
        except ValidationError:
            logger.warning("invalid token refresh response: authorizing again")
            ctx.clear_tokens()
            return False
        if token.refresh_token is None and ctx.current_tokens is not None and ctx.current_tokens.refresh_token:
            token = token.model_copy(update={"refresh_token": ctx.current_tokens.refresh_token})
        await self._store_tokens(token)
        return True


def _challenge(response: httpx.Response) -> dict[str, str]:
    """The `Bearer` challenge of a 401/403, else its `DPoP` one (RFC 9449 §7.1), as auth-params."""
    header = response.headers.get("www-authenticate")
    return utils.parse_www_authenticate(header) or utils.parse_www_authenticate(header, "DPoP") or {}


def _parse(model: type[Any], response: httpx.Response) -> Any:
    try:
        return model.model_validate_json(response.content)
    except ValidationError as exc:
        logger.debug("ignoring an invalid %s at %s: %s", model.__name__, response.request.url, exc)
        return None


def _snippet(response: httpx.Response) -> str:
    try:
        text = response.text
    except Exception:  # pragma: no cover - undecodable body
        return ""
    return text[:500]


__all__ = [
    "AuthorizationCodeResult",
    "CallbackHandler",
    "OAuthClientProvider",
    "OAuthContext",
    "PKCEParameters",
    "RedirectHandler",
    "ResourceValidator",
    "TokenStorage",
    "check_registration_usable",
]
