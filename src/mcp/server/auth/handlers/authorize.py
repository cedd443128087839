"""The `/authorize` endpoint (RFC 6749 §4.1.1, authorization code with PKCE).

The request (query string for GET, form body for POST) is validated, the client and its redirect
URI are checked, then the provider decides where the user agent goes next. Errors go back to the
client's redirect URI as query parameters once that URI is known to be registered (§4.1.2.1);
before that they are answered directly with a JSON body, so an attacker cannot use the endpoint
as an open redirector.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import AnyUrl, BaseModel, Field, TypeAdapter, ValidationError
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from mcp.server.auth._form import read_form
from mcp.server.auth.errors import stringify_pydantic_error
from mcp.server.auth.json_response import PydanticJSONResponse
from mcp.server.auth.provider import (
    AuthorizationErrorCode,
    AuthorizationParams,
    AuthorizeError,
    OAuthAuthorizationServerProvider,
    construct_redirect_uri,
)
from mcp.shared.auth import InvalidRedirectUriError, InvalidScopeError, OAuthClientInformationFull

logger = logging.getLogger(__name__)
_URL = TypeAdapter(AnyUrl)
_NO_STORE = {"Cache-Control": "no-store"}


class AuthorizationRequest(BaseModel):
    """The parameters of an authorization request (RFC 6749 §4.1.1, RFC 7636 §4.3, RFC 8707)."""

    client_id: str = Field(..., description="The client ID")
    redirect_uri: AnyUrl | None = Field(None, description="URL to redirect to after authorization")
    response_type: Literal["code"] = Field(..., description="Must be 'code' for authorization code flow")
    code_challenge: str = Field(..., description="PKCE code challenge")
    code_challenge_method: Literal["S256"] = Field("S256", description="PKCE code challenge method, must be S256")
    state: str | None = Field(None, description="Optional state parameter")
    scope: str | None = Field(
        None, description="Optional scope; if specified, should be a space-separated list of scope strings"
    )
    resource: str | None = Field(
        None, description="RFC 8707 resource indicator - the MCP server this token will be used with"
    )


class AuthorizationErrorResponse(BaseModel):
    """An authorization error (RFC 6749 §4.1.2.1): redirected as query parameters, or the JSON
    body when there is no trusted redirect URI. `state` echoes the request's."""

    error: AuthorizationErrorCode
    error_description: str | None
    error_uri: AnyUrl | None = None
    state: str | None = None


def best_effort_extract_string(key: str, params: Mapping[str, Any] | None) -> str | None:
    """`params[key]` when it is a string; `None` otherwise (used before validation succeeded)."""
    if params is None:
        return None
    value = params.get(key)
    return value if isinstance(value, str) else None


@dataclass
class AuthorizationHandler:
    """The `/authorize` endpoint: `Route("/authorize", endpoint=handler.handle)`."""

    provider: OAuthAuthorizationServerProvider[Any, Any, Any]

    async def handle(self, request: Request) -> Response:
        params: Mapping[str, Any] | None = None
        # what is known so far, for the error response
        known = _Known()
        try:
            params = request.query_params if request.method == "GET" else await read_form(request)
            known.state = best_effort_extract_string("state", params)
            try:
                auth_request = AuthorizationRequest.model_validate(dict(params))
            except ValidationError as exc:
                error: AuthorizationErrorCode = "invalid_request"
                if any(e["loc"] == ("response_type",) and e["type"] == "literal_error" for e in exc.errors()):
                    error = "unsupported_response_type"
                return await self._error(known, params, error, stringify_pydantic_error(exc))
            known.state = auth_request.state

            client = await self.provider.get_client(auth_request.client_id)
            if client is None:
                # an unknown client has no trusted redirect URI: answer directly
                return await self._error(known, params, "invalid_request",
                                         f"Client ID '{auth_request.client_id}' not found", load_client=False)
            known.client = client
            try:
                known.redirect_uri = client.validate_redirect_uri(auth_request.redirect_uri)
            except InvalidRedirectUriError as exc:
                return await self._error(known, params, "invalid_request", exc.message)
            try:
                scopes = client.validate_scope(auth_request.scope)
            except InvalidScopeError as exc:
                return await self._error(known, params, "invalid_scope", exc.message)

            authorization = AuthorizationParams(
                state=known.state,
                scopes=scopes,
                code_challenge=auth_request.code_challenge,
                redirect_uri=known.redirect_uri,
                redirect_uri_provided_explicitly=auth_request.redirect_uri is not None,
                resource=auth_request.resource,
            )
            try:
                location = await self.provider.authorize(client, authorization)
            except AuthorizeError as exc:
                return await self._error(known, params, exc.error, exc.error_description)
            return RedirectResponse(url=location, status_code=302, headers=_NO_STORE)
        except Exception as exc:
            logger.exception("Unexpected error in authorization_handler", exc_info=exc)
            return await self._error(known, params, "server_error", "An unexpected error occurred")

    async def _error(self, known: _Known, params: Mapping[str, Any] | None, error: AuthorizationErrorCode,
                     description: str | None, *, load_client: bool = True) -> Response:
        """Redirect the error to the client when its redirect URI is trusted, else answer 400."""
        if known.client is None and load_client:
            client_id = best_effort_extract_string("client_id", params)
            known.client = await self.provider.get_client(client_id) if client_id else None
        if known.redirect_uri is None and known.client is not None:
            try:
                raw = None if params is not None and "redirect_uri" not in params else \
                    _URL.validate_python(best_effort_extract_string("redirect_uri", params))
                known.redirect_uri = known.client.validate_redirect_uri(raw)
            except (ValidationError, InvalidRedirectUriError):
                pass  # no trusted redirect URI: the error is answered directly
        if known.state is None:
            known.state = best_effort_extract_string("state", params)
        body = AuthorizationErrorResponse(error=error, error_description=description, state=known.state)
        if known.redirect_uri is not None and known.client is not None:
            location = construct_redirect_uri(str(known.redirect_uri), **body.model_dump(exclude_none=True))
            return RedirectResponse(url=location, status_code=302, headers=_NO_STORE)
        return PydanticJSONResponse(content=body, status_code=400, headers=_NO_STORE)


class _Known:
    """What the handler has established about the request when an error happens."""

    def __init__(self) -> None:
        self.state: str | None = None
        self.client: OAuthClientInformationFull | None = None
        self.redirect_uri: AnyUrl | None = None


__all__ = ["AuthorizationErrorResponse", "AuthorizationHandler", "AuthorizationRequest", "best_effort_extract_string"]
