"""Our OAuth client through the whole flow against an `OAuthProxy` in front of a local fake
identity provider (GitHub-like, and OpenID Connect with discovery), everything over real HTTP on
uvicorn: discovery, DCR, consent, the provider's sign-in, the proxy's code and tokens, a tool call
that sees the user."""

from __future__ import annotations

import logging

import httpx
import pytest
from fake_idp import CLIENT_SECRET
from proxykit import REDIRECT, Storage, UserAgent, proxied_server
from pydantic import AnyUrl

from mcp import Client
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import OAuthClientMetadata

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.parametrize("kind", ["github", "oidc"])
async def test_our_client_signs_in_through_the_proxy_and_the_tool_sees_the_provider_user(
    kind: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="mcp.server.auth")
    with proxied_server(kind) as (idp, _, base):
        storage, agent = Storage(), UserAgent()
        provider = OAuthClientProvider(
            server_url=f"{base}/mcp",
            client_metadata=OAuthClientMetadata(client_name="Notes CLI", redirect_uris=[AnyUrl(REDIRECT)]),
            storage=storage,
            redirect_handler=agent.redirect,
            callback_handler=agent.callback,
        )
        async with (
            httpx.AsyncClient(auth=provider, timeout=10) as http,
            Client(streamable_http_client(f"{base}/mcp", http_client=http)) as client,
        ):
            first = await client.call_tool("whoami", {})
            second = await client.call_tool("whoami", {})
    assert storage.client_info is not None and storage.tokens is not None
    expected_subject = "583231" if kind == "github" else "user-42"
    assert (
        first.structured_content
        == second.structured_content
        == {
            "subject": expected_subject,
            "client_id": storage.client_info.client_id,
            "scopes": ["notes"],
            "source": "oauth_proxy",
            "login": "octocat" if kind == "github" else None,
            "email": "mona@example.com",
        }
    )
    # the consent page named the client, where it goes back to and what it asks for
    page = agent.pages[0].text
    assert "Notes CLI" in page and REDIRECT in page and "<code>notes</code>" in page
    # the client holds the proxy's tokens, bound to the MCP resource, never the provider's
    assert storage.tokens.access_token not in idp.access_tokens and storage.tokens.refresh_token
    assert storage.tokens.refresh_token not in idp.refresh_tokens
    assert idp.requests.count("authorize") == 1
    # nothing secret reached the logs
    logged = caplog.text
    for secret in (
        CLIENT_SECRET,
        storage.tokens.access_token,
        storage.tokens.refresh_token,
        *idp.access_tokens,
    ):
        assert secret not in logged
