"""Local fakes of identity providers that do not register MCP clients, for the OAuth proxy tests,
behaving as the real ones do where the proxy can tell:

- `FakeIdP("github")`: GitHub's OAuth App endpoints: `/login/oauth/authorize`,
  `/login/oauth/access_token` (form-encoded answers unless asked for JSON, errors as HTTP 200 with
  `error`), opaque tokens, the user from `GET /user` (numeric `id`, `login`).
- `FakeIdP("oidc")`: an OpenID Connect provider: discovery document, `/authorize`, `/token` (JSON,
  RS256 `id_token` with the nonce, refresh tokens), `/jwks`, `/userinfo`.
- `FakeIdP("google" | "entra" | "auth0" | "workos" | "keycloak")`: that provider's OpenID Connect
  shape (`PROFILES`): where its discovery document lives (Entra's under the tenant's
  `/v2.0`, Keycloak's under the realm), its endpoint paths, its issuer (Auth0's ends in `/`), the
  claims of its ID tokens (Entra's `oid`/`tid`, Google's numeric `sub`, Auth0's `auth0|...`, ...)
  and when it hands out refresh tokens (Google: `access_type=offline`; Entra, Auth0, WorkOS:
  the `offline_access` scope; Keycloak: always).

Both know one pre-registered client (`client_id`/`client_secret`), check its secret, the redirect
URI, PKCE S256 and single use of codes, and sign the user in without a page (the "user" always
approves). `mode` makes them misbehave: `"deny"` (the user refuses upstream), `"token_error"`
(the token endpoint refuses), `"slow"` (the token endpoint does not answer for 5 s).
"""

from __future__ import annotations

import base64
import hashlib
import secrets
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlencode

import anyio
import jwt
from jwtkit import SigningKey
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route

CLIENT_ID = "proxy-client-id"
CLIENT_SECRET = "proxy-client-secret-do-not-leak"
ENTRA_TENANT = "9188040d-6c67-4c5b-b112-36a304b66dad"
KEYCLOAK_REALM = "/realms/staff"


@dataclass(frozen=True)
class Profile:
    """How one OpenID Connect provider looks from the proxy: paths under the fake's base URL
    (`root`: where its issuer and discovery document live), the claims of its ID tokens and
    userinfo, and when its token endpoint returns a refresh token."""

    root: str = ""
    issuer_suffix: str = ""
    authorize: str = "/authorize"
    token: str = "/token"
    jwks: str = "/jwks"
    userinfo: str = "/userinfo"
    claims: dict[str, Any] = field(default_factory=dict[str, Any])
    refresh: str = "always"
    """"always", "offline_access" (the scope asked for it) or "access_type" (Google's parameter)."""
    pkce_advertised: bool = True
    subject: str = "sub"
    """The claim the provider's preset takes as the user's stable id."""


MONA = {"name": "Mona Lisa", "email": "mona@example.com"}
PROFILES: dict[str, Profile] = {
    "oidc": Profile(claims={"sub": "user-42", **MONA}),
    "google": Profile(
        authorize="/o/oauth2/v2/auth", jwks="/oauth2/v3/certs", userinfo="/v1/userinfo",
        claims={"sub": "110169484474386276334", "email_verified": True, "azp": CLIENT_ID,
                "picture": "https://lh3.googleusercontent.com/a/mona", **MONA},
        refresh="access_type"),
    "entra": Profile(
        root=f"/{ENTRA_TENANT}/v2.0", authorize=f"/{ENTRA_TENANT}/oauth2/v2.0/authorize",
        token=f"/{ENTRA_TENANT}/oauth2/v2.0/token", jwks=f"/{ENTRA_TENANT}/discovery/v2.0/keys",
        userinfo="/oidc/userinfo", refresh="offline_access", pkce_advertised=False, subject="oid",
        claims={"sub": "AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ", "ver": "2.0",
                "oid": "00000000-0000-0000-66f3-3332eca7ea81", "tid": ENTRA_TENANT,
                "preferred_username": "mona@contoso.example", **MONA}),
    "auth0": Profile(
        issuer_suffix="/", token="/oauth/token", jwks="/.well-known/jwks.json", refresh="offline_access",
        claims={"sub": "auth0|64b7f0c2a1b2c3d4e5f60718", "nickname": "mona", "email_verified": True, **MONA}),
    "workos": Profile(
        authorize="/oauth2/authorize", token="/oauth2/token", jwks="/oauth2/jwks", userinfo="/oauth2/userinfo",
        refresh="offline_access", claims={"sub": "user_01HZ8J4D3Q9Y6V0M2N5P7R1S3T", **MONA}),
    "keycloak": Profile(
        root=KEYCLOAK_REALM, authorize=f"{KEYCLOAK_REALM}/protocol/openid-connect/auth",
        token=f"{KEYCLOAK_REALM}/protocol/openid-connect/token",
        jwks=f"{KEYCLOAK_REALM}/protocol/openid-connect/certs",
        userinfo=f"{KEYCLOAK_REALM}/protocol/openid-connect/userinfo",
        claims={"sub": "f1d2c3b4-a5e6-4789-9abc-def012345678", "typ": "ID", "azp": CLIENT_ID,
                "preferred_username": "mona", "email_verified": True, **MONA}),
}
"""The OpenID Connect providers the fake stands in for (GitHub is not OIDC: its own routes)."""
PRESETS = ["github", "google", "entra", "auth0", "workos", "keycloak"]
"""The providers with a preset (`mcp.server.auth.proxy.presets`) the fake stands in for."""


