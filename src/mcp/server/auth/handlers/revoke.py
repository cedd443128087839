"""The `/revoke` endpoint (RFC 7009): an authenticated client revokes one of its own access or
refresh tokens. Unknown tokens and tokens of other clients are answered 200 as well (§2.2), so the
endpoint reveals nothing about them."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import partial
from typing import Any, Literal

from pydantic import BaseModel, ValidationError
from starlette.requests import Request
from starlette.responses import Response

from mcp.server.auth._form import read_form
from mcp.server.auth.errors import stringify_pydantic_error
from mcp.server.auth.json_response import PydanticJSONResponse
from mcp.server.auth.middleware.client_auth import AuthenticationError, ClientAuthenticator
from mcp.server.auth.provider import AccessToken, OAuthAuthorizationServerProvider, RefreshToken


class RevocationRequest(BaseModel):
    """RFC 7009 §2.1."""

    token: str
    token_type_hint: Literal["access_token", "refresh_token"] | None = None
    client_id: str
    client_secret: str | None


class RevocationErrorResponse(BaseModel):
    error: Literal["invalid_request", "unauthorized_client"]
    error_description: str | None = None


@dataclass
class RevocationHandler:
    """The `/revoke` endpoint: `Route("/revoke", endpoint=handler.handle, methods=["POST"])`."""

    provider: OAuthAuthorizationServerProvider[Any, Any, Any]
    client_authenticator: ClientAuthenticator

    async def handle(self, request: Request) -> Response:
        try:
            client = await self.client_authenticator.authenticate_request(request)
        except AuthenticationError as exc:
            return PydanticJSONResponse(
                status_code=401,
                content=RevocationErrorResponse(error="unauthorized_client", error_description=exc.message),
            )
        try:
            revocation = RevocationRequest.model_validate(dict(await read_form(request)))
        except ValidationError as exc:
            return PydanticJSONResponse(
                status_code=400,
                content=RevocationErrorResponse(error="invalid_request",
                                                error_description=stringify_pydantic_error(exc)),
            )
        loaders: list[Callable[[str], Awaitable[AccessToken | RefreshToken | None]]] = [
            self.provider.load_access_token,
            partial(self.provider.load_refresh_token, client),
        ]
        if revocation.token_type_hint == "refresh_token":
            loaders.reverse()
        token: AccessToken | RefreshToken | None = None
        for load in loaders:
            token = await load(revocation.token)
            if token is not None:
                break
        if token is not None and token.client_id == client.client_id:
            await self.provider.revoke_token(token)
        return Response(status_code=200, headers={"Cache-Control": "no-store", "Pragma": "no-cache"})


__all__ = ["RevocationErrorResponse", "RevocationHandler", "RevocationRequest"]
