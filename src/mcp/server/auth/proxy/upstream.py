"""The identity provider behind an `OAuthProxy`: its endpoints, the proxy's one pre-registered
client there, and how it says who the user is.

`UpstreamProvider` is configuration (a preset fills it in a few lines). `UpstreamClient` speaks to
the provider: the authorization URL (authorization code, with PKCE S256 unless the provider cannot
take it), the code exchange and refresh with the proxy's client credentials, and the identity:

- `"id_token"`: the OpenID Connect ID token of the token response, verified against the
  provider's JWKS (signature, `iss`, `aud` = our client id, expiry, the `nonce` we sent);
- `"userinfo"`: the OpenID Connect userinfo endpoint, called with the upstream access token;
- `"github"`: GitHub's `/user` API (opaque tokens, the numeric `id` as subject, `login` etc.).

With `discovery_url` (OpenID Connect discovery), the endpoints not given are read from the
provider's `/.well-known/openid-configuration` on first use. Every call is bounded by `timeout`; a
provider that answers an error, garbage or nothing raises `UpstreamError`, whose text names the
provider and the failure but never a token or secret.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import parse_qsl, urlencode

import anyio
import httpx

logger = logging.getLogger("mcp.server.auth.proxy")

IdentitySource = Literal["id_token", "userinfo", "github"]


class UpstreamError(Exception):
    """The identity provider refused, failed or did not answer; the message is safe to show."""


@dataclass
class UpstreamProvider:
    """The identity provider and the proxy's registration there (see the module docstring)."""

    client_id: str
    client_secret: str = field(repr=False)
    authorization_endpoint: str | None = None
    token_endpoint: str | None = None
    scopes: Sequence[str] = ()
    identity: IdentitySource = "id_token"
    userinfo_endpoint: str | None = None
    issuer: str | None = None
    jwks_uri: str | None = None
    discovery_url: str | None = None
    token_endpoint_auth_method: Literal["client_secret_post", "client_secret_basic"] = "client_secret_post"
    use_pkce: bool = True
    subject_claim: str = "sub"
    extra_authorize_params: Mapping[str, str] = field(default_factory=dict[str, str])
    verify_issuer: bool = True
    name: str = "upstream"
    timeout: float = 10.0


@dataclass(frozen=True)
class UpstreamIdentity:
    """Who signed in upstream: a stable `subject` and the claims the provider gave."""

    subject: str
    claims: dict[str, Any]


