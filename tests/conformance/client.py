"""The conformance client: what the MCP conformance harness runs in client mode.

    python tests/conformance/client.py <server-url>

The harness starts a mock server per scenario and runs this script with the mock's URL as the
last argument, the scenario name in `MCP_CONFORMANCE_SCENARIO`, the protocol revision under test
in `MCP_CONFORMANCE_PROTOCOL_VERSION` and, for some scenarios, a JSON object in
`MCP_CONFORMANCE_CONTEXT` (pre-registered credentials, keys, ...).

`SCENARIOS` maps a scenario name to an async handler `(url, context) -> None`; add entries with
`@scenario("name", ...)`. This file holds the `auth/*` scenarios; the others live in
`client_scenarios.py` next to it (handlers `(url) -> None`), which is consulted for any name not
found here. A handler that raises makes the script exit non-zero, which is what the harness
expects from scenarios where the client must refuse to proceed.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import parse_qs, urlsplit

import anyio
import httpx

from mcp import Client
from mcp.client.auth import AuthorizationCodeResult, OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthToken

logger = logging.getLogger("conformance-client")

Handler = Callable[[str, dict[str, Any]], Awaitable[None]]
SCENARIOS: dict[str, Handler] = {}

CLIENT_METADATA_URL = "https://conformance-test.local/client-metadata.json"
REDIRECT_URI = "http://localhost:3030/callback"


def scenario(*names: str) -> Callable[[Handler], Handler]:
    def register(handler: Handler) -> Handler:
        for name in names:
            SCENARIOS[name] = handler
        return handler

    return register


def client_mode() -> str:
    """The `Client` mode for the revision under test (auto when the harness does not say)."""
    version = os.environ.get("MCP_CONFORMANCE_PROTOCOL_VERSION", "")
    if version.startswith("2026"):
        return version
    if version.startswith(("2024", "2025")):
        return "legacy"
    return "auto"


# -- OAuth helpers --------------------------------------------------------------------------------


class InMemoryTokenStorage:
    def __init__(self, client_info: OAuthClientInformationFull | None = None) -> None:
        self.tokens: OAuthToken | None = None
        self.client_info = client_info

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client_info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client_info = client_info


class HeadlessBrowser:
    """Plays the user: opens the authorization URL without following the redirect and hands the
    redirect's query parameters back as the callback."""

    def __init__(self) -> None:
        self._result: AuthorizationCodeResult | None = None

    async def redirect(self, authorization_url: str) -> None:
        async with httpx.AsyncClient(follow_redirects=False, timeout=30) as http:
            response = await http.get(authorization_url)
        location = response.headers.get("location")
        if response.status_code not in (301, 302, 303, 307, 308) or not location:
            raise RuntimeError(f"authorization endpoint answered HTTP {response.status_code} without a redirect")
        params = parse_qs(urlsplit(location).query)
        if "code" not in params:
            raise RuntimeError(f"authorization failed: {params.get('error', ['?'])[0]}")
        self._result = AuthorizationCodeResult(
            code=params["code"][0],
            state=params["state"][0] if "state" in params else None,
            iss=params["iss"][0] if "iss" in params else None,
        )

    async def callback(self) -> AuthorizationCodeResult:
        result, self._result = self._result, None
        if result is None:
            raise RuntimeError("no authorization response was received")
        return result


def client_metadata(**overrides: Any) -> OAuthClientMetadata:
    fields: dict[str, Any] = {
        "client_name": "mcpkit conformance client",
        "redirect_uris": [REDIRECT_URI],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
    }
    fields.update(overrides)
    return OAuthClientMetadata.model_validate(fields)


async def exercise(url: str, auth: httpx.Auth) -> None:
    """Connect through `auth`, list the tools and call the first one."""
    timeout = httpx.Timeout(30, read=60)
    async with (
        httpx.AsyncClient(auth=auth, follow_redirects=True, timeout=timeout) as http,
        Client(streamable_http_client(url, http_client=http), mode=client_mode(), raise_exceptions=True) as client,
    ):
        tools = await client.list_tools()
        if tools.tools:
            result = await client.call_tool(tools.tools[0].name, {})
            if result.is_error:
                raise RuntimeError(f"tool call failed: {result.content}")


