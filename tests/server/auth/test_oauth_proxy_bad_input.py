"""The OAuth proxy refusing bad input over real HTTP, each with a clear OAuth error and nothing
else changed: redirect URIs that were not registered, wrong resources, PKCE verifiers that do not
match, replayed codes, states and refresh tokens, forged consent, a provider that refuses or does
not answer. Also: the consent page's anti-framing headers, refresh rotation, revocation, the
metadata and CIMD clients."""

from __future__ import annotations

import logging
import secrets
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from fake_idp import CLIENT_SECRET
from proxykit import REDIRECT, SECRET, Flow, UserAgent, hidden_fields, proxied_server

from mcp.server.auth.proxy import InMemoryProxyStore, OAuthProxy, UpstreamProvider

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
async def github() -> AsyncIterator[tuple[Any, OAuthProxy, Flow]]:
    with proxied_server("github", timeout=1.0) as (idp, proxy, base):
        async with httpx.AsyncClient(timeout=10) as http:
            flow = Flow(http, base, client_name="<b>Evil</b> & Co")
            await flow.register()
            yield idp, proxy, flow


async def call_mcp(flow: Flow, token: str) -> int:
    response = await flow.http.post(
        f"{flow.base}/mcp",
        headers={"Authorization": f"Bearer {token}", "Accept": "application/json, text/event-stream"},
        json={
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        },
    )
    return response.status_code


async def test_a_redirect_uri_that_was_not_registered_is_refused_without_redirecting(github: Any) -> None:
    _, _, flow = github
    response = await flow.http.get(flow.authorize_url(redirect_uri="https://attacker.example/cb"))
    assert response.status_code == 400
    assert (
        response.json()["error"] == "invalid_request"
        and "not registered" in response.json()["error_description"]
    )


async def test_a_foreign_resource_is_refused_as_invalid_target(github: Any) -> None:
    _, _, flow = github
    response = await flow.http.get(flow.authorize_url(resource="https://other.example/mcp"))
    assert response.status_code == 302
    location = response.headers["location"]
    assert (
        location.startswith(REDIRECT)
        and "error=invalid_target" in location
        and "state=client-state" in location
    )


async def test_a_wrong_pkce_verifier_is_refused_and_the_code_still_works_with_the_right_one(
    github: Any,
) -> None:
    _, _, flow = github
    code = await flow.code()
    wrong = await flow.exchange(code, verifier=secrets.token_urlsafe(48))
    assert (wrong.status_code, wrong.json()["error"]) == (400, "invalid_grant")
    right = await flow.exchange(code)
    assert right.status_code == 200 and right.json()["token_type"] == "Bearer"


async def test_a_replayed_code_is_refused_and_revokes_the_tokens_it_gave(github: Any) -> None:
    _, _, flow = github
    code = await flow.code()
    tokens = (await flow.exchange(code)).json()
    assert await call_mcp(flow, tokens["access_token"]) == 200
    replay = await flow.exchange(code)
    assert (replay.status_code, replay.json()["error"]) == (400, "invalid_grant")
    assert await call_mcp(flow, tokens["access_token"]) == 401
    refreshed = await flow.token(grant_type="refresh_token", refresh_token=tokens["refresh_token"])
    assert refreshed.json()["error"] == "invalid_grant"


async def test_refresh_tokens_rotate_and_a_used_one_is_refused(github: Any) -> None:
    _, _, flow = github
    tokens = (await flow.exchange(await flow.code())).json()
    fresh = await flow.token(grant_type="refresh_token", refresh_token=tokens["refresh_token"])
    assert fresh.status_code == 200, fresh.text
    assert fresh.json()["refresh_token"] != tokens["refresh_token"]
    assert await call_mcp(flow, fresh.json()["access_token"]) == 200
    again = await flow.token(grant_type="refresh_token", refresh_token=tokens["refresh_token"])
    assert (again.status_code, again.json()["error"]) == (400, "invalid_grant")


async def test_a_revoked_token_no_longer_passes(github: Any) -> None:
    _, _, flow = github
    tokens = (await flow.exchange(await flow.code())).json()
    response = await flow.http.post(
        f"{flow.base}/revoke",
        data={"client_id": flow.client["client_id"], "client_secret": "", "token": tokens["access_token"]},
    )
    assert response.status_code == 200
    assert await call_mcp(flow, tokens["access_token"]) == 401


async def test_a_replayed_provider_callback_state_gets_an_error_page(github: Any) -> None:
    _, _, flow = github
    async with httpx.AsyncClient(follow_redirects=False) as browser:
        page = await browser.get(flow.authorize_url(), follow_redirects=True)
        approved = await browser.post(
            f"{flow.base}/consent", data={**hidden_fields(page.text), "action": "approve"}
        )
        to_idp = approved.headers["location"]
        callback = (await browser.get(to_idp)).headers["location"]
        first = await browser.get(callback)
        assert first.status_code == 302 and "code=" in first.headers["location"]
        second = await browser.get(callback)
    assert second.status_code == 400 and "already completed or expired" in second.text


