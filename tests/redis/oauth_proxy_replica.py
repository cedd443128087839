"""One replica of a service behind an `OAuthProxy` whose state (and the MCP sessions') is in
Redis. Usage: oauth_proxy_replica.py PORT REDIS_URL PREFIX WORKER_NAME DIR, with the public URL
(the balancer's) in $PROXY_TEST_PUBLIC_URL, the fake provider in $PROXY_TEST_IDP_URL and which
provider it stands in for in $PROXY_TEST_PROVIDER (default "github"; see `preset`)."""

from __future__ import annotations

import os
import sys
from typing import Any

from mcp.redis import RedisState
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.proxy import (
    OAuthProxy,
    RedisProxyStore,
    auth0_proxy,
    entra_proxy,
    github_proxy,
    google_proxy,
    keycloak_proxy,
    workos_proxy,
)
from mcp.server.mcpserver import MCPServer

port, redis_url, prefix, worker = sys.argv[1:5]
public, idp = os.environ["PROXY_TEST_PUBLIC_URL"], os.environ["PROXY_TEST_IDP_URL"]
ENTRA_TENANT = "9188040d-6c67-4c5b-b112-36a304b66dad"  # fake_idp.ENTRA_TENANT


def preset(provider: str) -> OAuthProxy:
    """The preset of `provider`, aimed at the fake: through its own parameters where it has them
    (GitHub's `api_base`/`web_base`, Entra's `authority`, Keycloak's `realm_url`); Google's,
    Auth0's and WorkOS's build an https URL of the provider's host, so the discovery URL alone
    is replaced (everything else is the preset's: scopes, parameters, subject claim)."""
    common: dict[str, Any] = {
        "client_id": "proxy-client-id",
        "client_secret": "proxy-client-secret-do-not-leak",
        "base_url": public,
        "secret": "replicas-share-this-secret-0123456789",
        "scopes": ["notes"],
        "store": RedisProxyStore(redis_url, prefix=prefix),
    }
    if provider == "github":
        return github_proxy(api_base=idp, web_base=idp, **common)
    if provider == "entra":
        return entra_proxy(tenant_id=ENTRA_TENANT, authority=idp, **common)
    if provider == "keycloak":
        return keycloak_proxy(realm_url=f"{idp}/realms/staff", **common)
    if provider == "google":
        proxy = google_proxy(**common)
    elif provider == "auth0":
        proxy = auth0_proxy(domain="notes.eu.auth0.com", audience="https://notes.example/api", **common)
    elif provider == "workos":
        proxy = workos_proxy(authkit_domain="notes.authkit.app", **common)
    else:
        raise SystemExit(f"unknown provider {provider!r}")
    proxy.upstream.provider.discovery_url = f"{idp}/.well-known/openid-configuration"
    return proxy


proxy = preset(os.environ.get("PROXY_TEST_PROVIDER", "github"))
mcp = MCPServer(
    "proxied",
    auth_server_provider=proxy,
    auth=proxy.auth_settings(),
    state=RedisState.from_url(redis_url, prefix=prefix),
)


@mcp.tool()
def whoami() -> dict[str, Any]:
    """The worker serving this request and the signed-in user."""
    token = get_access_token()
    assert token is not None
    claims = (token.claims or {}).get("upstream_claims", {})
    return {"worker": worker, "subject": token.subject, "email": claims.get("email"), "scopes": token.scopes}


mcp.run(transport="streamable-http", host="127.0.0.1", port=int(port))
