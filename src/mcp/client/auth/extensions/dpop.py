"""DPoP (RFC 9449, MCP SEP-1932): sender-constrained access tokens for any OAuth provider.

    auth = DPoPAuth(OAuthClientProvider(...))          # or any provider of this package
    async with httpx.AsyncClient(auth=auth) as http: ...

`DPoPAuth` wraps another `httpx.Auth` flow and leaves the OAuth logic to it. On the way out it
signs a DPoP proof (`typ: dpop+jwt`, the public key in `jwk`, `htm`, `htu`, a fresh `jti`, `iat`)
into the `DPoP` header of every token request, so the authorization server can bind the token to
the key (`cnf.jkt`); and when the token it got back is of type `DPoP` it presents it as
`Authorization: DPoP <token>` with a fresh proof carrying `ath` (the token's hash) on every request.
A server that demands a nonce (`400 use_dpop_nonce` from the token endpoint, `401` with a
`DPoP error="use_dpop_nonce"` challenge from the resource server) gets the request once more with
the nonce from its `DPoP-Nonce` header; nonces are remembered per origin, and updated from any
response that carries one (RFC 9449 §8, §9).

The key lives in memory (`DPoPKey.generate()`, ES256) unless one is given: a token bound to a
key cannot be used without it, so persist the key with the tokens if you persist tokens.
Needs PyJWT with `cryptography` (the `auth` extra), imported on first use.
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import secrets
import time
from collections.abc import AsyncGenerator, Generator
from typing import Any, cast
from urllib.parse import urlsplit, urlunsplit

import httpx

from mcp.client.auth import utils

logger = logging.getLogger("mcp.client.auth.dpop")

Flow = AsyncGenerator[httpx.Request, httpx.Response]
"""An `httpx.Auth` async flow (`DPoPAuth` is an auth of `httpx` clients)."""

DPOP_HEADER = "DPoP"
DPOP_NONCE_HEADER = "DPoP-Nonce"
USE_DPOP_NONCE = "use_dpop_nonce"
_THUMBPRINT_MEMBERS = {"EC": ("crv", "kty", "x", "y"), "RSA": ("e", "kty", "n"), "OKP": ("crv", "kty", "x")}


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode("ascii").rstrip("=")


def jwk_thumbprint(jwk: dict[str, Any]) -> str:
    """The RFC 7638 SHA-256 thumbprint of a public JWK (what `cnf.jkt` of a bound token holds)."""
    members = _THUMBPRINT_MEMBERS.get(str(jwk.get("kty")))
    if members is None:
        raise ValueError(f"no thumbprint for key type {jwk.get('kty')!r}")
    canonical = json.dumps({name: jwk[name] for name in members}, separators=(",", ":"), sort_keys=True)
    return _b64url(hashlib.sha256(canonical.encode()).digest())


def access_token_hash(token: str) -> str:
    """The `ath` claim of a proof presenting `token` (RFC 9449 §4.2)."""
    return _b64url(hashlib.sha256(token.encode("ascii")).digest())


def proof_htu(url: str | httpx.URL) -> str:
    """The `htu` of a request URL: the URL without query and fragment (RFC 9449 §4.2)."""
    parts = urlsplit(str(url))
    return urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))


class DPoPKey:
    """A DPoP key pair and the proofs it signs. `DPoPKey.generate()` makes a P-256 key (ES256);
    any private key PyJWT signs with works (`algorithm` one of ES256/ES384/ES512, RS256, PS256,
    EdDSA...)."""

    def __init__(self, private_key: Any, algorithm: str = "ES256") -> None:
        from jwt.algorithms import get_default_algorithms

        algorithms = get_default_algorithms()
        if algorithm not in algorithms or algorithm.startswith("HS") or algorithm == "none":
            raise ValueError(f"DPoP needs an asymmetric signing algorithm, got {algorithm!r}")
        self.private_key = private_key
        self.algorithm = algorithm
        public = private_key.public_key()
        jwk: dict[str, Any] = json.loads(algorithms[algorithm].to_jwk(public))
        self.public_jwk = {k: v for k, v in jwk.items() if k in _THUMBPRINT_MEMBERS.get(str(jwk.get("kty")), ())}
        self.thumbprint = jwk_thumbprint(self.public_jwk)

    @classmethod
    def generate(cls) -> DPoPKey:
        from cryptography.hazmat.primitives.asymmetric import ec

        return cls(ec.generate_private_key(ec.SECP256R1()), "ES256")

    def proof(self, method: str, url: str | httpx.URL, *, access_token: str | None = None,
              nonce: str | None = None) -> str:
        """A fresh proof for one request: `htm`, `htu`, a random `jti`, `iat`, plus `ath` when
        presenting `access_token` and `nonce` when the server supplied one."""
        import jwt

        claims: dict[str, Any] = {
            "jti": secrets.token_urlsafe(16),
            "htm": method.upper(),
            "htu": proof_htu(url),
            "iat": int(time.time()),
        }
        if access_token is not None:
            claims["ath"] = access_token_hash(access_token)
        if nonce is not None:
            claims["nonce"] = nonce
        headers = {"typ": "dpop+jwt", "jwk": self.public_jwk}
        return jwt.encode(claims, self.private_key, algorithm=self.algorithm, headers=headers)


class DPoPAuth(httpx.Auth):
    """DPoP on top of an OAuth provider's flow (see the module docstring). `inner` is an
    `OAuthClientProvider` or one of the extension providers (anything with a `context` holding the
    authorization server metadata and the current tokens)."""

    requires_response_body = False
    """Streams stay streams: only the challenge responses that need it are read."""

    def __init__(self, inner: httpx.Auth, key: DPoPKey | None = None) -> None:
        self.inner = inner
        self.key = key if key is not None else DPoPKey.generate()
        self._nonces: dict[str, str] = {}

    def sync_auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        raise RuntimeError("DPoPAuth is asynchronous: use it with httpx.AsyncClient")
        yield request  # a generator, as httpx.Auth flows are

    async def async_auth_flow(self, request: httpx.Request) -> Flow:
        flow = self.inner.async_auth_flow(request)
        try:
            outgoing = await flow.__anext__()
            while True:
                kind = self._prove(outgoing)
                response = yield outgoing
                self._remember_nonce(outgoing, response)
                if kind is not None and await self._nonce_demanded(kind, response):
                    logger.debug("DPoP nonce demanded by %s: retrying with it", utils.origin(str(outgoing.url)))
                    self._prove(outgoing)
                    response = yield outgoing
                    self._remember_nonce(outgoing, response)
                outgoing = await flow.asend(response)
        except StopAsyncIteration:
            return
        finally:
            await flow.aclose()

    # -- signing --------------------------------------------------------------------------------

    def _prove(self, request: httpx.Request) -> str | None:
        """Put a fresh proof on `request` if it needs one: `"token"` for a token request,
        `"resource"` for a request presenting a DPoP-bound token, `None` otherwise."""
        nonce = self._nonces.get(utils.origin(str(request.url)))
        if self._is_token_request(request):
            request.headers[DPOP_HEADER] = self.key.proof(request.method, request.url, nonce=nonce)
            return "token"
        token = self._bound_token()
        if token is None:
            return None
        scheme, _, credentials = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() not in ("bearer", "dpop") or credentials.strip() != token:
            return None
        request.headers["Authorization"] = f"DPoP {token}"
        request.headers[DPOP_HEADER] = self.key.proof(request.method, request.url, access_token=token, nonce=nonce)
        return "resource"

    def _is_token_request(self, request: httpx.Request) -> bool:
        metadata = getattr(getattr(self.inner, "context", None), "oauth_metadata", None)
        if metadata is None or request.method != "POST":
            return False
        algs: list[str] | None = getattr(metadata, "dpop_signing_alg_values_supported", None)
        if algs is not None and self.key.algorithm not in algs:
            return False  # the server does not take our key's algorithm: a plain bearer token
        return proof_htu(request.url) == proof_htu(str(metadata.token_endpoint))

    def _bound_token(self) -> str | None:
        tokens = getattr(getattr(self.inner, "context", None), "current_tokens", None)
        if tokens is None or str(getattr(tokens, "token_type", "")).lower() != "dpop":
            return None
        return tokens.access_token

    # -- nonces ---------------------------------------------------------------------------------

    def _remember_nonce(self, request: httpx.Request, response: httpx.Response) -> None:
        nonce = response.headers.get(DPOP_NONCE_HEADER)
        if nonce:
            self._nonces[utils.origin(str(request.url))] = nonce

    async def _nonce_demanded(self, kind: str, response: httpx.Response) -> bool:
        if not response.headers.get(DPOP_NONCE_HEADER):
            return False
        if kind == "resource":
            if response.status_code != 401:
                return False
            challenge = utils.parse_www_authenticate(response.headers.get("www-authenticate"), "DPoP") or {}
            return challenge.get("error") == USE_DPOP_NONCE
        if response.status_code != 400:
            return False
        await response.aread()
        try:
            body: Any = response.json()
        except ValueError:
            return False
        return isinstance(body, dict) and cast(dict[str, Any], body).get("error") == USE_DPOP_NONCE


__all__ = ["DPoPAuth", "DPoPKey", "access_token_hash", "jwk_thumbprint", "proof_htu"]
