"""Local fakes of identity providers that do not register MCP clients, for the OAuth proxy tests,
behaving as the real ones do where the proxy can tell:

- `FakeIdP("github")`: GitHub's OAuth App endpoints: `/login/oauth/authorize`,
  `/login/oauth/access_token` (form-encoded answers unless asked for JSON, errors as HTTP 200 with
  `error`), opaque tokens, the user from `GET /user` (numeric `id`, `login`).
- `FakeIdP("oidc")`: an OpenID Connect provider: discovery document, `/authorize`, `/token` (JSON,
  RS256 `id_token` with the nonce, refresh tokens), `/jwks`, `/userinfo`.

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


class FakeIdP:
    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.base = ""
        self.mode = "ok"
        self.key = SigningKey("RS256")
        self.codes: dict[str, dict[str, Any]] = {}
        self.access_tokens: dict[str, str] = {}
        self.refresh_tokens: dict[str, str] = {}
        self.requests: list[str] = []
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
            routes = [
                Route("/.well-known/openid-configuration", self.discovery),
                Route("/authorize", self.authorize),
                Route("/token", self.token, methods=["POST"]),
                Route("/jwks", self.jwks),
                Route("/userinfo", self.userinfo),
            ]
        self.app = Starlette(routes=routes)

    async def discovery(self, request: Request) -> Response:
        self.requests.append("discovery")
        b = self.base
        return JSONResponse(
            {
                "issuer": b,
                "authorization_endpoint": f"{b}/authorize",
                "token_endpoint": f"{b}/token",
                "userinfo_endpoint": f"{b}/userinfo",
                "jwks_uri": f"{b}/jwks",
                "response_types_supported": ["code"],
                "subject_types_supported": ["public"],
                "id_token_signing_alg_values_supported": ["RS256"],
                "code_challenge_methods_supported": ["S256"],
                "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
            }
        )

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
        }
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
            return self._answer(request, self._tokens(None))
        grant = self.codes.pop(str(form.get("code")), None)
        if grant is None or grant["redirect_uri"] != form.get("redirect_uri"):
            return self._answer(request, {"error": "invalid_grant"}, 400)
        if grant["challenge"] is not None:
            digest = hashlib.sha256(str(form.get("code_verifier")).encode()).digest()
            if base64.urlsafe_b64encode(digest).decode().rstrip("=") != grant["challenge"]:
                return self._answer(request, {"error": "invalid_grant", "error_description": "PKCE"}, 400)
        return self._answer(request, self._tokens(grant["nonce"]))

    def _tokens(self, nonce: str | None) -> dict[str, Any]:
        access = ("gho_" if self.kind == "github" else "idp_at_") + secrets.token_urlsafe(20)
        self.access_tokens[access] = "user"
        body: dict[str, Any] = {"access_token": access, "token_type": "bearer", "scope": "read:user"}
        if self.kind == "oidc":
            refresh = "idp_rt_" + secrets.token_urlsafe(20)
            self.refresh_tokens[refresh] = "user"
            now = int(time.time())
            claims = {
                "iss": self.base,
                "aud": CLIENT_ID,
                "sub": self.user["sub"],
                "email": self.user["email"],
                "name": self.user["name"],
                "iat": now,
                "exp": now + 300,
            }
            if nonce is not None:
                claims["nonce"] = nonce
            body.update(
                refresh_token=refresh,
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
        return JSONResponse({k: self.user[k] for k in ("sub", "name", "email")})
