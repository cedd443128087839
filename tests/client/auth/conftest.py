"""Mock OAuth worlds for the client-side OAuth tests.

A world is a mock MCP resource server (`RS`, an MCP-less `/mcp` endpoint that checks bearer
tokens) and one or more mock authorization servers (`AS`, `AS2`), all Starlette apps served to an
`httpx.AsyncClient` through `httpx.ASGITransport` mounts on 127.0.0.1 URLs: no sockets, and any
request to another origin fails the test. Every request is logged so tests can assert the exact
discovery order.
"""

from __future__ import annotations

import base64
import hashlib
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, parse_qsl, urlencode, urlsplit

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from mcp.client.auth import AuthorizationCodeResult, OAuthClientProvider
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthToken

RS = "http://127.0.0.1:8123"
AS = "http://127.0.0.1:8124"
AS2 = "http://127.0.0.1:8125"
MCP_URL = f"{RS}/mcp"
REDIRECT_URI = "http://127.0.0.1:3030/callback"
PRM_PATH = "/.well-known/oauth-protected-resource/mcp"


def challenge_s256(verifier: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")


@dataclass
class Tokens:
    """Access tokens issued by the mock authorization servers: token -> (scopes, issuer)."""

    issued: dict[str, tuple[list[str], str]] = field(default_factory=lambda: {})
    counter: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    def issue(self, scopes: list[str], issuer: str) -> str:
        token = f"at-{next(self.counter)}"
        self.issued[token] = (scopes, issuer)
        return token


class MockAuthServer:
    """A configurable authorization server recording what clients send it."""

    def __init__(self, base: str, tokens: Tokens, *, prefix: str = "", issuer: str | None = None,
                 metadata_paths: list[str] | None = None, metadata: bool = True,
                 scopes_supported: list[str] | None = None, auth_methods: list[str] | None = None,
                 registration: bool = True, registration_method: str | None = None,
                 registration_secret: bool = True, registration_status: int = 201, cimd: bool = False,
                 iss_supported: bool | None = True, iss_mode: str = "correct",
                 pkce_methods: list[str] | None = None, refresh_tokens: bool = False,
                 expires_in: int | None = 3600, token_status: int = 200, refresh_status: int = 200,
                 client_id: str = "dcr-client") -> None:
        self.base = base
        self.tokens = tokens
        self.prefix = prefix
        self.issuer = issuer if issuer is not None else base + prefix
        self.metadata_paths = metadata_paths if metadata_paths is not None else \
            [f"/.well-known/oauth-authorization-server{prefix}"]
        self.serve_metadata = metadata
        self.scopes_supported = scopes_supported
        self.auth_methods = auth_methods if auth_methods is not None else ["none"]
        self.registration = registration
        self.registration_method = registration_method
        self.registration_secret = registration_secret
        self.registration_status = registration_status
        self.cimd = cimd
        self.iss_supported = iss_supported
        self.iss_mode = iss_mode
        self.pkce_methods = pkce_methods if pkce_methods is not None else ["S256"]
        self.refresh_tokens = refresh_tokens
        self.expires_in = expires_in
        self.token_status = token_status
        self.refresh_status = refresh_status
        self.client_id = client_id
        self.log: list[tuple[str, str]] = []
        self.authorize_requests: list[dict[str, str]] = []
        self.token_requests: list[dict[str, str]] = []
        self.token_auth_headers: list[str | None] = []
        self.registrations: list[dict[str, Any]] = []
        self.codes: dict[str, tuple[str, list[str]]] = {}
        self.refresh: dict[str, list[str]] = {}
        self.app = Starlette(routes=[Route("/{path:path}", self.handle, methods=["GET", "POST"])])

    def metadata_document(self) -> dict[str, Any]:
        document: dict[str, Any] = {
            "issuer": self.issuer,
            "authorization_endpoint": f"{self.base}{self.prefix}/authorize",
            "token_endpoint": f"{self.base}{self.prefix}/token",
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "refresh_token", "client_credentials"],
            "token_endpoint_auth_methods_supported": self.auth_methods,
        }
        if self.pkce_methods:
            document["code_challenge_methods_supported"] = self.pkce_methods
        if self.registration:
            document["registration_endpoint"] = f"{self.base}{self.prefix}/register"
        if self.scopes_supported is not None:
            document["scopes_supported"] = self.scopes_supported
        if self.cimd:
            document["client_id_metadata_document_supported"] = True
        if self.iss_supported is not None:
            document["authorization_response_iss_parameter_supported"] = self.iss_supported
        return document

    async def handle(self, request: Request) -> Response:
        path = request.url.path
        self.log.append((request.method, path))
        if request.method == "GET" and path in self.metadata_paths and self.serve_metadata:
            return JSONResponse(self.metadata_document())
        if path == f"{self.prefix}/authorize":
            return self.authorize(dict(request.query_params))
        if path == f"{self.prefix}/token" and request.method == "POST":
            form = dict(parse_qsl((await request.body()).decode()))
            return self.token(form, request.headers.get("authorization"))
        if path == f"{self.prefix}/register" and request.method == "POST" and self.registration:
            return self.register(await request.json())
        return JSONResponse({"error": "not_found"}, status_code=404)

    def authorize(self, params: dict[str, str]) -> Response:
        self.authorize_requests.append(params)
        code = f"code-{len(self.authorize_requests)}"
        requested = (params.get("scope") or "").split()
        if self.scopes_supported is not None:  # grant only what this server knows
            requested = [scope for scope in requested if scope in self.scopes_supported]
        self.codes[code] = (params.get("code_challenge", ""), requested)
        query = {"code": code}
        if "state" in params:
            query["state"] = params["state"]
        if self.iss_mode == "correct":
            query["iss"] = self.issuer
        elif self.iss_mode == "wrong":
            query["iss"] = "https://evil.example.com"
        elif self.iss_mode == "normalized":
            query["iss"] = self.issuer + "/"
        return RedirectResponse(f"{params['redirect_uri']}?{urlencode(query)}", status_code=302)

    def token(self, form: dict[str, str], authorization: str | None) -> Response:
        self.token_requests.append(form)
        self.token_auth_headers.append(authorization)
        grant = form.get("grant_type")
        if grant == "authorization_code":
            if self.token_status != 200:
                return JSONResponse({"error": "invalid_grant"}, status_code=self.token_status)
            entry = self.codes.pop(form.get("code", ""), None)
            if entry is None or challenge_s256(form.get("code_verifier", "")) != entry[0]:
                return JSONResponse({"error": "invalid_grant", "error_description": "bad code or verifier"},
                                    status_code=400)
            scopes = entry[1]
        elif grant == "refresh_token":
            if self.refresh_status != 200:
                return JSONResponse({"error": "invalid_grant"}, status_code=self.refresh_status)
            refreshed = self.refresh.get(form.get("refresh_token", ""))
            if refreshed is None:
                return JSONResponse({"error": "invalid_grant"}, status_code=400)
            scopes = refreshed
        elif grant == "urn:ietf:params:oauth:grant-type:jwt-bearer":
            if self.token_status != 200 or form.get("assertion") != "id-jag":
                return JSONResponse({"error": "invalid_grant"}, status_code=400)
            scopes = (form.get("scope") or "").split()
        elif grant == "client_credentials":
            if self.token_status != 200:
                return JSONResponse({"error": "invalid_client"}, status_code=self.token_status)
            scopes = (form.get("scope") or "").split()
        else:
            return JSONResponse({"error": "unsupported_grant_type"}, status_code=400)
        body: dict[str, Any] = {"access_token": self.tokens.issue(scopes, self.issuer), "token_type": "Bearer"}
        if self.expires_in is not None:
            body["expires_in"] = self.expires_in
        if scopes:
            body["scope"] = " ".join(scopes)
        if self.refresh_tokens:
            refresh_token = f"rt-{len(self.refresh) + 1}-{self.issuer}"
            self.refresh[refresh_token] = scopes
            body["refresh_token"] = refresh_token
        return JSONResponse(body)

    def register(self, body: dict[str, Any]) -> Response:
        self.registrations.append(body)
        if self.registration_status >= 400:
            return JSONResponse({"error": "invalid_client_metadata"}, status_code=self.registration_status)
        response = {**body, "client_id": self.client_id}
        if self.registration_secret:
            response["client_secret"] = f"{self.client_id}-secret"
        if self.registration_method is not None:
            response["token_endpoint_auth_method"] = self.registration_method
        return JSONResponse(response, status_code=self.registration_status)


