"""Parts of the OAuth proxy tests: a user agent that walks the browser side of the flow (consent
page, identity provider, back to the client) over real HTTP, the MCP server behind the proxy, and
the client's storage."""

from __future__ import annotations

import base64
import hashlib
import re
import secrets
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
from fake_idp import CLIENT_ID, CLIENT_SECRET, FakeIdP
from jwtkit import serve, serve_built

from mcp.client.auth import AuthorizationCodeResult
from mcp.server import MCPServer
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.proxy import OAuthProxy, OIDCProxy, UpstreamProvider
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

REDIRECT = "http://127.0.0.1:3030/callback"
SECRET = "test-proxy-secret-0123456789-abcdefghij"


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


def hidden_fields(html: str) -> dict[str, str]:
    return dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)">', html))


class UserAgent:
    """The user's browser: follows redirects from the authorization URL, approves (or denies) on
    the consent page, and stops at the client's redirect URI, recording its query."""

    def __init__(
        self, action: str = "approve", redirect_prefix: str = REDIRECT, limits: httpx.Limits | None = None
    ) -> None:
        self.action = action
        self.limits = limits or httpx.Limits()
        self.redirect_prefix = redirect_prefix
        self.result: dict[str, str] = {}
        self.pages: list[httpx.Response] = []

    async def visit(self, url: str) -> dict[str, str]:
        async with httpx.AsyncClient(follow_redirects=False, timeout=20, limits=self.limits) as http:
            response = await http.get(url)
            for _ in range(10):
                if response.status_code in (302, 303, 307):
                    location = response.headers["location"]
                    if location.startswith(self.redirect_prefix):
                        query = parse_qs(urlsplit(location).query)
                        self.result = {key: values[0] for key, values in query.items()}
                        return self.result
                    response = await http.get(location)
                elif response.status_code == 200 and "<form" in response.text:
                    self.pages.append(response)
                    fields = hidden_fields(response.text)
                    consent_url = str(response.url).split("?")[0]
                    response = await http.post(consent_url, data={**fields, "action": self.action})
                else:
                    self.pages.append(response)
                    raise AssertionError(f"unexpected page {response.status_code}: {response.text[:300]}")
        raise AssertionError("too many redirects")

    async def redirect(self, url: str) -> None:
        await self.visit(url)

    async def callback(self) -> AuthorizationCodeResult:
        return AuthorizationCodeResult(code=self.result["code"], state=self.result.get("state"))


def pkce() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
    return verifier, challenge


class Flow:
    """One client registered by DCR (`client_name`, one redirect URI) driving the proxy by hand:
    the authorization URL (PKCE, `state="client-state"`), the code's exchange at `/token`."""

    def __init__(
        self, http: httpx.AsyncClient, base: str, client_name: str = "Notes CLI", redirect: str = REDIRECT
    ) -> None:
        self.http, self.base = http, base
        self.client_name, self.redirect = client_name, redirect
        self.client: dict[str, Any] = {}
        self.verifier, self.challenge = pkce()

    async def register(self) -> None:
        response = await self.http.post(
            f"{self.base}/register",
            json={
                "client_name": self.client_name,
                "redirect_uris": [self.redirect],
                "token_endpoint_auth_method": "none",
            },
        )
        assert response.status_code == 201, response.text
        self.client = response.json()

    def authorize_url(self, **overrides: str) -> str:
        params = {
            "response_type": "code",
            "client_id": self.client["client_id"],
            "redirect_uri": self.redirect,
            "code_challenge": self.challenge,
            "code_challenge_method": "S256",
            "state": "client-state",
            "resource": f"{self.base}/mcp",
            "scope": "notes",
            **overrides,
        }
        return f"{self.base}/authorize?{urlencode(params)}"

    async def code(self, agent: UserAgent | None = None) -> str:
        result = await (agent or UserAgent()).visit(self.authorize_url())
        assert result.get("state") == "client-state", result
        return result["code"]

    async def token(self, **form: str) -> httpx.Response:
        return await self.http.post(
            f"{self.base}/token", data={"client_id": self.client["client_id"], **form}
        )

    async def exchange(self, code: str, verifier: str | None = None) -> httpx.Response:
        return await self.token(
            grant_type="authorization_code",
            code=code,
            redirect_uri=self.redirect,
            code_verifier=verifier or self.verifier,
        )


def notes_server(proxy: OAuthProxy) -> MCPServer:
    mcp = MCPServer("Notes", auth_server_provider=proxy, auth=proxy.auth_settings())

    @mcp.tool()
    def whoami() -> dict[str, Any]:
        """Who is calling, as the tool sees it."""
        token = get_access_token()
        assert token is not None
        claims = token.claims or {}
        return {
            "subject": token.subject,
            "client_id": token.client_id,
            "scopes": token.scopes,
            "source": claims.get("token_source"),
            "login": claims.get("upstream_claims", {}).get("login"),
            "email": claims.get("upstream_claims", {}).get("email"),
        }

    return mcp


def make_proxy(idp: FakeIdP, base: str, **options: Any) -> OAuthProxy:
    options.setdefault("scopes", ["notes"])
    if idp.kind == "github":
        upstream = UpstreamProvider(
            name="GitHub",
            client_id=CLIENT_ID,
            client_secret=CLIENT_SECRET,
            authorization_endpoint=f"{idp.base}/login/oauth/authorize",
            token_endpoint=f"{idp.base}/login/oauth/access_token",
            userinfo_endpoint=f"{idp.base}/user",
            scopes=["read:user"],
            identity="github",
            subject_claim="id",
            timeout=options.pop("timeout", 10.0),
        )
        return OAuthProxy(upstream=upstream, base_url=base, secret=SECRET, **options)
    return OIDCProxy(
        discovery_url=f"{idp.base}/.well-known/openid-configuration",
        client_id=CLIENT_ID,
        client_secret=CLIENT_SECRET,
        base_url=base,
        secret=SECRET,
        provider_name="FakeOIDC",
        timeout=options.pop("timeout", 10.0),
        **options,
    )


@contextmanager
def proxied_server(kind: str, **options: Any) -> Iterator[tuple[FakeIdP, OAuthProxy, str]]:
    """A fake identity provider and an MCP server behind an `OAuthProxy` to it, both on uvicorn."""
    idp = FakeIdP(kind)
    proxies: list[OAuthProxy] = []

    def make_app(base: str) -> Any:
        proxy = make_proxy(idp, base, **options)
        proxies.append(proxy)
        return notes_server(proxy).streamable_http_app()

    with serve(idp.app) as idp_base:
        idp.base = idp_base
        with serve_built(make_app) as base:
            yield idp, proxies[0], base


Factory = Callable[..., Any]
