"""The `/register` endpoint: dynamic client registration (RFC 7591 §3).

The request is an `OAuthClientMetadata` JSON document. The server mints the client id (and, unless
the client asks for `none`, a secret), applies the configured default and valid scopes, and
refuses what it cannot honour: no `authorization_code` grant or `code` response type (MCP requires
the code flow), `private_key_jwt` (this server holds no client keys) and the `jwt-bearer` grant
(identity-assertion clients are provisioned out of band).
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass
from typing import Any
from uuid import uuid4

from pydantic import BaseModel, ValidationError
from starlette.requests import Request
from starlette.responses import Response

from mcp.server.auth.errors import stringify_pydantic_error
from mcp.server.auth.json_response import PydanticJSONResponse
from mcp.server.auth.provider import (
    OAuthAuthorizationServerProvider,
    RegistrationError,
    RegistrationErrorCode,
)
from mcp.server.auth.settings import ClientRegistrationOptions
from mcp.shared.auth import JWT_BEARER_GRANT_TYPE, OAuthClientInformationFull, OAuthClientMetadata

RegistrationRequest = OAuthClientMetadata
"""The request body (a separate name for the HTTP side)."""


class RegistrationErrorResponse(BaseModel):
    """An RFC 7591 §3.2.2 error body."""

    error: RegistrationErrorCode
    error_description: str | None


def _refuse(description: str, error: RegistrationErrorCode = "invalid_client_metadata") -> Response:
    return PydanticJSONResponse(
        content=RegistrationErrorResponse(error=error, error_description=description), status_code=400
    )


@dataclass
class RegistrationHandler:
    """The `/register` endpoint: `Route("/register", endpoint=handler.handle, methods=["POST"])`."""

    provider: OAuthAuthorizationServerProvider[Any, Any, Any]
    options: ClientRegistrationOptions

    async def handle(self, request: Request) -> Response:
        try:
            metadata = OAuthClientMetadata.model_validate_json(await request.body())
        except ValidationError as exc:
            return _refuse(stringify_pydantic_error(exc))

        if metadata.token_endpoint_auth_method is None:
            metadata.token_endpoint_auth_method = "client_secret_post"
        if metadata.token_endpoint_auth_method == "private_key_jwt":
            return _refuse("token_endpoint_auth_method 'private_key_jwt' is not supported")
        client_secret = secrets.token_hex(32) if metadata.token_endpoint_auth_method != "none" else None

        if metadata.scope is None and self.options.default_scopes is not None:
            metadata.scope = " ".join(self.options.default_scopes)
        elif metadata.scope is not None and self.options.valid_scopes is not None:
            invalid = set(metadata.scope.split()) - set(self.options.valid_scopes)
            if invalid:
                return _refuse(f"Requested scopes are not valid: {', '.join(invalid)}")
        if "authorization_code" not in metadata.grant_types:
            return _refuse("grant_types must include 'authorization_code'")
        if JWT_BEARER_GRANT_TYPE in metadata.grant_types:
            return _refuse(f"grant_types must not include '{JWT_BEARER_GRANT_TYPE}'; "
                           "the identity-assertion grant requires a pre-registered client")
        if "code" not in metadata.response_types:
            return _refuse("response_types must include 'code' for authorization_code grant")

        issued_at = int(time.time())
        # §3.2.1: client_secret_expires_at accompanies every secret; 0 means it never expires
        secret_expires_at: int | None = None
        if client_secret is not None:
            expiry = self.options.client_secret_expiry_seconds
            secret_expires_at = issued_at + expiry if expiry is not None else 0
        # §3.2.1: the response echoes all registered metadata, so start from the whole request
        client_info = OAuthClientInformationFull.model_validate({
            **metadata.model_dump(),
            "client_id": str(uuid4()),
            "client_id_issued_at": issued_at,
            "client_secret": client_secret,
            "client_secret_expires_at": secret_expires_at,
        })
        try:
            await self.provider.register_client(client_info)
        except RegistrationError as exc:
            return PydanticJSONResponse(
                content=RegistrationErrorResponse(error=exc.error, error_description=exc.error_description),
                status_code=400,
            )
        return PydanticJSONResponse(content=client_info, status_code=201)


__all__ = ["RegistrationErrorResponse", "RegistrationHandler", "RegistrationRequest"]
