"""The resource-server side: `wrap_with_auth`, its bearer-token gate and the protected resource
metadata route, on a bare ASGI app and on a real `MCPServer`."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from pydantic import AnyHttpUrl
from starlette.applications import Starlette
from starlette.routing import Route

from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.server import MCPServer
from mcp.server.auth.app import wrap_with_auth
from mcp.server.auth.middleware.auth_context import (
    AuthContextMiddleware,
    access_token_context,
    access_token_from_scope,
    auth_context_var,
    get_access_token,
)
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken, ProviderTokenVerifier, TokenVerifier
from mcp.server.auth.settings import AuthSettings

pytestmark = pytest.mark.anyio

BASE = "http://127.0.0.1:8000"
TOKENS = {
    "reader": AccessToken(token="reader", client_id="demo", scopes=["notes:read"], subject="alice",
                          resource=f"{BASE}/mcp", claims={"tenant": "a"}),
    "writer": AccessToken(token="writer", client_id="demo", scopes=["notes:read", "notes:write"], subject="alice",
                          resource=f"{BASE}/mcp/"),
    "nothing": AccessToken(token="nothing", client_id="demo", scopes=[], resource="https://other.example/mcp"),
    "expired": AccessToken(token="expired", client_id="demo", scopes=["notes:read"], expires_at=int(time.time()) - 10),
}


class StaticVerifier(TokenVerifier):
    async def verify_token(self, token: str) -> AccessToken | None:
        return TOKENS.get(token)


class Recorder:
    """A downstream ASGI app that records what the gate handed it."""

    def __init__(self) -> None:
        self.scopes: list[dict[str, Any]] = []
        self.tokens: list[AccessToken | None] = []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        self.scopes.append(scope)
        self.tokens.append(get_access_token())
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
        await send({"type": "http.response.body", "body": b"through"})


def settings(**overrides: Any) -> AuthSettings:
    values: dict[str, Any] = {
        "issuer_url": "https://auth.example.com",
        "resource_server_url": f"{BASE}/mcp",
        "required_scopes": ["notes:read"],
        "validate_token_resource": False,
    }
    values.update(overrides)
    return AuthSettings(**values)


def gated_app(recorder: Recorder, auth: AuthSettings) -> Starlette:
    gated, routes = wrap_with_auth(recorder, token_verifier=StaticVerifier(), auth=auth, mcp_path="/mcp")
    return Starlette(routes=[Route("/mcp", endpoint=gated, methods=["GET", "POST", "DELETE", "OPTIONS"]), *routes])


async def request(app: Starlette, method: str, path: str, token: str | None = None,
                  base_url: str = BASE) -> httpx.Response:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=base_url) as http:
        return await http.request(method, path, headers=headers)


# -- the gate -------------------------------------------------------------------------------------


@pytest.mark.parametrize("token", [None, "unknown"])
async def test_no_or_unknown_token_is_a_401_pointing_at_the_metadata(token: str | None) -> None:
    recorder = Recorder()
    response = await request(gated_app(recorder, settings()), "POST", "/mcp", token)
    assert response.status_code == 401
    assert response.json() == {"error": "invalid_token", "error_description": "Authentication required"}
    assert response.headers["www-authenticate"] == (
        'Bearer error="invalid_token", error_description="Authentication required", '
        'resource_metadata="http://127.0.0.1:8000/.well-known/oauth-protected-resource/mcp"'
    )
    assert recorder.scopes == []


@pytest.mark.parametrize("header", ["Basic abc", "Bearer", "Bearer   ", "reader"])
async def test_a_malformed_authorization_header_is_a_401(header: str) -> None:
    recorder = Recorder()
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=gated_app(recorder, settings())),
                                 base_url=BASE) as http:
        response = await http.post("/mcp", headers={"Authorization": header})
    assert response.status_code == 401


async def test_an_expired_token_is_a_401() -> None:
    response = await request(gated_app(Recorder(), settings()), "GET", "/mcp", "expired")
    assert response.status_code == 401
    assert response.json()["error_description"] == "Token has expired"


async def test_a_token_without_the_required_scopes_is_a_403_naming_the_first_missing_one_without_a_scope_param() -> None:
    response = await request(gated_app(Recorder(), settings(required_scopes=["notes:read", "notes:write"])),
                             "POST", "/mcp", "reader")
    assert response.status_code == 403
    assert response.json()["error"] == "insufficient_scope"
    assert response.headers["www-authenticate"] == (
        'Bearer error="insufficient_scope", error_description="Required scope: notes:write", '
        'resource_metadata="http://127.0.0.1:8000/.well-known/oauth-protected-resource/mcp"'
    )


async def test_a_valid_token_reaches_the_app_with_its_access_token() -> None:
    recorder = Recorder()
    response = await request(gated_app(recorder, settings()), "DELETE", "/mcp", "reader")
    assert response.status_code == 200 and response.text == "through"
    scope = recorder.scopes[0]
    assert scope["user"].access_token is TOKENS["reader"]
    assert scope["user"].is_authenticated and scope["user"].display_name == "demo"
    assert scope["auth"].scopes == ["notes:read"]
    assert access_token_from_scope(scope) is TOKENS["reader"]
    assert recorder.tokens == [TOKENS["reader"]]
    assert get_access_token() is None


async def test_token_resource_validation_is_opt_in() -> None:
    off = gated_app(Recorder(), settings(required_scopes=None))
    on = gated_app(Recorder(), settings(required_scopes=None, validate_token_resource=True))
    assert (await request(off, "POST", "/mcp", "nothing")).status_code == 200
    refused = await request(on, "POST", "/mcp", "nothing")
    assert refused.status_code == 401
    assert refused.json()["error_description"] == "Token was not issued for this resource"
    assert (await request(on, "POST", "/mcp", "reader")).status_code == 200
    assert (await request(on, "POST", "/mcp", "writer")).status_code == 200  # trailing slash only


async def test_preflight_and_lifespan_pass_through() -> None:
    recorder = Recorder()
    gated, _ = wrap_with_auth(recorder, token_verifier=StaticVerifier(), auth=settings())
    sent: list[Any] = []

    async def send(message: Any) -> None:
        sent.append(message)

    await gated({"type": "http", "method": "OPTIONS", "headers": [], "path": "/mcp"}, None, send)
    await gated({"type": "lifespan"}, None, send)
    assert len(recorder.scopes) == 2


def test_a_verifier_or_a_provider_is_needed() -> None:
    with pytest.raises(ValueError, match="token_verifier or an auth_server_provider"):
        wrap_with_auth(Recorder(), auth=settings())


# -- protected resource metadata --------------------------------------------------------------------


async def test_the_metadata_document_is_built_from_the_settings() -> None:
    app = gated_app(Recorder(), settings(service_documentation_url=AnyHttpUrl("https://docs.example.com/mcp")))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=BASE) as http:
        response = await http.get("/.well-known/oauth-protected-resource/mcp",
                                  headers={"Origin": "http://inspector.example"})
    assert response.status_code == 200
    assert response.json() == {
        "resource": "http://127.0.0.1:8000/mcp",
        "authorization_servers": ["https://auth.example.com"],
        "scopes_supported": ["notes:read"],
        "bearer_methods_supported": ["header"],
        "resource_documentation": "https://docs.example.com/mcp",
    }
    assert response.headers["access-control-allow-origin"] == "*"
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=BASE) as http:
        preflight = await http.options("/.well-known/oauth-protected-resource/mcp", headers={
            "Origin": "http://inspector.example", "Access-Control-Request-Method": "GET"})
    assert preflight.status_code == 200 and preflight.headers["access-control-allow-origin"] == "*"


async def test_without_a_resource_url_everything_is_derived_from_the_request() -> None:
    recorder = Recorder()
    app = gated_app(recorder, settings(resource_server_url=None, required_scopes=None,
                                       issuer_url=AnyHttpUrl("https://auth.example.com/tenant")))
    document = (await request(app, "GET", "/.well-known/oauth-protected-resource/mcp",
                              base_url="http://localhost:9999")).json()
    assert document == {"resource": "http://localhost:9999/mcp",
                        "authorization_servers": ["https://auth.example.com/tenant"],
                        "bearer_methods_supported": ["header"]}
    challenge = (await request(app, "POST", "/mcp", base_url="http://localhost:9999")).headers["www-authenticate"]
    assert 'resource_metadata="http://localhost:9999/.well-known/oauth-protected-resource/mcp"' in challenge


async def test_a_root_resource_has_its_metadata_at_the_root_well_known_uri() -> None:
    gated, routes = wrap_with_auth(Recorder(), token_verifier=StaticVerifier(),
                                   auth=settings(resource_server_url="https://mcp.example.com"))
    assert [route.path for route in routes] == ["/.well-known/oauth-protected-resource"]
    app = Starlette(routes=[Route("/", endpoint=gated), *routes])
    document = (await request(app, "GET", "/.well-known/oauth-protected-resource")).json()
    assert document["resource"] == "https://mcp.example.com"
    challenge = (await request(app, "GET", "/")).headers["www-authenticate"]
    assert 'resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource"' in challenge


# -- the access token context -----------------------------------------------------------------------


async def test_the_context_middleware_publishes_an_authenticated_user_only() -> None:
    recorder = Recorder()
    middleware = AuthContextMiddleware(recorder)

    async def send(message: Any) -> None:
        pass

    class User:
        access_token = TOKENS["writer"]

    await middleware({"type": "http", "user": AuthenticatedUser(TOKENS["reader"])}, None, send)  # type: ignore[arg-type]
    await middleware({"type": "http", "user": User()}, None, send)  # type: ignore[arg-type]
    await middleware({"type": "http"}, None, send)  # type: ignore[arg-type]
    assert recorder.tokens == [TOKENS["reader"], None, None]
    assert auth_context_var.get() is None


def test_access_token_context_nests_and_resets() -> None:
    with access_token_context(TOKENS["reader"]):
        assert get_access_token() is TOKENS["reader"]
        with access_token_context(None):
            assert get_access_token() is None
        assert get_access_token() is TOKENS["reader"]
    assert get_access_token() is None


# -- on a real MCPServer ----------------------------------------------------------------------------


def whoami_server() -> MCPServer:
    mcp = MCPServer("Notes")

    @mcp.tool()
    def whoami() -> str:
        """Who is calling."""
        token = get_access_token()
        if token is None:
            return "anonymous"
        return f"{token.subject} ({', '.join(token.scopes)})"

    return mcp


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_handlers_see_the_callers_access_token(mode: str, protect_app: Callable[..., Starlette]) -> None:
    mcp = whoami_server()
    app = protect_app(mcp, settings(), token_verifier=StaticVerifier())
    url = f"{BASE}/mcp"
    headers = {"Authorization": "Bearer reader"}
    async with (
        mcp.session_manager.run(),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), headers=headers) as http,
        Client(streamable_http_client(url, http_client=http), mode=mode) as client,
    ):
        result = await client.call_tool("whoami", {})
    assert result.structured_content == {"result": "alice (notes:read)"}


async def test_in_memory_there_is_no_access_token() -> None:
    async with Client(whoami_server()) as client:
        result = await client.call_tool("whoami", {})
    assert result.structured_content == {"result": "anonymous"}


async def test_a_provider_token_verifier_uses_load_access_token(memory_provider: Any) -> None:
    memory_provider.access_tokens["t"] = TOKENS["reader"]
    verifier = ProviderTokenVerifier(memory_provider)
    assert await verifier.verify_token("t") is TOKENS["reader"]
    assert await verifier.verify_token("x") is None
    assert isinstance(verifier, TokenVerifier)