def authorization_code_provider(url: str, storage: InMemoryTokenStorage | None = None) -> OAuthClientProvider:
    browser = HeadlessBrowser()
    return OAuthClientProvider(
        server_url=url,
        client_metadata=client_metadata(),
        storage=storage or InMemoryTokenStorage(),
        redirect_handler=browser.redirect,
        callback_handler=browser.callback,
        client_metadata_url=CLIENT_METADATA_URL,
    )


# -- auth scenarios ---------------------------------------------------------------------------------


@scenario(
    "auth/metadata-default",
    "auth/metadata-var1",
    "auth/metadata-var2",
    "auth/metadata-var3",
    "auth/basic-cimd",
    "auth/2025-03-26-oauth-metadata-backcompat",
    "auth/2025-03-26-oauth-endpoint-fallback",
    "auth/scope-from-www-authenticate",
    "auth/scope-from-scopes-supported",
    "auth/scope-omitted-when-undefined",
    "auth/scope-step-up",
    "auth/scope-retry-limit",
    "auth/token-endpoint-auth-basic",
    "auth/token-endpoint-auth-post",
    "auth/token-endpoint-auth-none",
    "auth/resource-mismatch",
    "auth/offline-access-scope",
    "auth/offline-access-not-supported",
    "auth/authorization-server-migration",
    "auth/iss-supported",
    "auth/iss-not-advertised",
    "auth/iss-supported-missing",
    "auth/iss-wrong-issuer",
    "auth/iss-unexpected",
    "auth/iss-normalized",
    "auth/metadata-issuer-mismatch",
)
async def authorization_code_flow(url: str, context: dict[str, Any]) -> None:
    await exercise(url, authorization_code_provider(url))


@scenario("auth/pre-registration")
async def pre_registered_client(url: str, context: dict[str, Any]) -> None:
    client_info = OAuthClientInformationFull(
        client_id=context["client_id"],
        client_secret=context.get("client_secret"),
        redirect_uris=[REDIRECT_URI],  # type: ignore[list-item]
        token_endpoint_auth_method="client_secret_basic" if context.get("client_secret") else "none",
    )
    await exercise(url, authorization_code_provider(url, InMemoryTokenStorage(client_info)))


@scenario("auth/client-credentials-basic")
async def client_credentials_basic(url: str, context: dict[str, Any]) -> None:
    from mcp.client.auth.extensions.client_credentials import ClientCredentialsOAuthProvider

    provider = ClientCredentialsOAuthProvider(
        server_url=url,
        storage=InMemoryTokenStorage(),
        client_id=context["client_id"],
        client_secret=context["client_secret"],
        token_endpoint_auth_method="client_secret_basic",
    )
    await exercise(url, provider)


@scenario("auth/client-credentials-jwt")
async def client_credentials_jwt(url: str, context: dict[str, Any]) -> None:
    from mcp.client.auth.extensions.client_credentials import PrivateKeyJWTOAuthProvider, SignedJWTParameters

    jwt_parameters = SignedJWTParameters(
        issuer=context["client_id"],
        subject=context["client_id"],
        signing_key=context["private_key_pem"],
        signing_algorithm=context.get("signing_algorithm", "ES256"),
    )
    provider = PrivateKeyJWTOAuthProvider(
        server_url=url,
        storage=InMemoryTokenStorage(),
        client_id=context["client_id"],
        assertion_provider=jwt_parameters.create_assertion_provider(),
    )
    await exercise(url, provider)


