"""OAuth for MCP clients: `OAuthClientProvider` (an `httpx.Auth`) and what it needs.

    async with httpx.AsyncClient(auth=OAuthClientProvider(...)) as http_client:
        async with Client(streamable_http_client(url, http_client=http_client)) as client:
            ...

Machine-to-machine providers live in `mcp.client.auth.extensions.client_credentials`, the
identity-assertion (SEP-990) provider in `mcp.client.auth.extensions.identity_assertion`.
"""

from mcp.client.auth.exceptions import OAuthFlowError, OAuthRegistrationError, OAuthTokenError
from mcp.client.auth.oauth2 import (
    AuthorizationCodeResult,
    OAuthClientProvider,
    OAuthContext,
    PKCEParameters,
    TokenStorage,
)

__all__ = [
    "AuthorizationCodeResult",
    "OAuthClientProvider",
    "OAuthContext",
    "OAuthFlowError",
    "OAuthRegistrationError",
    "OAuthTokenError",
    "PKCEParameters",
    "TokenStorage",
]
