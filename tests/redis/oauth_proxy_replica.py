"""One replica of a service behind an `OAuthProxy` whose state (and the MCP sessions') is in
Redis. Usage: oauth_proxy_replica.py PORT REDIS_URL PREFIX WORKER_NAME DIR, with the public URL
(the balancer's) in $PROXY_TEST_PUBLIC_URL and the fake GitHub in $PROXY_TEST_IDP_URL."""

from __future__ import annotations

import os
import sys
from typing import Any

from mcp.redis import RedisState
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.proxy import OAuthProxy, RedisProxyStore, UpstreamProvider
from mcp.server.mcpserver import MCPServer

port, redis_url, prefix, worker = sys.argv[1:5]
public, idp = os.environ["PROXY_TEST_PUBLIC_URL"], os.environ["PROXY_TEST_IDP_URL"]

upstream = UpstreamProvider(
    name="GitHub",
    client_id="proxy-client-id",
    client_secret="proxy-client-secret-do-not-leak",
    authorization_endpoint=f"{idp}/login/oauth/authorize",
    token_endpoint=f"{idp}/login/oauth/access_token",
    userinfo_endpoint=f"{idp}/user",
    identity="github",
    subject_claim="id",
)
proxy = OAuthProxy(
    upstream=upstream,
    base_url=public,
    secret="replicas-share-this-secret-0123456789",
    scopes=["notes"],
    store=RedisProxyStore(redis_url, prefix=prefix),
)
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
    return {"worker": worker, "subject": token.subject}


mcp.run(transport="streamable-http", host="127.0.0.1", port=int(port))
