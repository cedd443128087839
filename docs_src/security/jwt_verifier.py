from mcp.server import MCPServer
from mcp.server.auth.settings import AuthSettings
from mcp.server.auth.verifiers import JWTVerifier

verifier = JWTVerifier(
    issuer="https://auth.example.com",
    jwks_uri="https://auth.example.com/.well-known/jwks.json",
)
mcp = MCPServer(
    "Notes",
    token_verifier=verifier,
    auth=AuthSettings(
        issuer_url="https://auth.example.com",
        resource_server_url="https://mcp.example.com/mcp",
        required_scopes=["notes:read"],
        validate_token_resource=True,  # refuse tokens issued for another resource
    ),
)
