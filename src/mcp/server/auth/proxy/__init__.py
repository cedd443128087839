"""An OAuth proxy: MCP clients sign users in through an identity provider that has no dynamic
client registration (GitHub, Google, Microsoft Entra ID, Auth0, WorkOS, Keycloak, any OIDC).

- `OAuthProxy` (`proxy`): the authorization server MCP clients see; `OIDCProxy` (`oidc`): one
  configured from a discovery document; the presets (`presets`): `github_proxy`, `google_proxy`,
  `entra_proxy`, `auth0_proxy`, `workos_proxy`, `keycloak_proxy`.
- `UpstreamProvider` (`upstream`): the identity provider and the proxy's client there.
- `ProxyStore`, `InMemoryProxyStore`, `RedisProxyStore` (`store`): where the proxy's state lives.

    proxy = github_proxy(client_id=..., client_secret=..., base_url="https://mcp.example.com",
                         secret=os.environ["MCP_PROXY_SECRET"], scopes=["notes"])
    mcp = MCPServer("Notes", auth_server_provider=proxy, auth=proxy.auth_settings())
"""

from __future__ import annotations

from mcp.server.auth.proxy.oidc import OIDCProxy
from mcp.server.auth.proxy.presets import (
    auth0_proxy,
    entra_proxy,
    github_proxy,
    google_proxy,
    keycloak_proxy,
    workos_proxy,
)
from mcp.server.auth.proxy.proxy import CALLBACK_PATH, OAuthProxy
from mcp.server.auth.proxy.store import InMemoryProxyStore, ProxyStore, RedisProxyStore
from mcp.server.auth.proxy.upstream import UpstreamError, UpstreamIdentity, UpstreamProvider

__all__ = [
    "CALLBACK_PATH",
    "InMemoryProxyStore",
    "OAuthProxy",
    "OIDCProxy",
    "ProxyStore",
    "RedisProxyStore",
    "UpstreamError",
    "UpstreamIdentity",
    "UpstreamProvider",
    "auth0_proxy",
    "entra_proxy",
    "github_proxy",
    "google_proxy",
    "keycloak_proxy",
    "workos_proxy",
]
