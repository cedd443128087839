"""`OAuthClientProvider`: the MCP authorization flow as an `httpx.Auth`.

Attach it to the `httpx2.AsyncClient` (or `httpx.AsyncClient`) handed to
`streamable_http_client(url, http_client=...)`. Every request carries the stored access token (an
expired one is refreshed first when a refresh token is at hand). A `401`, or a `403` with
`error="insufficient_scope"`, starts the flow, once per request:

1. Protected resource metadata (RFC 9728): the challenge's `resource_metadata` URL, then
   `/.well-known/oauth-protected-resource/<path>`, then the root well-known URI. Its `resource`
   must cover the MCP server's URL (or `validate_resource_url` decides). Without any document the
   authorization server is the MCP server's origin (2025-03-26). A step-up reuses what an earlier
   flow discovered.
2. Authorization server metadata (RFC 8414 / OpenID Connect Discovery, in the MCP order); its
   `issuer` must be the one discovery started from. Stored credentials bound to another issuer
   (SEP-2352) are dropped first.
3. The scope: the challenge's `scope`, else the resource's `scopes_supported`, else the
   authorization server's, else none; `offline_access` is added when the server offers it and the
   client uses refresh tokens. A step-up asks for the union of what was asked or granted before
   and the challenged scope (SEP-2350). The choice is written to `client_metadata.scope`.
4. A client: stored client information, else a Client ID Metadata Document URL (when the server
   supports it), else dynamic registration (RFC 7591) with `client_metadata`.
5. Authorization code + PKCE (S256) with `state`, `resource` (RFC 8707) and the scope; the
   response's `state` and RFC 9207 `iss` are checked before the code is used. The person's time in
   the browser is not counted against the request's timeout.
6. The token request, authenticated with the registered client's `token_endpoint_auth_method`;
   then the original request is sent once more with the new token.

All discovery, registration and token requests are yielded to the HTTP client, so they go through
its transport, mounts and proxies. One flow runs at a time; requests challenged meanwhile use its
token.

The provider's state and its public values (`OAuthContext`, `TokenStorage`, `PKCEParameters`, ...)
live in `mcp.client.auth._oauth_context`; this module is their official path.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Generator
from typing import Any, cast
from urllib.parse import urlencode, urljoin, urlsplit

import anyio
import anyio.lowlevel
import httpx2
from pydantic import AnyHttpUrl, ConfigDict, TypeAdapter, ValidationError

from mcp.client.auth import utils
from mcp.client.auth._flow import EitherLibraryAuth, Flow, SubFlow, either_library
from mcp.client.auth._oauth_context import CallbackHandler as CallbackHandler
from mcp.client.auth._oauth_context import OAuthContext as OAuthContext
from mcp.client.auth._oauth_context import PKCEParameters as PKCEParameters
from mcp.client.auth._oauth_context import RedirectHandler as RedirectHandler
from mcp.client.auth._oauth_context import ResourceValidator as ResourceValidator
from mcp.client.auth._oauth_context import TokenStorage as TokenStorage
from mcp.client.auth._oauth_context import check_registration_usable as check_registration_usable
from mcp.client.auth.exceptions import OAuthFlowError, OAuthTokenError
from mcp.client.auth.exceptions import OAuthRegistrationError as OAuthRegistrationError
from mcp.shared._request_clock import waiting_on_a_person
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientMetadata,
    OAuthToken,
    ProtectedResourceMetadata,
)

# Names the official module has by import; kept at this path.
from mcp.shared.auth import OAuthClientInformationFull as OAuthClientInformationFull
from mcp.shared.auth import OAuthMetadata as OAuthMetadata
from mcp.shared.auth import TokenEndpointAuthMethod as TokenEndpointAuthMethod
from mcp.shared.auth_utils import calculate_token_expiry as calculate_token_expiry
from mcp.shared.auth_utils import check_resource_allowed, resource_url_from_server_url
from mcp.types.version import is_version_at_least as is_version_at_least

logger = logging.getLogger("mcp.client.auth.oauth2")

_FORM = "application/x-www-form-urlencoded"
_VERSION_HEADER = "mcp-protocol-version"

_ORIGIN_URL = TypeAdapter(AnyHttpUrl, config=ConfigDict(url_preserve_empty_path=True))


def _origin_issuer(server_url: str) -> str:
    """The MCP server's origin as an issuer identifier, spelled as `OAuthMetadata.issuer` spells
    URLs (host case, default ports), so that the two compare as strings."""
    parts = urlsplit(server_url)
    return str(_ORIGIN_URL.validate_python(f"{parts.scheme}://{parts.netloc}"))


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
                f"client_metadata_url must be a valid HTTPS URL with a non-root pathname, got: {client_metadata_url}"
            )
        self.context = OAuthContext(
            server_url=server_url,
            client_metadata=client_metadata,
            storage=storage,
            redirect_handler=redirect_handler,
            callback_handler=callback_handler,
            client_metadata_url=client_metadata_url,
        )
        self._validate_resource_url_callback = validate_resource_url
        self._initialized = False
        self._lock_holder: tuple[Any, anyio.Lock] | None = None

    # -- httpx.Auth -----------------------------------------------------------------------------

    def sync_auth_flow(self, request: httpx2.Request) -> Generator[httpx2.Request, httpx2.Response, None]:
        """The flow is asynchronous only: a synchronous client gets a clear error."""
        raise RuntimeError(f"{type(self).__name__} is asynchronous: use it with httpx2.AsyncClient or httpx.AsyncClient")
        yield request  # a generator, as httpx.Auth flows are

    @either_library
    async def async_auth_flow(self, request: httpx2.Request) -> Flow:
        await request.aread()  # the request may be sent again after the flow
        flow = self._auth_flow(request)
        try:  # relayed as is: an MCP response's body (an open SSE stream) is not read here
            outgoing = await flow.__anext__()
            while True:
                outgoing = await flow.asend((yield outgoing))
        except StopAsyncIteration:
            return
        finally:
            await flow.aclose()

    async def _auth_flow(self, request: httpx2.Request) -> Flow:
        """The flow proper (see the module docstring); `async_auth_flow` drives it.

        A request sent without a valid token keeps the lock until its answer arrives: if it is
        challenged, the requests behind it wait for its login instead of each starting one. A request
        with a token does not hold it while out (a response whose headers come late, such as an SSE
        stream behind a buffering transport, must not stall the others); if it is challenged after
        another request's flow replaced the token, it uses that token instead of starting a flow."""
        ctx = self.context
        lock = self._lock()
        await lock.acquire()
        held = True
        try:
            if not self._initialized:
                await self._initialize()
            ctx.protocol_version = request.headers.get(_VERSION_HEADER)

            if not ctx.is_token_valid() and ctx.can_refresh_token():
                response = yield await self._refresh_token()
                if not await self._handle_refresh_response(response):
                    self._initialized = False  # reload what storage holds before the next request
            sent: str | None = None
            if ctx.is_token_valid():
                self._add_auth_header(request)
                sent = self._access_token()
                lock.release()
                held = False

            response = yield request

            step_up = response.status_code == 403 and \
                utils.extract_field_from_www_auth(response, "error") == "insufficient_scope"
            if response.status_code != 401 and not step_up:
                return
            if not held:
                await lock.acquire()
                held = True
            if sent is None or self._access_token() == sent:  # else another request's flow answered it
                try:
                    async with SubFlow(self._authorize(response, step_up=step_up)) as flow:
                        outgoing = await flow.step(None)
                        while outgoing is not None:
                            outgoing = await flow.step((yield outgoing))
                except Exception:
                    logger.exception("OAuth flow error")
                    raise
            self._add_auth_header(request)
            lock.release()
            held = False
            yield request
        finally:
            if held:
                lock.release()

    def _access_token(self) -> str | None:
        tokens = self.context.current_tokens
        return tokens.access_token if tokens else None

    def _lock(self) -> anyio.Lock:
        """The flow lock of the running event loop (a provider may outlive one loop)."""
        token = anyio.lowlevel.current_token()
        if self._lock_holder is None or self._lock_holder[0] != token:
            self._lock_holder = (token, anyio.Lock())
        return self._lock_holder[1]

    async def _initialize(self) -> None:
        """Load the stored tokens and client information."""
        self.context.current_tokens = await self.context.storage.get_tokens()
        self.context.client_info = await self.context.storage.get_client_info()
        self._initialized = True

    def _add_auth_header(self, request: httpx2.Request) -> None:
        tokens = self.context.current_tokens
        if tokens and tokens.access_token:
            request.headers["Authorization"] = f"Bearer {tokens.access_token}"

    # -- the flow -------------------------------------------------------------------------------

    async def _authorize(self, response: httpx2.Response, *, step_up: bool) -> Flow:
        """Answer a challenge: discovery (unless a step-up can reuse it), scope, client, grant."""
        ctx = self.context
        # the stored token's scope is the only record of what was granted after a restart; read it
        # before discovery may drop the tokens
        granted_scope = ctx.current_tokens.scope if ctx.current_tokens else None

        if response.status_code == 401 or ctx.oauth_metadata is None:
            async with SubFlow(self._discover(response)) as flow:
                outgoing = await flow.step(None)
                while outgoing is not None:
                    outgoing = await flow.step((yield outgoing))

        selected = utils.get_client_metadata_scopes(
            utils.extract_scope_from_www_auth(response),
            ctx.protected_resource_metadata,
            ctx.oauth_metadata,
            ctx.client_metadata.grant_types,
        )
        if step_up:
            prior = utils.union_scopes(ctx.client_metadata.scope, granted_scope)
            ctx.client_metadata.scope = utils.union_scopes(prior, selected)
        else:
            ctx.client_metadata.scope = selected

        if not ctx.client_info:
            async with SubFlow(self._register()) as flow:
                outgoing = await flow.step(None)
                while outgoing is not None:
                    outgoing = await flow.step((yield outgoing))

        token_response = yield await self._perform_authorization()
        await self._handle_token_response(token_response)

    async def _discover(self, response: httpx2.Response) -> Flow:
        """Protected resource metadata, then authorization server metadata (steps 1 and 2)."""
        ctx = self.context
        header_url = utils.extract_resource_metadata_from_www_auth(response)
        failed_status: int | None = None
        for url in utils.build_protected_resource_metadata_discovery_urls(header_url, ctx.server_url):
            reply = yield utils.create_oauth_metadata_request(url)
            if reply.status_code >= 500 or reply.status_code == 429:
                failed_status = reply.status_code
            prm = await utils.handle_protected_resource_response(reply)
            if prm is not None:
                await self._validate_resource_match(prm)
                ctx.protected_resource_metadata = prm
                ctx.auth_server_url = self._select_authorization_server([str(u) for u in prm.authorization_servers])
                break
            logger.debug("no protected resource metadata at %s", url)
        else:
            if failed_status is not None:
                # a server error says nothing about whether the resource publishes metadata: it must
                # not send the flow down the 2025-03-26 path
                raise OAuthFlowError(f"Protected resource metadata request failed: HTTP {failed_status}")

        expected_issuer = self._expected_issuer()
        # SEP-2352: credentials are bound to the issuer that registered them; another server never
        # sees them (nor the tokens, nor that server's endpoints)
        if ctx.client_info is not None and not utils.credentials_match_issuer(
            ctx.client_info, expected_issuer, ctx.client_metadata_url
        ):
            logger.debug("authorization server changed: dropping the credentials bound to the previous one")
            ctx.client_info = None
            ctx.clear_tokens()
            ctx.oauth_metadata = None

        for url in utils.build_oauth_authorization_server_metadata_discovery_urls(ctx.auth_server_url, ctx.server_url):
            reply = yield utils.create_oauth_metadata_request(url)
            keep_trying, metadata = await utils.handle_auth_metadata_response(reply)
            if not keep_trying:
                break
            if metadata is not None:
                # RFC 8414 §3.3 / SEP-2468; on the 2025-03-26 path a root issuer spelled with its
                # trailing slash names the same origin
                if ctx.auth_server_url is None and utils.issuers_match(str(metadata.issuer), expected_issuer):
                    expected_issuer = str(metadata.issuer)
                utils.validate_metadata_issuer(metadata, expected_issuer)
                ctx.oauth_metadata = metadata
                break
            logger.debug("no authorization server metadata at %s", url)

    async def _register(self) -> Flow:
        """A client for the authorization server: its Client ID Metadata Document URL when
        supported, else a dynamic registration (step 4)."""
        ctx = self.context
        discovered_issuer = self._expected_issuer() if ctx.oauth_metadata is not None else None
        if utils.should_use_client_metadata_url(ctx.oauth_metadata, ctx.client_metadata_url):
            assert ctx.client_metadata_url is not None
            info = utils.create_client_info_from_metadata_url(
                ctx.client_metadata_url, redirect_uris=ctx.client_metadata.redirect_uris
            )
            info.issuer = discovered_issuer  # informational: a CIMD client id works anywhere
            ctx.client_info = info
            await ctx.storage.set_client_info(info)
            return
        fallback_base = ctx.get_authorization_base_url(ctx.server_url)
        reply = yield utils.create_client_registration_request(ctx.oauth_metadata, ctx.client_metadata, fallback_base)
        info = await utils.handle_registration_response(reply)
        check_registration_usable(info)
        # bind the credentials only to a server the registration really went to: the advertised
        # registration endpoint, or the /register fallback on the issuer's own origin
        if ctx.oauth_metadata is not None and discovered_issuer is not None and (
            ctx.oauth_metadata.registration_endpoint is not None
            or ctx.get_authorization_base_url(discovered_issuer) == fallback_base
        ):
            info.issuer = discovered_issuer
        ctx.client_info = info
        await ctx.storage.set_client_info(info)

    async def _validate_resource_match(self, prm: ProtectedResourceMetadata) -> None:
        """The protected resource metadata must cover the MCP server's URL (RFC 9728 §3.3), unless
        `validate_resource_url` decides."""
        published = str(prm.resource) if prm.resource else None
        if self._validate_resource_url_callback is not None:
            await self._validate_resource_url_callback(self.context.server_url, published)
            return
        if not published:
            return
        expected = resource_url_from_server_url(self.context.server_url)
        if not check_resource_allowed(requested_resource=expected, configured_resource=published):
            raise OAuthFlowError(f"Protected resource {published} does not match expected {expected}")

    def _select_authorization_server(self, advertised: list[str]) -> str:
        """Which of the authorization servers of the protected resource metadata to use: the first."""
        return advertised[0]

    def _expected_issuer(self) -> str:
        """The issuer metadata and credentials must belong to: the advertised authorization
        server, or on the 2025-03-26 path the MCP server's origin."""
        return self.context.auth_server_url or _origin_issuer(self.context.server_url)

    # -- the authorization code grant -----------------------------------------------------------

    async def _perform_authorization(self) -> httpx2.Request:
        """The user-facing step and the token request that exchanges its code (the hook the
        machine-to-machine providers override)."""
        code, verifier = await self._perform_authorization_code_grant()
        return await self._exchange_token_authorization_code(code, verifier)

    async def _perform_authorization_code_grant(self) -> tuple[str, str]:
        """Send the person to the authorization endpoint and wait for the redirect; returns the
        code and the PKCE verifier."""
        ctx = self.context
        if ctx.client_metadata.redirect_uris is None:
            raise OAuthFlowError("No redirect URIs provided for authorization code grant")
        if not ctx.redirect_handler:
            raise OAuthFlowError("No redirect handler provided for authorization code grant")
        if not ctx.callback_handler:
            raise OAuthFlowError("No callback handler provided for authorization code grant")
        if ctx.oauth_metadata and ctx.oauth_metadata.authorization_endpoint:
            endpoint = str(ctx.oauth_metadata.authorization_endpoint)
        else:
            endpoint = urljoin(ctx.get_authorization_base_url(ctx.server_url), "/authorize")
        if not ctx.client_info:
            raise OAuthFlowError("No client info available for authorization")

        pkce = PKCEParameters.generate()
        state = secrets.token_urlsafe(32)
        params = {
            "response_type": "code",
            "client_id": ctx.client_info.client_id or "",
            "redirect_uri": str(ctx.client_metadata.redirect_uris[0]),
            "state": state,
            "code_challenge": pkce.code_challenge,
            "code_challenge_method": "S256",
        }
        if ctx.should_include_resource_param(ctx.protocol_version):
            params["resource"] = ctx.get_resource_url()
        if ctx.client_metadata.scope:
            params["scope"] = ctx.client_metadata.scope
            if "offline_access" in ctx.client_metadata.scope.split():
                params["prompt"] = "consent"  # OIDC Core §11: offline access needs consent

        with waiting_on_a_person():  # the login does not count against the request's timeout
            await ctx.redirect_handler(f"{endpoint}?{urlencode(params)}")
            result = _as_result(await ctx.callback_handler())

        if result.state is None or not secrets.compare_digest(result.state, state):
            raise OAuthFlowError(f"State parameter mismatch: {result.state} != {state}")
        utils.validate_authorization_response_iss(result.iss, ctx.oauth_metadata)  # RFC 9207
        if not result.code:
            raise OAuthFlowError("No authorization code received")
        return result.code, pkce.code_verifier

    def _get_token_endpoint(self) -> str:
        ctx = self.context
        if ctx.oauth_metadata and ctx.oauth_metadata.token_endpoint:
            return str(ctx.oauth_metadata.token_endpoint)
        return urljoin(ctx.get_authorization_base_url(ctx.server_url), "/token")

    async def _exchange_token_authorization_code(self, auth_code: str, code_verifier: str) -> httpx2.Request:
        """The token request exchanging the code."""
        ctx = self.context
        if ctx.client_metadata.redirect_uris is None:
            raise OAuthFlowError("No redirect URIs provided for authorization code grant")
        if not ctx.client_info:
            raise OAuthFlowError("Missing client info")
        data = {
            "grant_type": "authorization_code",
            "code": auth_code,
            "redirect_uri": str(ctx.client_metadata.redirect_uris[0]),
            "client_id": ctx.client_info.client_id or "",
            "code_verifier": code_verifier,
        }
        if ctx.should_include_resource_param(ctx.protocol_version):
            data["resource"] = ctx.get_resource_url()
        data, headers = ctx.prepare_token_auth(data, {"Content-Type": _FORM})
        return httpx2.Request("POST", self._get_token_endpoint(), data=data, headers=headers)

    async def _handle_token_response(self, response: httpx2.Response) -> None:
        if response.status_code not in (200, 201):
            body = (await response.aread()).decode("utf-8", errors="replace")
            raise OAuthTokenError(f"Token exchange failed ({response.status_code}){utils.redirect_note(response)}: {body}")
        token = await utils.handle_token_response_scopes(response)
        # RFC 6749 §5.1: no scope means the requested one; recorded so a stored token says what it
        # grants (the SEP-2350 step-up union reads it after a restart)
        if token.scope is None:
            token.scope = self.context.client_metadata.scope
        await self._store_tokens(token)

    async def _store_tokens(self, token: OAuthToken) -> None:
        ctx = self.context
        ctx.current_tokens = token
        ctx.update_token_expiry(token)
        await ctx.storage.set_tokens(token)

    # -- refresh --------------------------------------------------------------------------------

    async def _refresh_token(self) -> httpx2.Request:
        """The refresh-token request."""
        ctx = self.context
        if not ctx.current_tokens or not ctx.current_tokens.refresh_token:
            raise OAuthTokenError("No refresh token available")
        if not ctx.client_info or not ctx.client_info.client_id:
            raise OAuthTokenError("No client info available")
        data = {
            "grant_type": "refresh_token",
            "refresh_token": ctx.current_tokens.refresh_token,
            "client_id": ctx.client_info.client_id,
        }
        if ctx.should_include_resource_param(ctx.protocol_version):
            data["resource"] = ctx.get_resource_url()
        data, headers = ctx.prepare_token_auth(data, {"Content-Type": _FORM})
        return httpx2.Request("POST", self._get_token_endpoint(), data=data, headers=headers)

    async def _handle_refresh_response(self, response: httpx2.Response) -> bool:
        """Keep the refreshed token; False (tokens dropped) when the refresh failed."""
        ctx = self.context
        if response.status_code != 200:
            logger.warning("Token refresh failed: %d%s", response.status_code, utils.redirect_note(response))
            ctx.clear_tokens()
            return False
        try:
            token = OAuthToken.model_validate_json(await response.aread())
        except ValidationError:
            logger.exception("Invalid refresh response")
            ctx.clear_tokens()
            return False
        # RFC 6749 §6: an unchanged scope and an unrotated refresh token may be left out
        prior = ctx.current_tokens
        if token.scope is None and prior is not None:
            token.scope = prior.scope
        if token.refresh_token is None and prior is not None:
            token.refresh_token = prior.refresh_token
        await self._store_tokens(token)
        return True


def _as_result(result: Any) -> AuthorizationCodeResult:
    """The callback handler's answer; a v1-style `(code, state)` tuple is accepted too."""
    if isinstance(result, tuple):
        code, state, *rest = cast(tuple[Any, ...], result)
        return AuthorizationCodeResult(code=code, state=state, iss=rest[0] if rest else None)
    if not isinstance(result, AuthorizationCodeResult):
        raise OAuthFlowError(f"callback_handler must return an AuthorizationCodeResult, got {type(result).__name__}")
    return result


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