async def test_the_consent_page_cannot_be_framed_and_escapes_the_client_name(github: Any) -> None:
    _, _, flow = github
    async with httpx.AsyncClient() as browser:
        page = await browser.get(flow.authorize_url(), follow_redirects=True)
    assert page.status_code == 200
    assert page.headers["x-frame-options"] == "DENY"
    assert "frame-ancestors 'none'" in page.headers["content-security-policy"]
    assert page.headers["cache-control"] == "no-store"
    assert "&lt;b&gt;Evil&lt;/b&gt; &amp; Co" in page.text and "<b>Evil</b>" not in page.text
    assert "HttpOnly" in page.headers["set-cookie"] and "SameSite=strict" in page.headers["set-cookie"]


@pytest.mark.parametrize("forgery", ["no cookie", "wrong token"])
async def test_a_forged_consent_is_refused_and_the_real_one_still_works(github: Any, forgery: str) -> None:
    _, _, flow = github
    async with httpx.AsyncClient() as browser:
        page = await browser.get(flow.authorize_url(), follow_redirects=True)
        fields = hidden_fields(page.text)
    async with httpx.AsyncClient() as attacker:
        if forgery == "wrong token":
            attacker.cookies.set("mcp_consent_csrf", "guess", path="/consent")
            fields = {**fields, "csrf": "guess"}
        refused = await attacker.post(f"{flow.base}/consent", data={**fields, "action": "approve"})
    assert refused.status_code == 403 and "not submitted from this page" in refused.text
    async with httpx.AsyncClient(follow_redirects=False) as browser:
        page = await browser.get(flow.authorize_url(), follow_redirects=True)
        approved = await browser.post(
            f"{flow.base}/consent", data={**hidden_fields(page.text), "action": "approve"}
        )
    assert approved.status_code == 302


async def test_denying_consent_tells_the_client_access_denied_with_its_state(github: Any) -> None:
    idp, _, flow = github
    result = await UserAgent(action="deny").visit(flow.authorize_url())
    assert result["error"] == "access_denied" and result["state"] == "client-state"
    assert "authorize" not in idp.requests


@pytest.mark.parametrize(
    ("mode", "error", "words"),
    [
        ("deny", "access_denied", "access_denied"),
        ("token_error", "server_error", "bad_verification_code"),
        ("slow", "server_error", "did not answer in time"),
    ],
)
async def test_a_provider_failure_is_a_clear_oauth_error_logged_without_secrets(
    github: Any, mode: str, error: str, words: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="mcp.server.auth")
    idp, _, flow = github
    idp.mode = mode
    result = await UserAgent().visit(flow.authorize_url())
    assert result["error"] == error and words in result["error_description"]
    assert result["state"] == "client-state"
    assert words in caplog.text and CLIENT_SECRET not in caplog.text


async def test_the_metadata_announces_pkce_s256_and_client_metadata_documents(github: Any) -> None:
    _, _, flow = github
    metadata = (await flow.http.get(f"{flow.base}/.well-known/oauth-authorization-server")).json()
    assert metadata["code_challenge_methods_supported"] == ["S256"]
    assert metadata["client_id_metadata_document_supported"] is True
    assert metadata["registration_endpoint"] == f"{flow.base}/register"
    prm = (await flow.http.get(f"{flow.base}/.well-known/oauth-protected-resource/mcp")).json()
    assert prm["resource"] == f"{flow.base}/mcp" and prm["authorization_servers"] == [flow.base]


async def test_a_client_metadata_document_client_is_accepted_only_when_the_document_is_valid() -> None:
    documents = {
        "https://app.example/client.json": {
            "client_id": "https://app.example/client.json",
            "client_name": "App",
            "redirect_uris": [REDIRECT],
            "token_endpoint_auth_method": "none",
        },
        "https://evil.example/client.json": {
            "client_id": "https://app.example/client.json",
            "redirect_uris": [REDIRECT],
        },
        "https://secret.example/client.json": {
            "client_id": "https://secret.example/client.json",
            "redirect_uris": [REDIRECT],
            "token_endpoint_auth_method": "client_secret_basic",
        },
    }
    fetched: list[str] = []

    async def fetch(url: str) -> Any:
        fetched.append(url)
        return documents[url]

    upstream = UpstreamProvider(
        client_id="c",
        client_secret="s",
        authorization_endpoint="https://idp.example/a",
        token_endpoint="https://idp.example/t",
        identity="github",
    )
    proxy = OAuthProxy(
        upstream=upstream,
        base_url="https://mcp.example",
        secret=SECRET,
        scopes=["notes"],
        store=InMemoryProxyStore(),
        metadata_document_fetcher=fetch,
    )
    client = await proxy.get_client("https://app.example/client.json")
    assert client is not None and client.client_name == "App" and client.scope == "notes"
    assert client.token_endpoint_auth_method == "none"
    assert await proxy.get_client("https://app.example/client.json") is not None
    assert fetched == ["https://app.example/client.json"]  # cached
    assert await proxy.get_client("https://evil.example/client.json") is None
    assert await proxy.get_client("https://secret.example/client.json") is None


async def test_a_short_secret_is_refused() -> None:
    upstream = UpstreamProvider(client_id="c", client_secret="s", identity="github")
    with pytest.raises(ValueError, match="at least 32 bytes"):
        OAuthProxy(upstream=upstream, base_url="https://mcp.example", secret="short")
