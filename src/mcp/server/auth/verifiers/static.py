"""`StaticTokenVerifier`: a fixed table of bearer tokens, for development, demos and tests.

    verifier = StaticTokenVerifier({
        "dev-token": {"client_id": "alice", "scopes": ["notes:read", "notes:write"]},
        "read-only": AccessToken(token="read-only", client_id="bob", scopes=["notes:read"]),
    })

Each entry is an `AccessToken` or a claims mapping (`client_id`, `scope` / `scp` / `scopes`,
`exp` or `expires_at`, `sub`, `aud` or `resource`). Tokens are looked up by their SHA-256 digest,
so the comparison does not leak how much of a guess was right. Expired entries are refused. Not for
production: the tokens never rotate and live in your configuration.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Mapping, Sequence
from typing import Any

from mcp.server.auth.provider import AccessToken, InvalidTokenError
from mcp.server.auth.verifiers import _claims


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).digest()


def _entry(token: str, value: AccessToken | Mapping[str, Any]) -> AccessToken:
    if isinstance(value, AccessToken):
        return value.model_copy(update={"token": token})
    claims = dict(value)
    if "scopes" in claims and "scope" not in claims and "scp" not in claims:
        claims["scope"] = " ".join(claims.pop("scopes"))
    if "expires_at" in claims and "exp" not in claims:
        claims["exp"] = claims.pop("expires_at")
    resource = claims.get("resource")
    if resource is None:
        audiences = _claims.claim_audiences(claims)
        resource = audiences[0] if audiences else None
    return _claims.access_token(token, claims, resource=resource)


class StaticTokenVerifier:
    """A `TokenVerifier` over a fixed table of tokens (see the module docstring)."""

    def __init__(self, tokens: Mapping[str, AccessToken | Mapping[str, Any]], *,
                 required_scopes: Sequence[str] = ()) -> None:
        self.required_scopes = list(required_scopes)
        self._tokens = {_digest(token): _entry(token, value) for token, value in tokens.items()}

    async def verify_token(self, token: str) -> AccessToken | None:
        entry = self._tokens.get(_digest(token))
        if entry is None:
            return None
        if entry.expires_at is not None and entry.expires_at < time.time():
            raise InvalidTokenError("Token has expired")
        _claims.require_scopes(entry.scopes, self.required_scopes)
        return entry


__all__ = ["StaticTokenVerifier"]
