"""Three server processes behind one `OAuthProxy` preset, sharing a real Redis
(`RedisProxyStore` for the proxy, `RedisState` for the MCP sessions): every HTTP request of our
client's sign-in (registration, authorize, consent page, consent post, the provider's callback,
token) and of the MCP session opens a new connection to a round-robin balancer, so the flow hops
workers and still completes; for each provider the presets serve (a local fake of each)."""

from __future__ import annotations

import sys
from pathlib import Path

import httpx
import pytest
from cluster import Replicas, RoundRobinProxy
from pydantic import AnyUrl
from redis_server import RedisServer

sys.path.insert(0, str(Path(__file__).parents[1] / "server" / "auth"))

from fake_idp import FakeIdP
from proxykit import REDIRECT, Storage, UserAgent

from mcp import Client
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import OAuthClientMetadata

pytestmark = pytest.mark.anyio

NO_KEEPALIVE = httpx.Limits(max_keepalive_connections=0)




async def test_a_sign_in_and_its_session_complete_while_every_request_hops_workers(
    redis_server: RedisServer, idp: FakeIdP, prefix: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cluster = Replicas(3, redis_server.url, prefix, tmp_path, script="oauth_proxy_replica.py")
    async with RoundRobinProxy(cluster.ports) as balancer:
        public = f"http://127.0.0.1:{balancer.port}"
        monkeypatch.setenv("PROXY_TEST_PUBLIC_URL", public)
        monkeypatch.setenv("PROXY_TEST_IDP_URL", idp.base)
        monkeypatch.setenv("PROXY_TEST_PROVIDER", idp.kind)
        cluster.start_all()
        try:
            agent = UserAgent(limits=NO_KEEPALIVE)
            storage = Storage()
            provider = OAuthClientProvider(
                server_url=f"{public}/mcp",
                client_metadata=OAuthClientMetadata(client_name="CLI", redirect_uris=[AnyUrl(REDIRECT)]),
                storage=storage,
                redirect_handler=agent.redirect,
                callback_handler=agent.callback,
            )
            async with (
                httpx.AsyncClient(auth=provider, timeout=20, limits=NO_KEEPALIVE) as http,
                Client(streamable_http_client(f"{public}/mcp", http_client=http)) as client,
            ):
                answers = [(await client.call_tool("whoami", {})).structured_content for _ in range(3)]
        finally:
            cluster.stop_all()
    assert answers is not None and {a["subject"] for a in answers if a} == {idp.subject}
    assert len({a["worker"] for a in answers if a}) > 1, answers
    assert len(set(balancer.picked)) == 3
    assert idp.requests.count("token") == 1
