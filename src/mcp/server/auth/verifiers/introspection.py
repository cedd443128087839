"""`IntrospectionVerifier`: opaque tokens checked at the authorization server (RFC 7662).

    verifier = IntrospectionVerifier(
        introspection_endpoint="https://auth.example.com/oauth/introspect",
        client_id="mcp-resource-server", client_secret=os.environ["INTROSPECTION_SECRET"])

Each unknown token is POSTed (`token`, `token_type_hint=access_token`) to the endpoint, the resource
server authenticating as a client (`client_secret_basic` by default, or `client_secret_post`). A
token passes when the answer says `"active": true`, its `exp` (if any) is not past, its `iss`
is `issuer` (when configured and present) and its `aud` names this resource (RFC 8707; `audience`,
else the server's `resource_server_url`; `validate_audience=False` opts out, for servers that do
not return `aud`). `required_scopes` gives `403 insufficient_scope`.

Active answers are cached for `cache_ttl` seconds (never beyond the token's `exp`), keyed by the
token's digest, at most `max_cache_entries` of them; inactive answers are not cached, so a token
activated later is not held back. The endpoint being down, slow (`timeout`) or answering
anything but a JSON object is a refusal (`401`), logged without the token.
"""

from __future__ import annotations

import base64
import hashlib
import logging
import time
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any, Literal, cast
from urllib.parse import quote

import anyio

from mcp.server.auth.provider import AccessToken, InvalidTokenError
from mcp.server.auth.verifiers import _claims

logger = logging.getLogger("mcp.server.auth.introspection")


class IntrospectionVerifier:
    """A `TokenVerifier` asking an RFC 7662 introspection endpoint (see the module docstring)."""

    def __init__(
        self,
        *,
        introspection_endpoint: str,
        client_id: str,
        client_secret: str,
        client_auth_method: Literal["client_secret_basic", "client_secret_post"] = "client_secret_basic",
        issuer: str | None = None,
        audience: str | Sequence[str] | None = None,
        validate_audience: bool = True,
        required_scopes: Sequence[str] = (),
        cache_ttl: float = 30.0,
        max_cache_entries: int = 10_000,
        timeout: float = 5.0,
        leeway: float = 30.0,
    ) -> None:
        if client_auth_method not in ("client_secret_basic", "client_secret_post"):
            raise ValueError(f"unsupported client_auth_method {client_auth_method!r}")
        self.introspection_endpoint = introspection_endpoint
        self.client_id = client_id
        self._client_secret = client_secret
        self.client_auth_method = client_auth_method
        self.issuer = issuer
        self.audience = [audience] if isinstance(audience, str) else (list(audience) if audience else None)
        self.validate_audience = validate_audience
        self.required_scopes = list(required_scopes)
        self.cache_ttl = cache_ttl
        self.max_cache_entries = max_cache_entries
        self.timeout = timeout
        self.leeway = leeway
        self.requests = 0
        """How many introspection requests were made."""
        self._cache: OrderedDict[bytes, tuple[float, AccessToken]] = OrderedDict()
        self._bound_resource: str | None = None

    def bind_resource(self, resource: str) -> None:
        """Accept tokens for `resource` when no `audience` was configured."""
        self._bound_resource = resource

    async def verify_token(self, token: str) -> AccessToken | None:
        key = hashlib.sha256(token.encode("utf-8", "surrogatepass")).digest()
        cached = self._cache.get(key)
        if cached is not None:
            if time.monotonic() < cached[0]:
                self._cache.move_to_end(key)
                _claims.require_scopes(cached[1].scopes, self.required_scopes)
                return cached[1]
            del self._cache[key]
        try:
            answer = await self._introspect(token)
            access = self._check(token, answer)
        except InvalidTokenError as exc:
            logger.info("token %s refused: %s", _claims.token_fingerprint(token), exc.description)
            raise
        lifetime = self.cache_ttl
        if access.expires_at is not None:
            lifetime = min(lifetime, access.expires_at - time.time())
        if lifetime > 0:
            self._cache[key] = (time.monotonic() + lifetime, access)
            while len(self._cache) > self.max_cache_entries:
                self._cache.popitem(last=False)
        _claims.require_scopes(access.scopes, self.required_scopes)
        return access

    async def _introspect(self, token: str) -> dict[str, Any]:
        import httpx

        data = {"token": token, "token_type_hint": "access_token"}
        headers = {"Accept": "application/json"}
        if self.client_auth_method == "client_secret_basic":
            pair = f"{quote(self.client_id, safe='')}:{quote(self._client_secret, safe='')}"
            headers["Authorization"] = "Basic " + base64.b64encode(pair.encode()).decode("ascii")
        else:
            data.update(client_id=self.client_id, client_secret=self._client_secret)
        self.requests += 1
        try:
            with anyio.fail_after(self.timeout):
                async with httpx.AsyncClient(timeout=httpx.Timeout(self.timeout), follow_redirects=False) as client:
                    response = await client.post(self.introspection_endpoint, data=data, headers=headers)
        except Exception as exc:
            logger.warning("introspection endpoint %s unreachable (%s)", self.introspection_endpoint,
                           type(exc).__name__)
            raise InvalidTokenError("Token could not be verified") from None
        if response.status_code != 200:
            logger.warning("introspection endpoint %s answered HTTP %d", self.introspection_endpoint,
                           response.status_code)
            raise InvalidTokenError("Token could not be verified")
        try:
            answer: Any = response.json()
        except Exception:  # not JSON, or nested past the parser's depth
            answer = None
        if not isinstance(answer, dict):
            logger.warning("introspection endpoint %s answered no JSON object", self.introspection_endpoint)
            raise InvalidTokenError("Token could not be verified")
        return cast(dict[str, Any], answer)

    def _check(self, token: str, answer: dict[str, Any]) -> AccessToken:
        if answer.get("active") is not True:
            raise InvalidTokenError("Token is not active")
        expires = answer.get("exp")
        if isinstance(expires, int | float) and expires + self.leeway < time.time():
            raise InvalidTokenError("Token has expired")
        not_before = answer.get("nbf")
        if isinstance(not_before, int | float) and not_before - self.leeway > time.time():
            raise InvalidTokenError("Token is not yet valid")
        if self.issuer is not None and "iss" in answer and answer["iss"] != self.issuer:
            raise InvalidTokenError("Token issuer is not accepted")
        resource: str | None
        if self.validate_audience:
            accepted = self.audience or ([self._bound_resource] if self._bound_resource else [])
            if not accepted:
                logger.error("IntrospectionVerifier has no audience: pass audience=, set "
                             "AuthSettings.resource_server_url, or opt out with validate_audience=False")
                raise InvalidTokenError("Token was not issued for this resource")
            resource = _claims.matched_audience(answer, accepted)
        else:
            audiences = _claims.claim_audiences(answer)
            resource = audiences[0] if audiences else None
        return _claims.access_token(token, answer, resource=resource)


__all__ = ["IntrospectionVerifier"]
