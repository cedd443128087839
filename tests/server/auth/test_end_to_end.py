"""Both halves together: the SDK's OAuth client providers against a protected `MCPServer` with an
embedded authorization server (in memory through ASGI, and once over real sockets on 127.0.0.1)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
import uvicorn
from pydantic import AnyUrl
from starlette.applications import Starlette

from mcp import Client
from mcp.client.auth import AuthorizationCodeResult, OAuthClientProvider
from mcp.client.auth.extensions.identity_assertion import IdentityAssertionOAuthProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.server import MCPServer
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions
from mcp.shared.auth import JWT_BEARER_GRANT_TYPE, OAuthClientInformationFull, OAuthClientMetadata, OAuthToken

pytestmark = pytest.mark.anyio

BASE = "http://127.0.0.1:8000"
REDIRECT = "http://127.0.0.1:3030/callback"


class Storage:
    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client_info: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client_info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client_info = client_info


class RecordingTransport(httpx.ASGITransport):
    def __init__(self, app: Any, log: list[tuple[str, str]]) -> None:
        super().__init__(app=app)
        self.log = log

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.log.append((request.method, request.url.path))
        return await super().handle_async_request(request)


def notes_server() -> MCPServer:
    mcp = MCPServer("Notes")

    @mcp.tool()
    def whoami() -> str:
        """Who is calling."""
        token = get_access_token()
        assert token is not None
        return f"{token.subject} via {token.client_id} ({', '.join(token.scopes)})"

    return mcp


def auth_settings(base: str, **overrides: Any) -> AuthSettings:
    values: dict[str, Any] = {
        "issuer_url": base,
        "resource_server_url": f"{base}/mcp",
        "required_scopes": ["read"],
        "client_registration_options": ClientRegistrationOptions(enabled=True, valid_scopes=["read"]),
        "validate_token_resource": True,
    }
    values.update(overrides)
    return AuthSettings(**values)


class Browser:
    """Follows the authorization request and catches the redirect back to the client."""

    def __init__(self, make_client: Callable[[], httpx.AsyncClient]) -> None:
        self.make_client = make_client
        self.result: AuthorizationCodeResult | None = None

    async def redirect(self, url: str) -> None:
        async with self.make_client() as http:
            response = await http.get(url)
        assert response.status_code == 302, response.text
        query = {key: values[0] for key, values in parse_qs(urlsplit(response.headers["location"]).query).items()}
        self.result = AuthorizationCodeResult(code=query["code"], state=query.get("state"), iss=query.get("iss"))

    async def callback(self) -> AuthorizationCodeResult:
        assert self.result is not None
        return self.result


def oauth_provider(base: str, browser: Browser, storage: Storage) -> OAuthClientProvider:
    return OAuthClientProvider(
        server_url=f"{base}/mcp",
        client_metadata=OAuthClientMetadata(client_name="e2e", redirect_uris=[AnyUrl(REDIRECT)]),
        storage=storage,
        redirect_handler=browser.redirect,
        callback_handler=browser.callback,
    )


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_the_authorization_code_flow_end_to_end(mode: str, memory_provider: Any,
                                                      protect_app: Callable[..., Starlette]) -> None:
    mcp = notes_server()
    app = protect_app(mcp, auth_settings(BASE), auth_server_provider=memory_provider)
    log: list[tuple[str, str]] = []

    def make_client(auth: httpx.Auth | None = None) -> httpx.AsyncClient:
        return httpx.AsyncClient(auth=auth, transport=RecordingTransport(app, log))

    storage = Storage()
    provider = oauth_provider(BASE, Browser(make_client), storage)
    async with (
        mcp.session_manager.run(),
        make_client(provider) as http,
        Client(streamable_http_client(f"{BASE}/mcp", http_client=http), mode=mode) as client,
    ):
        result = await client.call_tool("whoami", {})
    assert storage.client_info is not None
    assert result.structured_content == {"result": f"alice via {storage.client_info.client_id} (read)"}
    assert log[:7] == [
        ("POST", "/mcp"),
        ("GET", "/.well-known/oauth-protected-resource/mcp"),
        ("GET", "/.well-known/oauth-authorization-server"),
        ("POST", "/register"),
        ("GET", "/authorize"),
        ("POST", "/token"),
        ("POST", "/mcp"),
    ]
    authorization = memory_provider.authorize_params[0]
    assert authorization.resource == f"{BASE}/mcp" and authorization.scopes == ["read"]


async def test_the_identity_assertion_grant_end_to_end(memory_provider: Any,
                                                       protect_app: Callable[..., Starlette]) -> None:
    memory_provider.clients["agent"] = OAuthClientInformationFull(
        client_id="agent", client_secret="agent-secret", grant_types=[JWT_BEARER_GRANT_TYPE],
        token_endpoint_auth_method="client_secret_post")
    mcp = notes_server()
    app = protect_app(mcp, auth_settings(BASE, identity_assertion_enabled=True), auth_server_provider=memory_provider)
    log: list[tuple[str, str]] = []
    requested: list[tuple[str, str]] = []

    async def fetch_id_jag(audience: str, resource: str) -> str:
        requested.append((audience, resource))
        return "valid-id-jag"

    provider = IdentityAssertionOAuthProvider(server_url=f"{BASE}/mcp", storage=Storage(), client_id="agent",
                                              client_secret="agent-secret", issuer=BASE,
                                              assertion_provider=fetch_id_jag, scope="read")
    async with (
        mcp.session_manager.run(),
        httpx.AsyncClient(auth=provider, transport=RecordingTransport(app, log)) as http,
        Client(streamable_http_client(f"{BASE}/mcp", http_client=http)) as client,
    ):
        result = await client.call_tool("whoami", {})
    assert result.structured_content == {"result": "bob@example.com via agent (read)"}
    assert log[:4] == [("POST", "/mcp"), ("GET", "/.well-known/oauth-authorization-server"), ("POST", "/token"),
                       ("POST", "/mcp")]
    assert requested == [(BASE, f"{BASE}/mcp")]  # the configured issuer, as given
    params = memory_provider.assertions[0]
    assert (params.scopes, params.resource) == (["read"], f"{BASE}/mcp")


# -- over real sockets ------------------------------------------------------------------------------


@contextmanager
def serving(make_app: Callable[[str], Starlette]) -> Iterator[str]:
    """Serve `make_app(base_url)` with uvicorn on a free 127.0.0.1 port in a background thread."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    base = f"http://127.0.0.1:{sock.getsockname()[1]}"
    servers: list[uvicorn.Server] = []

    def serve() -> None:
        config = uvicorn.Config(make_app(base), log_level="warning", lifespan="on", ws="none", http="h11")
        server = uvicorn.Server(config)
        servers.append(server)
        server.run(sockets=[sock])

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 10
        while not (servers and servers[0].started):
            if not thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.01)
        yield base
    finally:
        for server in servers:
            server.should_exit = True
        thread.join(timeout=10)
        sock.close()


async def test_the_flow_over_real_sockets(memory_provider: Any, protect_app: Callable[..., Starlette]) -> None:
    def make_app(base: str) -> Starlette:
        return protect_app(notes_server(), auth_settings(base), auth_server_provider=memory_provider)

    with serving(make_app) as base:
        storage = Storage()
        provider = oauth_provider(base, Browser(lambda: httpx.AsyncClient()), storage)
        async with (
            httpx.AsyncClient(auth=provider) as http,
            Client(streamable_http_client(f"{base}/mcp", http_client=http), mode="legacy") as client,
        ):
            first = await client.call_tool("whoami", {})
            second = await client.call_tool("whoami", {})
        assert storage.client_info is not None
        expected = {"result": f"alice via {storage.client_info.client_id} (read)"}
        assert first.structured_content == second.structured_content == expected
        assert len(memory_provider.authorize_params) == 1