class UpstreamClient:
    """Talks to an `UpstreamProvider` (see the module docstring)."""

    def __init__(self, provider: UpstreamProvider) -> None:
        self.provider = provider
        self._discovered = provider.discovery_url is None
        self._lock = anyio.Lock()
        self._jwks: Any = None

    async def ready(self) -> UpstreamProvider:
        """The provider with its endpoints known (discovered once, when configured so)."""
        if not self._discovered:
            async with self._lock:
                if not self._discovered:
                    await self._discover()
                    self._discovered = True
        p = self.provider
        if not p.authorization_endpoint or not p.token_endpoint:
            raise UpstreamError(f"{p.name}: authorization and token endpoints are not configured")
        return p

    async def _discover(self) -> None:
        p = self.provider
        assert p.discovery_url is not None
        document = await self._json("GET", p.discovery_url, what="discovery document")
        if p.issuer is None:
            p.issuer = _string(document, "issuer")
        for name in ("authorization_endpoint", "token_endpoint", "userinfo_endpoint", "jwks_uri"):
            if getattr(p, name) is None:
                setattr(p, name, _string(document, name))
        methods = document.get("code_challenge_methods_supported")
        if isinstance(methods, list) and "S256" not in methods:
            p.use_pkce = (
                False  # the provider says it cannot; confidential client credentials still bind the code
            )
        auth_methods = document.get("token_endpoint_auth_methods_supported")
        if (
            isinstance(auth_methods, list)
            and p.token_endpoint_auth_method not in auth_methods
            and "client_secret_basic" in auth_methods
        ):
            p.token_endpoint_auth_method = "client_secret_basic"

    def authorization_url(
        self, *, redirect_uri: str, state: str, code_challenge: str | None, nonce: str | None
    ) -> str:
        p = self.provider
        params: dict[str, str] = {
            "response_type": "code",
            "client_id": p.client_id,
            "redirect_uri": redirect_uri,
            "state": state,
        }
        if p.scopes:
            params["scope"] = " ".join(p.scopes)
        if code_challenge is not None:
            params["code_challenge"] = code_challenge
            params["code_challenge_method"] = "S256"
        if nonce is not None:
            params["nonce"] = nonce
        params.update(p.extra_authorize_params)
        separator = "&" if "?" in (p.authorization_endpoint or "") else "?"
        return f"{p.authorization_endpoint}{separator}{urlencode(params)}"

    async def exchange_code(
        self, *, code: str, redirect_uri: str, code_verifier: str | None
    ) -> dict[str, Any]:
        """The provider's token response for `code` (its `error` raised as `UpstreamError`)."""
        form = {"grant_type": "authorization_code", "code": code, "redirect_uri": redirect_uri}
        if code_verifier is not None:
            form["code_verifier"] = code_verifier
        return await self._token_request(form)

    async def refresh(self, refresh_token: str) -> dict[str, Any]:
        """A fresh token response for the upstream `refresh_token`."""
        return await self._token_request({"grant_type": "refresh_token", "refresh_token": refresh_token})

    async def _token_request(self, form: dict[str, str]) -> dict[str, Any]:
        p = await self.ready()
        auth: tuple[str, str] | None = None
        if p.token_endpoint_auth_method == "client_secret_basic":
            auth = (p.client_id, p.client_secret)
        else:
            form = {**form, "client_id": p.client_id, "client_secret": p.client_secret}
        body = await self._json("POST", p.token_endpoint or "", what="token endpoint", data=form, auth=auth)
        if "error" in body:
            raise UpstreamError(f"{p.name} refused the token request: {_describe(body)}")
        if not isinstance(body.get("access_token"), str):
            raise UpstreamError(f"{p.name} token response has no access_token")
        return body

    async def identity(self, tokens: Mapping[str, Any], nonce: str | None) -> UpstreamIdentity:
        """Who the tokens belong to (see the module docstring for the sources)."""
        p = await self.ready()
        if p.identity == "id_token":
            claims = await self._id_token_claims(tokens, nonce)
        else:
            url = p.userinfo_endpoint or ("https://api.github.com/user" if p.identity == "github" else None)
            if url is None:
                raise UpstreamError(f"{p.name}: no userinfo endpoint configured")
            headers = {"Authorization": f"Bearer {tokens['access_token']}"}
            if p.identity == "github":
                headers["Accept"] = "application/vnd.github+json"
            claims = await self._json("GET", url, what="user info", headers=headers)
        subject = claims.get(p.subject_claim)
        if isinstance(subject, bool) or not isinstance(subject, str | int) or subject == "":
            raise UpstreamError(f"{p.name}: the identity has no {p.subject_claim!r} claim")
        return UpstreamIdentity(subject=str(subject), claims=claims)

    async def _id_token_claims(self, tokens: Mapping[str, Any], nonce: str | None) -> dict[str, Any]:
        import jwt

        p = self.provider
        raw = tokens.get("id_token")
        if not isinstance(raw, str):
            raise UpstreamError(f"{p.name} returned no id_token")
        if p.jwks_uri is None:
            raise UpstreamError(f"{p.name}: no jwks_uri to verify the id_token with")
        if self._jwks is None:
            from mcp.server.auth.verifiers.jwks import JWKSCache

            self._jwks = JWKSCache(p.jwks_uri, timeout=p.timeout)
        try:
            header = jwt.get_unverified_header(raw)
            keys = await self._jwks.find(header.get("kid"))
            algorithm = str(header.get("alg", ""))
            if algorithm in ("none", "") or algorithm.startswith("HS"):
                raise UpstreamError(f"{p.name}: id_token algorithm {algorithm!r} is not accepted")
            for key in keys:
                try:
                    claims: dict[str, Any] = jwt.decode(
                        raw,
                        key.key,
                        algorithms=[algorithm],
                        audience=p.client_id,
                        issuer=p.issuer,
                        leeway=30,
                        options={
                            "require": ["exp", "iat", "sub"],
                            "verify_iss": p.issuer is not None and p.verify_issuer,
                        },
                    )
                    break
                except jwt.InvalidSignatureError:
                    continue
            else:
                raise UpstreamError(f"{p.name}: id_token signature does not verify")
        except jwt.PyJWTError as exc:
            raise UpstreamError(f"{p.name}: id_token refused ({type(exc).__name__})") from None
        if nonce is not None and claims.get("nonce") != nonce:
            raise UpstreamError(f"{p.name}: id_token nonce does not match")
        return claims

    async def _json(
        self,
        method: str,
        url: str,
        *,
        what: str,
        data: dict[str, str] | None = None,
        headers: dict[str, str] | None = None,
        auth: tuple[str, str] | None = None,
    ) -> dict[str, Any]:
        p = self.provider
        try:
            async with httpx.AsyncClient(timeout=p.timeout, follow_redirects=False) as http:
                response = await http.request(
                    method,
                    url,
                    data=data,
                    auth=auth,
                    headers={"Accept": "application/json", **(headers or {})},
                )
        except httpx.TimeoutException:
            raise UpstreamError(f"{p.name} did not answer in time ({what})") from None
        except httpx.HTTPError as exc:
            raise UpstreamError(f"{p.name} could not be reached ({what}): {type(exc).__name__}") from None
        body = _parse(response)
        if response.status_code >= 400:
            detail = _describe(body) if body is not None else f"HTTP {response.status_code}"
            raise UpstreamError(f"{p.name} answered an error ({what}): {detail}")
        if body is None:
            raise UpstreamError(f"{p.name} answered something that is not a JSON object ({what})")
        return body


def _parse(response: httpx.Response) -> dict[str, Any] | None:
    """The body as an object: JSON, or a form-encoded token response (GitHub without Accept)."""
    try:
        value = response.json()
    except ValueError:
        if "x-www-form-urlencoded" in response.headers.get("content-type", ""):
            return dict(parse_qsl(response.text))
        return None
    return value if isinstance(value, dict) else None  # pyright: ignore[reportUnknownVariableType]


def _describe(body: Mapping[str, Any]) -> str:
    """The provider's `error` and `error_description`, shortened (never a token: only these fields)."""
    error = str(body.get("error", "error"))[:100]
    description = body.get("error_description")
    return f"{error}: {str(description)[:200]}" if description else error


def _string(document: Mapping[str, Any], name: str) -> str | None:
    value = document.get(name)
    return value if isinstance(value, str) else None


__all__ = ["IdentitySource", "UpstreamClient", "UpstreamError", "UpstreamIdentity", "UpstreamProvider"]
