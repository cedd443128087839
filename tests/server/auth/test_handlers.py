"""The endpoint classes of `mcp.server.auth.handlers`, mounted on their own Starlette routes the
way FastMCP and hand-built apps use them, and the bearer-auth pair of Starlette middleware."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from pydantic import AnyHttpUrl, AnyUrl, BaseModel, ValidationError
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.authentication import AuthenticationMiddleware
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from mcp.server.auth.errors import stringify_pydantic_error
from mcp.server.auth.handlers.metadata import MetadataHandler
from mcp.server.auth.handlers.register import RegistrationHandler
from mcp.server.auth.handlers.token import TokenErrorResponse, TokenHandler
from mcp.server.auth.json_response import PydanticJSONResponse
from mcp.server.auth.middleware.auth_context import AuthContextMiddleware, auth_context_var, get_access_token
from mcp.server.auth.middleware.bearer_auth import (
    AuthenticatedUser,
    BearerAuthBackend,
    RequireAuthMiddleware,
    authorization_context,
)
from mcp.server.auth.middleware.client_auth import AuthenticationError, ClientAuthenticator
from mcp.server.auth.provider import AccessToken, TokenVerifier, principal_components
from mcp.server.auth.routes import build_metadata, build_resource_metadata_url, cors_middleware
from mcp.server.auth.settings import ClientRegistrationOptions, RevocationOptions
from mcp.shared.auth import OAuthClientInformationFull

pytestmark = pytest.mark.anyio

REDIRECT = "http://127.0.0.1:3030/callback"


def add_client(provider: Any, **overrides: Any) -> OAuthClientInformationFull:
    values: dict[str, Any] = {"client_id": "app", "client_secret": "s3cret", "redirect_uris": [AnyUrl(REDIRECT)],
                              "token_endpoint_auth_method": "client_secret_post", "scope": "read"}
    values.update(overrides)
    info = OAuthClientInformationFull(**values)
    provider.clients[info.client_id] = info
    return info


def client(app: Starlette) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1")


async def test_the_token_handler_answers_a_real_starlette_request(memory_provider: Any) -> None:
    add_client(memory_provider)
    handler = TokenHandler(memory_provider, ClientAuthenticator(memory_provider))
    app = Starlette(routes=[Route("/token", endpoint=handler.handle, methods=["POST"])])
    async with client(app) as http:
        unknown = await http.post("/token", data={"grant_type": "refresh_token", "refresh_token": "nope",
                                            "client_id": "app", "client_secret": "s3cret"})
        wrong_secret = await http.post("/token", data={"grant_type": "refresh_token", "refresh_token": "nope",
                                                 "client_id": "app", "client_secret": "guess"})
        malformed = await http.post("/token", data={"client_id": "app", "client_secret": "s3cret"})
    assert unknown.status_code == 400
    assert unknown.json() == {"error": "invalid_grant", "error_description": "refresh token does not exist"}
    assert unknown.headers["cache-control"] == "no-store" and unknown.headers["pragma"] == "no-cache"
    assert wrong_secret.status_code == 401
    assert wrong_secret.json() == {"error": "invalid_client", "error_description": "Invalid client_secret"}
    assert malformed.status_code == 400 and malformed.json()["error"] == "invalid_request"


async def test_a_subclassed_token_handler_can_read_the_form_again(memory_provider: Any) -> None:
    """FastMCP's handler calls `request.form()` around the SDK's: the parsed form is shared, so
    this works without python-multipart."""
    add_client(memory_provider)
    seen: list[str | None] = []

    class RewritingHandler(TokenHandler):
        async def handle(self, request: Request) -> Response:
            response = await super().handle(request)
            form = await request.form()
            seen.append(str(form.get("grant_type")))
            body = json.loads(bytes(response.body))
            if response.status_code == 400 and body.get("error") == "invalid_grant":
                return PydanticJSONResponse(content=TokenErrorResponse(**body), status_code=401)
            return response

    handler = RewritingHandler(provider=memory_provider, client_authenticator=ClientAuthenticator(memory_provider))
    app = Starlette(routes=[Route("/token", endpoint=cors_middleware(handler.handle, ["POST", "OPTIONS"]),
                                  methods=["POST", "OPTIONS"])])
    async with client(app) as http:
        response = await http.post("/token", data={"grant_type": "refresh_token", "refresh_token": "nope",
                                             "client_id": "app", "client_secret": "s3cret"})
    assert response.status_code == 401 and response.json()["error"] == "invalid_grant"
    assert seen == ["refresh_token"]


async def test_the_client_authenticator_holds_clients_to_their_registered_method(memory_provider: Any) -> None:
    add_client(memory_provider, client_id="basic", token_endpoint_auth_method="client_secret_basic")
    add_client(memory_provider, client_id="broken", client_secret=None)
    authenticator = ClientAuthenticator(memory_provider)

    async def attempt(body: bytes, headers: dict[str, str] | None = None) -> str:
        raw_headers = [(b"content-type", b"application/x-www-form-urlencoded")]
        raw_headers += [(key.lower().encode(), value.encode()) for key, value in (headers or {}).items()]

        async def receive() -> dict[str, Any]:
            return {"type": "http.request", "body": body, "more_body": False}

        request = Request({"type": "http", "method": "POST", "headers": raw_headers}, receive)
        try:
            return (await authenticator.authenticate_request(request)).client_id
        except AuthenticationError as exc:
            return exc.message

    assert await attempt(b"grant_type=x") == "Missing client_id"
    assert await attempt(b"client_id=nobody") == "Invalid client_id"
    assert await attempt(b"client_id=basic&client_secret=s3cret") == (
        "Missing or invalid Basic authentication in Authorization header")
    assert await attempt(b"client_id=basic", {"Authorization": "Basic YmFzaWM6czNjcmV0"}) == "basic"
    assert await attempt(b"client_id=basic", {"Authorization": "Basic b3RoZXI6czNjcmV0"}) == (
        "Client ID mismatch in Basic auth")
    assert await attempt(b"client_id=broken") == (
        "Client is registered for secret-based authentication but has no stored secret")


async def test_registration_confirms_a_never_expiring_secret_with_zero(memory_provider: Any) -> None:
    handler = RegistrationHandler(memory_provider, options=ClientRegistrationOptions(enabled=True))
    app = Starlette(routes=[Route("/register", endpoint=handler.handle, methods=["POST"])])
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1") as http:
        confidential = (await http.post("/register", json={"redirect_uris": [REDIRECT]})).json()
        public = (await http.post("/register", json={"redirect_uris": [REDIRECT],
                                                     "token_endpoint_auth_method": "none"})).json()
        refused = await http.post("/register", json={"redirect_uris": [REDIRECT], "response_types": ["token"]})
    assert confidential["client_secret_expires_at"] == 0 and confidential["application_type"] == "native"
    assert "client_secret" not in public and "client_secret_expires_at" not in public
    assert refused.json() == {"error": "invalid_client_metadata",
                              "error_description": "response_types must include 'code' for authorization_code grant"}


async def test_the_metadata_handler_serves_a_cacheable_document() -> None:
    metadata = build_metadata(AnyHttpUrl("https://auth.example.com"), None, ClientRegistrationOptions(enabled=True),
                              RevocationOptions(), supports_identity_assertion=True)
    metadata.issuer = AnyHttpUrl("https://issuer.example.com")
    app = Starlette(routes=[Route("/meta", endpoint=MetadataHandler(metadata).handle)])
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1") as http:
        response = await http.get("/meta")
    assert response.headers["cache-control"] == "public, max-age=3600"
    document = response.json()
    assert document["issuer"] == "https://issuer.example.com/"
    assert document["registration_endpoint"] == "https://auth.example.com/register"
    assert document["authorization_grant_profiles_supported"] == ["urn:ietf:params:oauth:grant-profile:id-jag"]


def test_pydantic_json_response_writes_urls_and_leaves_out_unset_members() -> None:
    class Document(BaseModel):
        url: AnyHttpUrl
        note: str | None = None

    response = PydanticJSONResponse(content=Document(url=AnyHttpUrl("https://x.example/a")), status_code=201)
    assert response.status_code == 201 and response.media_type == "application/json"
    assert json.loads(bytes(response.body)) == {"url": "https://x.example/a"}


def test_validation_errors_read_as_one_line_per_problem() -> None:
    class Request_(BaseModel):
        code: str
        count: int

    with pytest.raises(ValidationError) as caught:
        Request_.model_validate({"count": "many"})
    assert stringify_pydantic_error(caught.value) == (
        "code: Field required\ncount: Input should be a valid integer, unable to parse string as an integer")


def test_the_resource_metadata_url_inserts_the_well_known_path() -> None:
    assert str(build_resource_metadata_url(AnyHttpUrl("https://x.example/mcp"))) == (
        "https://x.example/.well-known/oauth-protected-resource/mcp")
    assert str(build_resource_metadata_url(AnyHttpUrl("https://x.example/"))) == (
        "https://x.example/.well-known/oauth-protected-resource")


# -- the Starlette middleware pair ----------------------------------------------------------------

TOKENS = {
    "reader": AccessToken(token="reader", client_id="demo", scopes=["read"], subject="alice",
                          resource="https://x.example/mcp", claims={"iss": "https://auth.example.com"}),
    "elsewhere": AccessToken(token="elsewhere", client_id="demo", scopes=["read"], resource="https://y.example/mcp"),
}


class StaticVerifier(TokenVerifier):
    async def verify_token(self, token: str) -> AccessToken | None:
        return TOKENS.get(token)


def middleware_app(seen: list[Any]) -> Starlette:
    async def endpoint(request: Request) -> Response:
        seen.append((get_access_token(), auth_context_var.get()))
        return PlainTextResponse("ok")

    protected = RequireAuthMiddleware(Route("/mcp", endpoint=endpoint), ["read"],
                                      AnyHttpUrl("https://x.example/.well-known/oauth-protected-resource/mcp"))
    return Starlette(
        routes=[Route("/mcp", endpoint=protected)],
        middleware=[
            Middleware(AuthenticationMiddleware, backend=BearerAuthBackend(
                StaticVerifier(), resource_server_url=AnyHttpUrl("https://x.example/mcp"))),
            Middleware(AuthContextMiddleware),
        ],
    )


async def test_auth_context_var_holds_the_user_while_the_request_runs() -> None:
    seen: list[Any] = []
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=middleware_app(seen)),
                                 base_url="https://x.example") as http:
        ok = await http.get("/mcp", headers={"Authorization": "Bearer reader"})
        anonymous = await http.get("/mcp")
        wrong_resource = await http.get("/mcp", headers={"Authorization": "Bearer elsewhere"})
    assert ok.status_code == 200
    token, user = seen[0]
    assert token is TOKENS["reader"] and isinstance(user, AuthenticatedUser) and user.username == "demo"
    assert auth_context_var.get() is None
    assert anonymous.status_code == 401 and wrong_resource.status_code == 401
    assert anonymous.headers["www-authenticate"] == (
        'Bearer error="invalid_token", error_description="Authentication required", '
        'resource_metadata="https://x.example/.well-known/oauth-protected-resource/mcp"')
    assert len(seen) == 1


def test_the_principal_of_a_token_is_client_issuer_and_subject() -> None:
    assert principal_components(TOKENS["reader"]) == ("demo", "https://auth.example.com", "alice")
    assert authorization_context(AuthenticatedUser(TOKENS["elsewhere"])) == {
        "client_id": "demo", "issuer": None, "subject": None}
