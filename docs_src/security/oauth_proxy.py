import os

from mcp.server import MCPServer
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.proxy import github_proxy
from mcp.server.auth.verifiers import JWTVerifier

proxy = github_proxy(
    client_id=os.environ["GITHUB_CLIENT_ID"],  # a GitHub OAuth App; its callback URL is
    client_secret=os.environ["GITHUB_CLIENT_SECRET"],  # BASE_URL + "/auth/callback"
    base_url=os.environ.get("BASE_URL", "http://localhost:8000"),
    secret=os.environ["MCP_PROXY_SECRET"],  # 32+ bytes, the same on every replica
    scopes=["notes"],
    # store=RedisProxyStore("redis://redis:6379/0"),  # for several replicas
    token_sources=[JWTVerifier(issuer="https://ci.example.com", jwks_uri="https://ci.example.com/jwks")],
)
mcp = MCPServer("Notes", auth_server_provider=proxy, auth=proxy.auth_settings())


@mcp.tool()
def whoami() -> str:
    """Who is calling: a GitHub user through the proxy, or a CI job with its own JWT."""
    token = get_access_token()
    assert token is not None
    claims = token.claims or {}
    login = claims.get("upstream_claims", {}).get("login", token.subject)
    return f"{login} ({claims.get('token_source')})"


app = mcp.streamable_http_app()
