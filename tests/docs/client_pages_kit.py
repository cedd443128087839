"""Shared pieces of the client docs-page tests: a real uvicorn on 127.0.0.1, a recorder of the
HTTP requests that reach it, a bookshop server, and a token storage like the pages' own."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from tests.server.http.httpkit import serving

from mcp.server import MCPServer
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

ASGIApp = Callable[..., Any]


class Recorder:
    """An ASGI wrapper that notes the method, path, headers and JSON-RPC method of every HTTP
    request reaching the wrapped app."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.requests: list[dict[str, Any]] = []

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode().lower(): v.decode() for k, v in scope.get("headers", ())}
        entry: dict[str, Any] = {"method": scope["method"], "path": scope["path"], "headers": headers,
                                 "mcp_method": headers.get("mcp-method")}
        self.requests.append(entry)
        await self.app(scope, receive, send)

    def posts(self) -> list[dict[str, Any]]:
        return [r for r in self.requests if r["method"] == "POST"]


def bookshop(**kwargs: Any) -> MCPServer:
    """A small server with one tool, used where a page only needs something to connect to."""
    mcp = MCPServer("Bookshop", instructions="Search the catalog before recommending a book.", **kwargs)

    @mcp.tool()
    def search_books(query: str) -> str:
        """Search the catalog by title or author."""
        return f"Found 3 books matching {query!r}."

    return mcp


class MemoryTokenStorage:
    """The token storage the OAuth pages sketch: tokens and client information in memory."""

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


# -- an OAuth world on one uvicorn: a protected MCP server and its authorization server -------------


class AuthWorld:
    """A protected `MCPServer` at `/mcp` and a small authorization server at the same origin: its
    RFC 8414 metadata and a `/token` endpoint that grants `client_credentials` (a client secret,
    Basic or in the form) and the `jwt-bearer` identity assertion grant. Every request is noted."""

    CLIENT_ID = "nightly-report"
    CLIENT_SECRET = "s3cret"

    def __init__(self) -> None:
        self.tokens: dict[str, list[str]] = {}
        self.requests: list[tuple[str, str]] = []
        self.token_forms: list[dict[str, str]] = []
        self.base = ""

    def app(self, base: str) -> ASGIApp:
        import base64
        from urllib.parse import parse_qsl

        from starlette.applications import Starlette
        from starlette.requests import Request
        from starlette.responses import JSONResponse
        from starlette.routing import Route

        from mcp.server.auth.provider import AccessToken
        from mcp.server.auth.settings import AuthSettings

        self.base = base
        world = self

        class Verifier:
            async def verify_token(self, token: str) -> AccessToken | None:
                scopes = world.tokens.get(token)
                if scopes is None:
                    return None
                return AccessToken(token=token, client_id=world.CLIENT_ID, scopes=scopes)

        mcp = MCPServer("Reports", token_verifier=Verifier(), auth=AuthSettings(
            issuer_url=base, resource_server_url=f"{base}/mcp", required_scopes=["reports"],  # type: ignore[arg-type]
            validate_token_resource=False))

        @mcp.tool()
        def nightly() -> str:
            """The nightly figures."""
            return "42 orders"

        async def metadata(request: Request) -> JSONResponse:
            return JSONResponse({
                "issuer": base, "authorization_endpoint": f"{base}/authorize", "token_endpoint": f"{base}/token",
                "response_types_supported": ["code"],
                "grant_types_supported": ["client_credentials", "urn:ietf:params:oauth:grant-type:jwt-bearer"],
                "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
            })

        async def token(request: Request) -> JSONResponse:
            form = dict(parse_qsl((await request.body()).decode()))
            world.token_forms.append(form)
            client_id, secret = form.get("client_id"), form.get("client_secret")
            basic = request.headers.get("authorization", "")
            if basic.startswith("Basic "):
                client_id, _, secret = base64.b64decode(basic[6:]).decode().partition(":")
            if (client_id, secret) != (world.CLIENT_ID, world.CLIENT_SECRET):
                return JSONResponse({"error": "invalid_client"}, status_code=401)
            if form.get("grant_type") not in ("client_credentials", "urn:ietf:params:oauth:grant-type:jwt-bearer"):
                return JSONResponse({"error": "unsupported_grant_type"}, status_code=400)
            if form["grant_type"] != "client_credentials" and not form.get("assertion"):
                return JSONResponse({"error": "invalid_grant"}, status_code=400)
            access = f"at-{len(world.tokens) + 1}"
            world.tokens[access] = (form.get("scope") or "reports").split()
            return JSONResponse({"access_token": access, "token_type": "Bearer", "expires_in": 3600,
                                 "scope": " ".join(world.tokens[access])})

        authorization_server = Starlette(routes=[
            Route("/.well-known/oauth-authorization-server", metadata),
            Route("/token", token, methods=["POST"]),
        ])
        protected = mcp.streamable_http_app()

        async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
            if scope["type"] == "http":
                world.requests.append((scope["method"], scope["path"]))
                if scope["path"] in ("/.well-known/oauth-authorization-server", "/token"):
                    await authorization_server(scope, receive, send)
                    return
            await protected(scope, receive, send)

        return app


@contextmanager
def auth_world() -> Iterator[tuple[AuthWorld, str]]:
    """Serve an `AuthWorld` on uvicorn; yields it and its base URL."""
    world = AuthWorld()
    holder: list[str] = []
    with serving(lambda: world.app(holder[0]), before=holder.append) as base:
        yield world, base
