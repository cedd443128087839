"""`JWTVerifier`: JWT access tokens (RFC 9068) verified locally, without a call per request.

    verifier = JWTVerifier(issuer="https://auth.example.com",
                           jwks_uri="https://auth.example.com/.well-known/jwks.json")
    mcp = MCPServer("demo", token_verifier=verifier, auth=AuthSettings(
        issuer_url="https://auth.example.com", resource_server_url="https://mcp.example.com/mcp",
        validate_token_resource=True))

What a token must be to pass, in the order it is checked (the first failure is the refusal, a
`401 invalid_token` whose description says which rule it broke; the token is never logged):

1. At most `max_token_bytes` long, three base64url parts (a JWS; encrypted JWTs are refused).
2. Signed with one of `algorithms` (asymmetric only: `RS256`, `PS256`, `ES256`, `EdDSA` by
   default; `none` and the `HS*` family are never accepted, so a token "signed" with the public
   key as an HMAC secret is refused before any key is touched).
3. Signed by the configured key: `public_key` (PEM, JWK dict or key object), or the key of the
   token's `kid` in the JWK Set at `jwks_uri` (`JWKSCache`: cached, refreshed once on an unknown
   `kid`, at most once per `jwks_refresh_interval`). A key whose type or pinned `alg` does not fit
   the token's algorithm is not used.
4. `exp` present and not past, `nbf`/`iat` (when present) not in the future, each with `leeway`
   seconds of clock skew.
5. `iss` equal to `issuer` (one string, or any of several); `issuer=None` accepts any issuer and
   must be said explicitly.
6. `aud` naming this resource (RFC 8707): `audience` when given, else the server's
   `AuthSettings.resource_server_url` (bound by the server when the verifier is installed). A
   token for another resource is refused; `validate_audience=False` opts out (when the
   authorization server does not put the resource in `aud`).
7. Every scope of `required_scopes` (from `scope`, or `scp`): otherwise `403 insufficient_scope`.

The `AccessToken` carries `scopes`, `client_id` (`client_id`, else `azp`/`cid`/`appid`/`sub`),
`subject`, `expires_at`, `resource` (the matched audience) and every claim in `claims`.

A signature check costs a few hundred microseconds, and a client sends the same token with every
request: a verified token is remembered (by its SHA-256 digest) for `cache_ttl` seconds, never past
its `exp`, at most `cache_size` of them. Set `cache_ttl=0` to verify every time (a key retired by
rotation then stops working at once instead of after at most `cache_ttl`).
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any

from mcp.server.auth.provider import AccessToken, InvalidTokenError
from mcp.server.auth.verifiers import _claims
from mcp.server.auth.verifiers.jwks import JWKSCache, SigningKey

logger = logging.getLogger("mcp.server.auth.jwt")

DEFAULT_ALGORITHMS = ("RS256", "PS256", "ES256", "EdDSA")
_KEY_TYPES = {"RS": "RSA", "PS": "RSA", "ES": "EC", "Ed": "OKP"}
_NEVER = ("none", "HS256", "HS384", "HS512")


def _key_type(algorithm: str) -> str | None:
    return _KEY_TYPES.get(algorithm[:2])


class JWTVerifier:
    """A `TokenVerifier` for JWT access tokens (see the module docstring)."""

    def __init__(
        self,
        *,
        issuer: str | Sequence[str] | None,
        jwks_uri: str | None = None,
        public_key: str | bytes | Mapping[str, Any] | Any = None,
        audience: str | Sequence[str] | None = None,
        validate_audience: bool = True,
        algorithms: Sequence[str] = DEFAULT_ALGORITHMS,
        required_scopes: Sequence[str] = (),
        leeway: float = 30.0,
        max_token_bytes: int = 16 * 1024,
        jwks_cache_ttl: float = 300.0,
        jwks_refresh_interval: float = 30.0,
        jwks_timeout: float = 5.0,
        cache_ttl: float = 60.0,
        cache_size: int = 4096,
    ) -> None:
        if (jwks_uri is None) == (public_key is None):
            raise ValueError("JWTVerifier needs exactly one of jwks_uri= or public_key=")
        refused = [alg for alg in algorithms if alg in _NEVER or _key_type(alg) is None]
        if refused or not algorithms:
            raise ValueError(f"JWTVerifier verifies asymmetric signatures only; not accepted: {refused or 'none given'}")
        self.issuer = [issuer] if isinstance(issuer, str) else (list(issuer) if issuer is not None else None)
        self.audience = [audience] if isinstance(audience, str) else (list(audience) if audience else None)
        self.validate_audience = validate_audience
        self.algorithms = list(algorithms)
        self.required_scopes = list(required_scopes)
        self.leeway = leeway
        self.max_token_bytes = max_token_bytes
        self.jwks = JWKSCache(jwks_uri, cache_ttl=jwks_cache_ttl, refresh_interval=jwks_refresh_interval,
                              timeout=jwks_timeout) if jwks_uri is not None else None
        self._static = _static_key(public_key) if public_key is not None else None
        self._bound_resource: str | None = None
        self.cache_ttl = cache_ttl
        self.cache_size = cache_size
        self._cache: OrderedDict[bytes, tuple[float, AccessToken]] = OrderedDict()

    def bind_resource(self, resource: str) -> None:
        """Accept tokens for `resource` when no `audience` was configured (the server calls this
        with its `resource_server_url`)."""
        self._bound_resource = resource
        self._cache.clear()

    async def verify_token(self, token: str) -> AccessToken | None:
        digest = hashlib.sha256(token.encode("utf-8", "surrogatepass")).digest() if self.cache_ttl > 0 else b""
        cached = self._cache.get(digest) if digest else None
        if cached is not None:
            if time.time() < cached[0]:
                self._cache.move_to_end(digest)
                _claims.require_scopes(cached[1].scopes, self.required_scopes)
                return cached[1]
            del self._cache[digest]
        try:
            access = await self._verify(token)
        except InvalidTokenError as exc:
            logger.info("JWT %s refused: %s", _claims.token_fingerprint(token), exc.description)
            raise
        if digest:
            until = time.time() + self.cache_ttl
            if access.expires_at is not None:
                until = min(until, access.expires_at)
            self._cache[digest] = (until, access)
            while len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)
        _claims.require_scopes(access.scopes, self.required_scopes)
        return access

    async def _verify(self, token: str) -> AccessToken:
        import jwt

        if len(token) > self.max_token_bytes:
            raise InvalidTokenError("Token is too large")
        if token.count(".") != 2:
            raise InvalidTokenError("Token is malformed")
        try:
            header = jwt.get_unverified_header(token)
        except Exception:  # bad base64 or JSON, or JSON nested deep enough to exhaust the parser
            raise InvalidTokenError("Token is malformed") from None
        algorithm = header.get("alg")
        if not isinstance(algorithm, str) or algorithm not in self.algorithms:
            raise InvalidTokenError("Token signing algorithm is not accepted")
        kid = header.get("kid")
        keys = await self._candidate_keys(kid if isinstance(kid, str) else None, algorithm)
        claims = self._decode(token, algorithm, keys)
        for name in ("exp", "nbf", "iat"):  # NumericDate (RFC 7519 §2): a JSON number, not "123" or true
            value = claims.get(name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int | float)):
                raise InvalidTokenError(f"Token has a malformed {name} claim")
        resource = self._check_audience(claims)
        return _claims.access_token(token, claims, resource=resource)

    async def _candidate_keys(self, kid: str | None, algorithm: str) -> list[SigningKey]:
        if self._static is not None:
            keys = [self._static]
        else:
            assert self.jwks is not None
            keys = await self.jwks.find(kid)
            if not keys:
                known = await self.jwks.keys()
                raise InvalidTokenError("Token signing key is unknown" if known
                                        else "Token signing keys are unavailable")
        usable = [key for key in keys if key.kty == _key_type(algorithm) and key.alg in (None, algorithm)]
        if not usable:
            raise InvalidTokenError("Token signing key does not fit its algorithm")
        return usable

    def _decode(self, token: str, algorithm: str, keys: list[SigningKey]) -> dict[str, Any]:
        import jwt

        options: Any = {"require": ["exp"], "verify_aud": False}
        for index, key in enumerate(keys):
            try:
                return jwt.decode(token, key.key, algorithms=[algorithm], issuer=self.issuer,
                                  leeway=self.leeway, options=options)
            except jwt.InvalidSignatureError:
                if index == len(keys) - 1:
                    raise InvalidTokenError("Token signature is invalid") from None
            except jwt.ExpiredSignatureError:
                raise InvalidTokenError("Token has expired") from None
            except jwt.ImmatureSignatureError:
                raise InvalidTokenError("Token is not yet valid") from None
            except jwt.InvalidIssuerError:
                raise InvalidTokenError("Token issuer is not accepted") from None
            except jwt.MissingRequiredClaimError as exc:
                raise InvalidTokenError(f"Token lacks the {exc.claim} claim") from None
            except jwt.DecodeError:
                raise InvalidTokenError("Token is malformed") from None
            except (jwt.PyJWTError, ValueError, TypeError, OverflowError):
                raise InvalidTokenError("Token is invalid") from None
            except RecursionError:
                raise InvalidTokenError("Token is malformed") from None
        raise InvalidTokenError("Token signature is invalid")  # pragma: no cover - keys is never empty

    def _check_audience(self, claims: Mapping[str, Any]) -> str | None:
        if not self.validate_audience:
            audiences = _claims.claim_audiences(claims)
            return audiences[0] if audiences else None
        accepted = self.audience or ([self._bound_resource] if self._bound_resource else [])
        if not accepted:
            logger.error("JWTVerifier has no audience: pass audience=, set AuthSettings.resource_server_url, "
                         "or opt out with validate_audience=False; refusing every token")
            raise InvalidTokenError("Token was not issued for this resource")
        return _claims.matched_audience(claims, accepted)


def _static_key(public_key: Any) -> SigningKey:
    """A `SigningKey` from a PEM public key or certificate, a JWK dict, or a key object."""
    from cryptography import x509
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec, ed448, ed25519, rsa

    from mcp.server.auth.verifiers.jwks import parse_jwks

    if isinstance(public_key, Mapping):
        keys = parse_jwks({"keys": [dict(public_key)]})  # pyright: ignore[reportUnknownArgumentType]
        if not keys:
            raise ValueError("public_key is not a usable public signature JWK")
        return keys[0]
    key: Any = public_key
    if isinstance(key, str | bytes):
        data = key.encode() if isinstance(key, str) else key
        if b"-----BEGIN CERTIFICATE-----" in data:
            key = x509.load_pem_x509_certificate(data).public_key()
        else:
            key = serialization.load_pem_public_key(data)
    if hasattr(key, "public_key") and not isinstance(key, x509.Certificate):
        key = key.public_key()  # a private key object: verify with its public half
    if isinstance(key, rsa.RSAPublicKey):
        return SigningKey(kid=None, alg=None, kty="RSA", key=key)
    if isinstance(key, ec.EllipticCurvePublicKey):
        return SigningKey(kid=None, alg=None, kty="EC", key=key)
    if isinstance(key, ed25519.Ed25519PublicKey | ed448.Ed448PublicKey):
        return SigningKey(kid=None, alg=None, kty="OKP", key=key)
    raise ValueError(f"public_key must be an RSA, EC or Ed25519/Ed448 public key, got {type(key).__name__}")


__all__ = ["DEFAULT_ALGORITHMS", "JWTVerifier"]