class MockResourceServer:
    """An `/mcp` endpoint protected by tokens from `Tokens`, with protected resource metadata."""

    def __init__(self, tokens: Tokens, *, authorization_servers: Callable[[], list[str]] | list[str] | None = None,
                 prm_paths: list[str] | None = None, prm_resource: str | None = None,
                 header_metadata: str | None = PRM_PATH, challenge_scope: str | None = None,
                 scopes_supported: list[str] | None = None,
                 required: Callable[[Request], list[str]] | None = None,
                 accept: Callable[[str, list[str], str], bool] | None = None) -> None:
        self.tokens = tokens
        servers = authorization_servers if authorization_servers is not None else [AS]
        self.authorization_servers: Callable[[], list[str]] = servers if callable(servers) else (lambda: servers)
        self.prm_paths = prm_paths if prm_paths is not None else [PRM_PATH]
        self.prm_resource = prm_resource
        self.header_metadata = header_metadata
        self.challenge_scope = challenge_scope
        self.scopes_supported = scopes_supported
        self.required = required or (lambda request: [])
        self.accept = accept
        self.log: list[tuple[str, str]] = []
        self.authorizations: list[str | None] = []
        self.app = Starlette(routes=[Route("/{path:path}", self.handle, methods=["GET", "POST"])])

    async def handle(self, request: Request) -> Response:
        path = request.url.path
        self.log.append((request.method, path))
        if request.method == "GET" and path in self.prm_paths:
            document: dict[str, Any] = {
                "resource": self.prm_resource if self.prm_resource is not None else MCP_URL,
                "authorization_servers": self.authorization_servers(),
            }
            if self.scopes_supported is not None:
                document["scopes_supported"] = self.scopes_supported
            return JSONResponse(document)
        if path != "/mcp":
            return JSONResponse({"error": "not_found"}, status_code=404)
        header = request.headers.get("authorization")
        self.authorizations.append(header)
        params = []
        if self.challenge_scope is not None:
            params.append(f'scope="{self.challenge_scope}"')
        if self.header_metadata is not None:
            params.append(f'resource_metadata="{RS}{self.header_metadata}"')
        if not header or not header.startswith("Bearer "):
            return JSONResponse({"error": "invalid_token"}, status_code=401,
                                headers={"WWW-Authenticate": "Bearer " + ", ".join(params)})
        token = header[7:]
        found = self.tokens.issued.get(token)
        if found is None or (self.accept is not None and not self.accept(token, found[0], found[1])):
            return JSONResponse({"error": "invalid_token"}, status_code=401,
                                headers={"WWW-Authenticate": "Bearer " + ", ".join(params)})
        required = self.required(request)
        if not set(required) <= set(found[0]):
            challenge = ['error="insufficient_scope"', f'scope="{" ".join(required)}"']
            if self.header_metadata is not None:
                challenge.append(f'resource_metadata="{RS}{self.header_metadata}"')
            return JSONResponse({"error": "insufficient_scope"}, status_code=403,
                                headers={"WWW-Authenticate": "Bearer " + ", ".join(challenge)})
        return JSONResponse({"ok": True, "token": token, "scopes": found[0]})


