from mcp.server import MCPServer
from mcp.server.auth.settings import AuthSettings
from mcp.server.auth.verifiers import StaticTokenVerifier

# For development and tests: a fixed table of tokens. In production use JWTVerifier or
# IntrospectionVerifier, which take the same place.
RESOURCE = "http://127.0.0.1:8000/mcp"  # this server's URL: tokens must be issued for it
verifier = StaticTokenVerifier({
    "reader-token": {"client_id": "reader", "scopes": ["notes:read"], "aud": RESOURCE},
    "writer-token": {"client_id": "writer", "scopes": ["notes:read", "notes:write"], "aud": RESOURCE},
})

mcp = MCPServer(
    "Notes",
    token_verifier=verifier,
    auth=AuthSettings(
        issuer_url="https://auth.example.com",
        resource_server_url=RESOURCE,
        required_scopes=["notes:read"],
        validate_token_resource=True,  # refuse tokens issued for another resource
    ),
)
NOTES = {"1": "Buy rope"}


@mcp.tool()
def read_note(note_id: str) -> str:
    return NOTES[note_id]


@mcp.tool(required_scopes=["notes:write"])
def delete_note(note_id: str) -> bool:
    return NOTES.pop(note_id, None) is not None


app = mcp.streamable_http_app()
