"""docs/client/oauth-clients.md: the OAuth providers are `httpx2.Auth`s (and `httpx.Auth`s, for
users of httpx) that go on the HTTP client handed to `streamable_http_client`; the client
credentials grant over a real uvicorn with both libraries; the constructor and flow errors."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import httpx
import httpx2
import pytest
from pydantic import AnyUrl

from mcp import Client
from mcp.client.auth import OAuthClientProvider, OAuthFlowError, OAuthRegistrationError, OAuthTokenError
from mcp.client.auth.extensions.client_credentials import (
    ClientCredentialsOAuthProvider,
    PrivateKeyJWTOAuthProvider,
    SignedJWTParameters,
    static_assertion_provider,
)
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import OAuthClientMetadata

sys.path.insert(0, str(Path(__file__).parent))
from client_pages_kit import AuthWorld, MemoryTokenStorage, auth_world

pytestmark = pytest.mark.anyio


async def _redirect(url: str) -> None:
    raise AssertionError("no browser in these tests")


async def _callback() -> object:
    raise AssertionError("no browser in these tests")


def test_every_provider_is_an_auth_of_both_libraries() -> None:
    browser = OAuthClientProvider(
        server_url="http://127.0.0.1:9/mcp",
        client_metadata=OAuthClientMetadata(client_name="Reports", redirect_uris=[AnyUrl("http://127.0.0.1:3030/cb")]),
        storage=MemoryTokenStorage(), redirect_handler=_redirect, callback_handler=_callback)  # type: ignore[arg-type]
    machine = ClientCredentialsOAuthProvider(server_url="http://127.0.0.1:9/mcp", storage=MemoryTokenStorage(),
                                             client_id="a", client_secret="b", scope="reports",
                                             issuer="http://127.0.0.1:9")
    for provider in (browser, machine):
        assert isinstance(provider, httpx2.Auth)
        assert isinstance(provider, httpx.Auth)
        httpx2.AsyncClient(auth=provider)  # each library accepts it as its own auth
        httpx.AsyncClient(auth=provider)
    assert isinstance(machine, OAuthClientProvider)


def test_the_private_key_jwt_provider_and_its_helpers_are_in_the_client_credentials_module() -> None:
    assert issubclass(PrivateKeyJWTOAuthProvider, httpx2.Auth)
    assert callable(static_assertion_provider) and SignedJWTParameters.__name__ == "SignedJWTParameters"


def test_a_client_metadata_url_must_be_https_with_a_path_before_any_network() -> None:
    for bad in ("http://example.com/client.json", "https://example.com/"):
        with pytest.raises(ValueError, match="client_metadata_url"):
            OAuthClientProvider(
                server_url="http://127.0.0.1:9/mcp",
                client_metadata=OAuthClientMetadata(redirect_uris=[AnyUrl("http://127.0.0.1:3030/cb")]),
                storage=MemoryTokenStorage(), client_metadata_url=bad)


def test_the_flow_errors_share_one_base() -> None:
    assert issubclass(OAuthRegistrationError, OAuthFlowError)
    assert issubclass(OAuthTokenError, OAuthFlowError)


@pytest.mark.parametrize("library", [httpx2, httpx], ids=["httpx2", "httpx"])
@pytest.mark.parametrize("method", ["client_secret_basic", "client_secret_post"])
async def test_client_credentials_get_a_token_with_no_human_and_replay_the_call(library: object, method: str) -> None:
    with auth_world() as (world, base), anyio.fail_after(30):
        storage = MemoryTokenStorage()
        oauth = ClientCredentialsOAuthProvider(server_url=f"{base}/mcp", storage=storage,
                                               client_id=AuthWorld.CLIENT_ID, client_secret=AuthWorld.CLIENT_SECRET,
                                               scope="reports", token_endpoint_auth_method=method,  # type: ignore[arg-type]
                                               issuer=base)
        async with library.AsyncClient(auth=oauth, follow_redirects=True) as http_client:  # type: ignore[attr-defined]
            transport = streamable_http_client(f"{base}/mcp", http_client=http_client)
            async with Client(transport) as client:
                tools = await client.list_tools()
                assert [tool.name for tool in tools.tools] == ["nightly"]
                assert (await client.call_tool("nightly", {})).structured_content == {"result": "42 orders"}
    (form,) = world.token_forms  # one token request, then the stored token is reused
    assert form["grant_type"] == "client_credentials"
    assert form["scope"] == "reports"
    assert ("client_secret" in form) is (method == "client_secret_post")
    assert storage.tokens is not None and storage.tokens.access_token in world.tokens
    assert ("POST", "/token") in world.requests


@pytest.mark.parametrize("library", [httpx2, httpx], ids=["httpx2", "httpx"])
async def test_a_refused_token_request_is_an_oauth_token_error(library: object) -> None:
    with auth_world() as (_world, base), anyio.fail_after(30):
        oauth = ClientCredentialsOAuthProvider(server_url=f"{base}/mcp", storage=MemoryTokenStorage(),
                                               client_id=AuthWorld.CLIENT_ID, client_secret="wrong", scope="reports",
                                               issuer=base)
        async with library.AsyncClient(auth=oauth) as http_client:  # type: ignore[attr-defined]
            with pytest.raises(OAuthTokenError, match=r"^Token exchange failed \(401\): "):
                async with Client(streamable_http_client(f"{base}/mcp", http_client=http_client)) as client:
                    await client.list_tools()
