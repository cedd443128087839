"""Several token sources on one server: users signed in through the `OAuthProxy` and machine
clients with JWTs of their own identity provider (`JWTVerifier`), tried in order, the principal
each produced visible to tools; `TokenSources` for servers without a proxy."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from jwtkit import ISSUER, SigningKey
from proxykit import REDIRECT, Storage, UserAgent, proxied_server
from pydantic import AnyUrl

from mcp import Client
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.server.auth.provider import AccessToken, InvalidTokenError
from mcp.server.auth.verifiers import JWTVerifier, StaticTokenVerifier, TokenSources
from mcp.shared.auth import OAuthClientMetadata

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def whoami(base: str, http: httpx.AsyncClient) -> Any:
    async with Client(streamable_http_client(f"{base}/mcp", http_client=http)) as client:
        return (await client.call_tool("whoami", {})).structured_content


async def test_users_through_the_proxy_and_machines_with_their_own_jwts_share_one_server() -> None:
    machine_key = SigningKey("ES256")
    machines = JWTVerifier(issuer=ISSUER, public_key=machine_key.public_pem())
    with proxied_server("github", token_sources=[machines]) as (_, _, base):
        agent = UserAgent()
        provider = OAuthClientProvider(
            server_url=f"{base}/mcp",
            client_metadata=OAuthClientMetadata(client_name="CLI", redirect_uris=[AnyUrl(REDIRECT)]),
            storage=Storage(),
            redirect_handler=agent.redirect,
            callback_handler=agent.callback,
        )
        async with httpx.AsyncClient(auth=provider, timeout=10) as http:
            user = await whoami(base, http)
        machine_token = machine_key.sign(
            aud=f"{base}/mcp", sub="batch-job", client_id="nightly", scope="notes"
        )
        async with httpx.AsyncClient(
            headers={"Authorization": f"Bearer {machine_token}"}, timeout=10
        ) as http:
            machine = await whoami(base, http)
        foreign = machine_key.sign(aud="https://elsewhere.example/mcp", scope="notes")
        async with httpx.AsyncClient(timeout=10) as http:
            refused = await http.post(f"{base}/mcp", headers={"Authorization": f"Bearer {foreign}"}, json={})
    assert user["source"] == "oauth_proxy" and user["subject"] == "583231" and user["login"] == "octocat"
    assert machine == {
        "subject": "batch-job",
        "client_id": "nightly",
        "scopes": ["notes"],
        "source": "JWTVerifier",
        "login": None,
        "email": None,
    }
    assert refused.status_code == 401 and "invalid_token" in refused.headers["www-authenticate"]


async def test_token_sources_try_each_verifier_in_order_and_keep_the_first_refusal() -> None:
    first = StaticTokenVerifier({"alpha": AccessToken(token="alpha", client_id="a", scopes=["x"])})

    class Refusing:
        async def verify_token(self, token: str) -> AccessToken | None:
            raise InvalidTokenError("token expired")

    second = StaticTokenVerifier({"beta": AccessToken(token="beta", client_id="b", scopes=[])})
    sources = TokenSources([first, Refusing(), second], names=["users", "broken", "machines"])
    alpha, beta = await sources.verify_token("alpha"), await sources.verify_token("beta")
    assert alpha is not None and (alpha.client_id, (alpha.claims or {})["token_source"]) == ("a", "users")
    assert beta is not None and (beta.client_id, (beta.claims or {})["token_source"]) == ("b", "machines")
    with pytest.raises(InvalidTokenError, match="token expired"):
        await sources.verify_token("gamma")
    with pytest.raises(ValueError, match="at least one"):
        TokenSources([])
