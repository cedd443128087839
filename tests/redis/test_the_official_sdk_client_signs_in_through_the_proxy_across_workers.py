"""The official SDK's OAuth client (`mcp==2.3.0` in its own venv: `OAuthClientProvider`, a
headless browser for the consent page and the provider's sign-in) through the whole flow against
three server processes behind one `OAuthProxy` preset, sharing a real Redis, each HTTP request of
the client and of its browser on a new connection to a round-robin balancer: discovery,
registration, authorize, consent, the provider's callback, token, then tools/list and three
tools/call, the last after a refresh of the proxy's token (declared expired). The provider is a local fake of each one the presets serve (GitHub's `/user`
shape; Google, Entra, Auth0, WorkOS and Keycloak OpenID Connect shapes: see fake_idp.PROFILES)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from cluster import Replicas, RoundRobinProxy
from redis_server import RedisServer

sys.path.insert(0, str(Path(__file__).parents[1] / "server" / "auth"))

from fake_idp import FakeIdP
from proxykit import REDIRECT
from tests.ecosystem.venvs import clean_env, library_venv

pytestmark = pytest.mark.anyio

CLIENT = Path(__file__).parents[1] / "ecosystem" / "scripts" / "official_oauth_client.py"
GUARD = 180.0
"""Seconds the official client may take (its venv is built before): a bound, never a measure."""


def official_python() -> str:
    """The official SDK's interpreter: `MCP_OFFICIAL_SDK_PYTHON`, else the cached `official-sdk`
    venv of tests/ecosystem/venvs.py (built on first use, never the project's venv)."""
    return os.environ.get("MCP_OFFICIAL_SDK_PYTHON") or str(library_venv("official-sdk"))





async def test_the_official_client_signs_in_through_each_preset_while_its_requests_hop_three_workers(
    redis_server: RedisServer, idp: FakeIdP, prefix: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    python = official_python()
    cluster = Replicas(3, redis_server.url, prefix, tmp_path, script="oauth_proxy_replica.py")
    async with RoundRobinProxy(cluster.ports) as balancer:
        public = f"http://127.0.0.1:{balancer.port}"
        monkeypatch.setenv("PROXY_TEST_PUBLIC_URL", public)
        monkeypatch.setenv("PROXY_TEST_IDP_URL", idp.base)
        monkeypatch.setenv("PROXY_TEST_PROVIDER", idp.kind)
        cluster.start_all()
        try:
            with anyio.fail_after(GUARD):
                done = await anyio.run_process([python, str(CLIENT), f"{public}/mcp", REDIRECT, "whoami"],
                                               check=False, env=clean_env())
        finally:
            cluster.stop_all()
    logs = "\n".join(cluster.log(i)[-2000:] for i in range(3))
    assert done.returncode == 0, f"{done.stderr.decode()[-4000:]}\n--- workers ---\n{logs}"
    out: dict[str, Any] = json.loads(done.stdout)
    assert "whoami" in out["tools"] and out["errors"] == [False, False, False]
    for result in out["results"]:
        assert result["subject"] == idp.subject, result
        assert result["email"] == "mona@example.com" and result["scopes"] == ["notes"]
    assert out["client_id"] and out["token_type"].lower() == "bearer" and out["has_refresh_token"]
    assert out["consent_pages"] == 1
    # the client holds the proxy's token, never the provider's; one sign-in, one code exchange
    assert out["access_token"] not in idp.access_tokens
    assert idp.requests.count("authorize") == 1 and idp.requests.count("token") == 1
    # the refresh gave a new token without a second sign-in
    assert out["refreshed"] and out["consent_pages"] == 1
    # the balancer sent the flow's connections to every worker, the calls to more than one
    assert set(balancer.picked) == set(cluster.ports), balancer.picked
    assert len({result["worker"] for result in out["results"]}) > 1, out["results"]
    # what the preset asked the provider for
    asked = idp.authorize_params[0]
    if idp.kind == "google":
        assert (asked["access_type"], asked["prompt"]) == ("offline", "consent")
    if idp.kind == "auth0":
        assert asked["audience"] == "https://notes.example/api"
    if idp.kind in ("entra", "auth0", "workos"):
        assert "offline_access" in asked["scope"].split()
    if idp.kind != "github":  # the preset found the provider through its discovery document
        assert "discovery" in idp.requests and "openid" in asked["scope"].split() and asked["nonce"]
    assert asked["code_challenge_method"] == "S256"