class InMemoryStorage:
    def __init__(self, tokens: OAuthToken | None = None, client_info: OAuthClientInformationFull | None = None) -> None:
        self.tokens = tokens
        self.client_info = client_info
        self.token_writes = 0
        self.client_writes = 0

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens
        self.token_writes += 1

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client_info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client_info = client_info
        self.client_writes += 1


def _refuse_other_hosts(request: httpx.Request) -> httpx.Response:
    raise AssertionError(f"unexpected request to {request.url}")


class World:
    """The resource server, authorization servers, and a browser that plays the user."""

    RS = RS
    AS = AS
    AS2 = AS2
    MCP_URL = MCP_URL
    REDIRECT_URI = REDIRECT_URI
    PRM_PATH = PRM_PATH
    Storage = InMemoryStorage
    ResourceServer = MockResourceServer
    AuthServer = MockAuthServer

    def __init__(self) -> None:
        self.tokens = Tokens()
        self.rs = MockResourceServer(self.tokens)
        self.auth = MockAuthServer(AS, self.tokens)
        self.auth2 = MockAuthServer(AS2, self.tokens, client_id="as2-client")
        self.authorization_urls: list[str] = []
        self.pending: AuthorizationCodeResult | None = None
        self.tamper: Callable[[AuthorizationCodeResult], AuthorizationCodeResult] | None = None

    def mounts(self) -> dict[str, httpx.AsyncBaseTransport]:
        return {
            RS: httpx.ASGITransport(app=self.rs.app),
            AS: httpx.ASGITransport(app=self.auth.app),
            AS2: httpx.ASGITransport(app=self.auth2.app),
        }

    def client(self, auth: httpx.Auth | None = None) -> httpx.AsyncClient:
        return httpx.AsyncClient(auth=auth, mounts=self.mounts(), transport=httpx.MockTransport(_refuse_other_hosts))

    async def redirect_handler(self, url: str) -> None:
        self.authorization_urls.append(url)
        async with self.client() as http:
            response = await http.get(url)
        assert response.status_code == 302, response.text
        query = parse_qs(urlsplit(response.headers["location"]).query)
        result = AuthorizationCodeResult(
            code=query["code"][0],
            state=query.get("state", [None])[0],
            iss=query.get("iss", [None])[0],
        )
        self.pending = self.tamper(result) if self.tamper is not None else result

    async def callback_handler(self) -> AuthorizationCodeResult:
        result, self.pending = self.pending, None
        assert result is not None
        return result

    def provider(self, storage: InMemoryStorage | None = None, *, metadata: OAuthClientMetadata | None = None,
                 **kwargs: Any) -> OAuthClientProvider:
        return OAuthClientProvider(
            server_url=MCP_URL,
            client_metadata=metadata or OAuthClientMetadata(
                client_name="test client", redirect_uris=[REDIRECT_URI],  # type: ignore[list-item]
            ),
            storage=storage if storage is not None else InMemoryStorage(),
            redirect_handler=self.redirect_handler,
            callback_handler=self.callback_handler,
            **kwargs,
        )

    async def call(self, auth: httpx.Auth, method: str = "POST", path: str = "/mcp", **kwargs: Any) -> httpx.Response:
        async with self.client(auth) as http:
            return await http.request(method, RS + path, content=b"{}", **kwargs)


@pytest.fixture
def world() -> World:
    return World()