@scenario("auth/enterprise-managed-authorization")
async def enterprise_managed_authorization(url: str, context: dict[str, Any]) -> None:
    from mcp.client.auth.extensions.identity_assertion import IdentityAssertionOAuthProvider

    async with httpx.AsyncClient(timeout=30) as http:
        issuer = await _discover_issuer(http, url)

        async def fetch_id_jag(audience: str, resource: str) -> str:
            """The RFC 8693 token exchange at the enterprise IdP (the application's job, not the SDK's)."""
            response = await http.post(context["idp_token_endpoint"], data={
                "grant_type": "urn:ietf:params:oauth:grant-type:token-exchange",
                "subject_token": context["idp_id_token"],
                "subject_token_type": "urn:ietf:params:oauth:token-type:id_token",
                "requested_token_type": "urn:ietf:params:oauth:token-type:id-jag",
                "audience": audience,
                "resource": resource,
                "client_id": context.get("idp_client_id", ""),
            })
            response.raise_for_status()
            return response.json()["access_token"]

        provider = IdentityAssertionOAuthProvider(
            server_url=url,
            storage=InMemoryTokenStorage(),
            client_id=context["client_id"],
            client_secret=context["client_secret"],
            issuer=issuer,
            assertion_provider=fetch_id_jag,
            token_endpoint_auth_method="client_secret_basic",
        )
        await exercise(url, provider)


@scenario("auth/dpop", "auth/dpop-nonce")
async def dpop_bound_tokens(url: str, context: dict[str, Any]) -> None:
    """The authorization code flow with DPoP proofs at the token endpoint and on every MCP request;
    the nonce variant has both servers demand a nonce first."""
    from mcp.client.auth.extensions.dpop import DPoPAuth

    await exercise(url, DPoPAuth(authorization_code_provider(url)))


@scenario("auth/wif-jwt-bearer")
async def workload_identity(url: str, context: dict[str, Any]) -> None:
    """The workload's JWT (minted by the harness for this authorization server) as a jwt-bearer grant."""
    from mcp.client.auth.extensions.client_credentials import static_assertion_provider
    from mcp.client.auth.extensions.workload_identity import WorkloadIdentityOAuthProvider

    provider = WorkloadIdentityOAuthProvider(
        server_url=url,
        storage=InMemoryTokenStorage(),
        client_id=context["client_id"],
        assertion_provider=static_assertion_provider(context["valid_jwt"]),
    )
    await exercise(url, provider)


async def _discover_issuer(http: httpx.AsyncClient, url: str) -> str:
    """Configuration lookup for the identity-assertion scenario: the issuer the MCP server names."""
    parts = urlsplit(url)
    origin = f"{parts.scheme}://{parts.netloc}"
    for candidate in (f"{origin}/.well-known/oauth-protected-resource{parts.path}",
                      f"{origin}/.well-known/oauth-protected-resource"):
        response = await http.get(candidate)
        if response.status_code == 200:
            server = response.json()["authorization_servers"][0]
            metadata = await http.get(f"{server.rstrip('/')}/.well-known/oauth-authorization-server")
            metadata.raise_for_status()
            return metadata.json()["issuer"]
    raise RuntimeError("no protected resource metadata")


# -- entry point ------------------------------------------------------------------------------------


async def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print("usage: client.py <server-url>", file=sys.stderr)
        return 2
    url = argv[-1]
    name = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    handler = SCENARIOS.get(name)
    if handler is not None:
        await handler(url, context)
        return 0
    core = _core_scenarios().get(name)
    if core is not None:
        await core(url)
        return 0
    print(f"unknown scenario {name!r}", file=sys.stderr)
    return 3


def _core_scenarios() -> dict[str, Callable[[str], Awaitable[None]]]:
    """The non-auth scenarios of `client_scenarios.py` (this script's directory is on `sys.path`)."""
    try:
        from client_scenarios import SCENARIOS as core  # type: ignore[import-not-found]
    except ImportError:
        return {}
    return core  # type: ignore[no-any-return]


if __name__ == "__main__":
    logging.basicConfig(level=os.environ.get("LOG_LEVEL", "WARNING"), stream=sys.stderr)
    sys.exit(anyio.run(main, sys.argv))
