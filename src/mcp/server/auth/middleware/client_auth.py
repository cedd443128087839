"""`ClientAuthenticator`: who is calling the token and revocation endpoints (RFC 6749 §2.3).

The client is looked up by the `client_id` form field, then held to the method it registered
with: `client_secret_basic` (credentials in an `Authorization: Basic` header, URL-encoded per
§2.3.1), `client_secret_post` (`client_secret` form field) or `none` (a public client). A client
with a stored secret must present it, unexpired.
"""

from __future__ import annotations

import base64
import binascii
import hmac
import time
from typing import Any
from urllib.parse import unquote

from starlette.requests import Request

from mcp.server.auth._form import form_string, read_form
from mcp.server.auth.provider import OAuthAuthorizationServerProvider
from mcp.shared.auth import OAuthClientInformationFull


class AuthenticationError(Exception):
    """The client could not be authenticated; `message` says why (sent as `error_description`)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class ClientAuthenticator:
    """Authenticates a token-endpoint request against the provider's client records."""

    def __init__(self, provider: OAuthAuthorizationServerProvider[Any, Any, Any]) -> None:
        self.provider = provider

    async def authenticate_request(self, request: Request) -> OAuthClientInformationFull:
        """The authenticated client, or `AuthenticationError`."""
        form = await read_form(request)
        client_id = form_string(form, "client_id")
        if not client_id:
            raise AuthenticationError("Missing client_id")
        client = await self.provider.get_client(client_id)
        if client is None:
            raise AuthenticationError("Invalid client_id")

        method = client.token_endpoint_auth_method
        presented_secret: str | None
        if method == "client_secret_basic":
            presented_secret = _basic_secret(request.headers.get("Authorization", ""), client_id)
        elif method == "client_secret_post":
            presented_secret = form_string(form, "client_secret")
        elif method == "none":
            presented_secret = None
        else:
            raise AuthenticationError(f"Unsupported auth method: {method}")

        if method != "none" and not client.client_secret:
            # Nothing was verified above: a secret-based client without a secret must not pass.
            raise AuthenticationError("Client is registered for secret-based authentication but has no stored secret")
        if client.client_secret:
            if not presented_secret:
                raise AuthenticationError("Client secret is required")
            # compare bytes: compare_digest refuses non-ASCII str, and the request is untrusted
            if not hmac.compare_digest(client.client_secret.encode(), presented_secret.encode()):
                raise AuthenticationError("Invalid client_secret")
            if client.client_secret_expires_at and client.client_secret_expires_at < int(time.time()):
                raise AuthenticationError("Client secret has expired")
        return client


def _basic_secret(header: str, client_id: str) -> str:
    """The secret of an `Authorization: Basic` header whose client id is `client_id`."""
    if not header.startswith("Basic "):
        raise AuthenticationError("Missing or invalid Basic authentication in Authorization header")
    try:
        decoded = base64.b64decode(header[len("Basic "):]).decode("utf-8")
    except (ValueError, UnicodeDecodeError, binascii.Error):
        raise AuthenticationError("Invalid Basic authentication header") from None
    basic_id, separator, secret = decoded.partition(":")
    if not separator:
        raise AuthenticationError("Invalid Basic authentication header")
    if unquote(basic_id) != client_id:
        raise AuthenticationError("Client ID mismatch in Basic auth")
    return unquote(secret)


__all__ = ["AuthenticationError", "ClientAuthenticator"]
