"""docs/client/identity-assertion.md: `IdentityAssertionOAuthProvider` is an `httpx2.Auth` (and an
`httpx.Auth`) but not an `OAuthClientProvider`; the issuer is configuration, the assertion is
asked for only after the issuer's metadata checked out, and the whole grant is one token request.
Over a real uvicorn, with both HTTP libraries."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import httpx
import httpx2
import pytest

from mcp import Client
from mcp.client.auth import OAuthClientProvider, OAuthFlowError
from mcp.client.auth.extensions.identity_assertion import IdentityAssertionOAuthProvider
from mcp.client.streamable_http import streamable_http_client

sys.path.insert(0, str(Path(__file__).parent))
from client_pages_kit import AuthWorld, MemoryTokenStorage, auth_world

pytestmark = pytest.mark.anyio


def _provider(base: str, issuer: str, asked: list[tuple[str, str]], **kwargs: object) -> IdentityAssertionOAuthProvider:
    async def fetch_id_jag(audience: str, resource: str) -> str:
        asked.append((audience, resource))
        return "header.claims.signature"  # stands in for the IdP's ID-JAG

    return IdentityAssertionOAuthProvider(
        server_url=f"{base}/mcp", storage=MemoryTokenStorage(), client_id=AuthWorld.CLIENT_ID,
        client_secret=AuthWorld.CLIENT_SECRET, issuer=issuer, assertion_provider=fetch_id_jag,
        scope="reports", **kwargs)  # type: ignore[arg-type]


def test_the_provider_is_an_auth_of_both_libraries_but_not_an_oauth_client_provider() -> None:
    provider = _provider("http://127.0.0.1:9", "http://127.0.0.1:9", [])
    assert isinstance(provider, httpx2.Auth) and isinstance(provider, httpx.Auth)
    assert not isinstance(provider, OAuthClientProvider)


def test_a_client_secret_is_required() -> None:
    async def never(audience: str, resource: str) -> str:
        raise AssertionError("not called")

    with pytest.raises(ValueError):
        IdentityAssertionOAuthProvider(server_url="http://127.0.0.1:9/mcp", storage=MemoryTokenStorage(),
                                       client_id="a", client_secret="", issuer="http://127.0.0.1:9",
                                       assertion_provider=never)


@pytest.mark.parametrize("library", [httpx2, httpx], ids=["httpx2", "httpx"])
async def test_the_whole_grant_is_one_token_request(library: object) -> None:
    asked: list[tuple[str, str]] = []
    with auth_world() as (world, base), anyio.fail_after(30):
        oauth = _provider(base, base, asked)
        async with library.AsyncClient(auth=oauth, follow_redirects=True) as http_client:  # type: ignore[attr-defined]
            transport = streamable_http_client(f"{base}/mcp", http_client=http_client)
            async with Client(transport) as client:
                assert [tool.name for tool in (await client.list_tools()).tools] == ["nightly"]
    (form,) = world.token_forms
    assert form["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer"
    assert form["assertion"] == "header.claims.signature"
    assert form["client_secret"] == AuthWorld.CLIENT_SECRET  # client_secret_post is the default
    assert len(asked) == 1 and asked[0][1] == f"{base}/mcp"
    # The resource server is never asked which authorization server to use.
    assert not any(path.startswith("/.well-known/oauth-protected-resource") for _m, path in world.requests)


async def test_an_issuer_that_does_not_match_the_metadata_stops_the_flow_before_any_assertion() -> None:
    asked: list[tuple[str, str]] = []
    with auth_world() as (world, base), anyio.fail_after(30):
        oauth = _provider(base, f"{base}/", asked)  # one character off: compared as exact strings
        async with httpx2.AsyncClient(auth=oauth) as http_client:
            with pytest.raises(OAuthFlowError, match="issuer"):
                async with Client(streamable_http_client(f"{base}/mcp", http_client=http_client)) as client:
                    await client.list_tools()
    assert asked == []
    assert world.token_forms == []