class FakeIdP:
    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.profile = PROFILES.get(kind, Profile())
        self.base = ""
        self.mode = "ok"
        self.key = SigningKey("RS256")
        self.codes: dict[str, dict[str, Any]] = {}
        self.access_tokens: dict[str, str] = {}
        self.refresh_tokens: dict[str, str] = {}
        self.requests: list[str] = []
        self.authorize_params: list[dict[str, str]] = []
        """The query of every authorization request (what the proxy asked the provider for)."""
        self.user = {
            "sub": "user-42",
            "id": 583231,
            "login": "octocat",
            "name": "Mona Lisa",
            "email": "mona@example.com",
        }
        if kind == "github":
            routes = [
                Route("/login/oauth/authorize", self.authorize),
                Route("/login/oauth/access_token", self.token, methods=["POST"]),
                Route("/user", self.userinfo),
            ]
        else:
            p = self.profile
            routes = [
                Route(f"{p.root}/.well-known/openid-configuration", self.discovery),
                Route(p.authorize, self.authorize),
                Route(p.token, self.token, methods=["POST"]),
                Route(p.jwks, self.jwks),
                Route(p.userinfo, self.userinfo),
            ]
        self.app = Starlette(routes=routes)

    @property
    def subject(self) -> str:
        """The user's id as the provider's preset takes it (GitHub's numeric `id`, Entra's `oid`)."""
        if self.kind == "github":
            return str(self.user["id"])
        return str(self.profile.claims[self.profile.subject])

    @property
    def issuer(self) -> str:
        return f"{self.base}{self.profile.root}{self.profile.issuer_suffix}"

    async def discovery(self, request: Request) -> Response:
        self.requests.append("discovery")
        b, p = self.base, self.profile
        document: dict[str, Any] = {
            "issuer": self.issuer,
            "authorization_endpoint": f"{b}{p.authorize}",
            "token_endpoint": f"{b}{p.token}",
            "userinfo_endpoint": f"{b}{p.userinfo}",
            "jwks_uri": f"{b}{p.jwks}",
            "response_types_supported": ["code"],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["RS256"],
            "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
        }
        if p.pkce_advertised:
            document["code_challenge_methods_supported"] = ["S256"]
        return JSONResponse(document)

    async def jwks(self, request: Request) -> Response:
        return JSONResponse({"keys": [self.key.jwk]})

    async def authorize(self, request: Request) -> Response:
        self.requests.append("authorize")
        q = request.query_params
        if q.get("client_id") != CLIENT_ID:
            return PlainTextResponse("unknown client", status_code=400)
        if self.mode == "deny":
            return RedirectResponse(
                f"{q['redirect_uri']}?{urlencode({'error': 'access_denied', 'state': q['state']})}"
            )
        code = secrets.token_urlsafe(16)
        self.codes[code] = {
            "redirect_uri": q.get("redirect_uri"),
            "challenge": q.get("code_challenge"),
            "nonce": q.get("nonce"),
            "scope": q.get("scope"),
            "offline": self._offline(q.get("scope") or "", q.get("access_type")),
        }
        self.authorize_params.append(dict(q))
        return RedirectResponse(f"{q['redirect_uri']}?{urlencode({'code': code, 'state': q['state']})}")

    def _answer(self, request: Request, body: dict[str, Any], status: int = 200) -> Response:
        if self.kind == "github":
            if "application/json" in request.headers.get("accept", ""):
                return JSONResponse(body)  # GitHub answers errors with 200 too
            return PlainTextResponse(urlencode(body), media_type="application/x-www-form-urlencoded")
        return JSONResponse(body, status_code=status)

    async def token(self, request: Request) -> Response:
        self.requests.append("token")
        form = dict(parse_qsl((await request.body()).decode()))
        client_id, secret = form.get("client_id"), form.get("client_secret")
        header = request.headers.get("authorization", "")
        if header.startswith("Basic "):
            client_id, _, secret = base64.b64decode(header[6:]).decode().partition(":")
        if (client_id, secret) != (CLIENT_ID, CLIENT_SECRET):
            return self._answer(request, {"error": "invalid_client"}, 401)
        if self.mode == "slow":
            await anyio.sleep(5)
        if self.mode == "token_error":
            return self._answer(
                request,
                {
                    "error": "bad_verification_code",
                    "error_description": "The code passed is incorrect or expired.",
                },
                400,
            )
        if form.get("grant_type") == "refresh_token":
            user = self.refresh_tokens.pop(str(form.get("refresh_token")), None)
            if user is None:
                return self._answer(request, {"error": "invalid_grant"}, 400)
            return self._answer(request, self._tokens(None, offline=True))
        grant = self.codes.pop(str(form.get("code")), None)
        if grant is None or grant["redirect_uri"] != form.get("redirect_uri"):
            return self._answer(request, {"error": "invalid_grant"}, 400)
        if grant["challenge"] is not None:
            digest = hashlib.sha256(str(form.get("code_verifier")).encode()).digest()
            if base64.urlsafe_b64encode(digest).decode().rstrip("=") != grant["challenge"]:
                return self._answer(request, {"error": "invalid_grant", "error_description": "PKCE"}, 400)
        return self._answer(request, self._tokens(grant["nonce"], offline=grant["offline"]))

    def _offline(self, scope: str, access_type: str | None) -> bool:
        """Whether this provider hands out a refresh token for the authorization request."""
        rule = self.profile.refresh
        if rule == "offline_access":
            return "offline_access" in scope.split()
        return access_type == "offline" if rule == "access_type" else True

    def _tokens(self, nonce: str | None, offline: bool) -> dict[str, Any]:
        access = ("gho_" if self.kind == "github" else "idp_at_") + secrets.token_urlsafe(20)
        self.access_tokens[access] = "user"
        body: dict[str, Any] = {"access_token": access, "token_type": "bearer", "scope": "read:user"}
        if self.kind != "github":
            if offline:
                refresh = "idp_rt_" + secrets.token_urlsafe(20)
                self.refresh_tokens[refresh] = "user"
                body["refresh_token"] = refresh
            now = int(time.time())
            claims = {**self.profile.claims, "iss": self.issuer, "aud": CLIENT_ID, "iat": now, "exp": now + 300}
            if nonce is not None:
                claims["nonce"] = nonce
            body.update(
                expires_in=3600,
                id_token=jwt.encode(
                    claims, self.key.private_key, algorithm="RS256", headers={"kid": self.key.kid}
                ),
            )
        return body

    async def userinfo(self, request: Request) -> Response:
        self.requests.append("user")
        token = request.headers.get("authorization", "").removeprefix("Bearer ").removeprefix("token ")
        if token not in self.access_tokens:
            return JSONResponse({"message": "Bad credentials"}, status_code=401)
        if self.kind == "github":
            return JSONResponse({k: self.user[k] for k in ("login", "id", "name", "email")})
        return JSONResponse({k: v for k, v in self.profile.claims.items() if k not in ("azp", "typ", "ver")})
