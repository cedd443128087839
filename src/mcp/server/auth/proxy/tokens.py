"""The proxy's own access tokens: short JWTs (HS256, under the key `Sealer` derives) naming the
proxy as issuer and the MCP server's resource as audience (RFC 8707), the user as subject, the
client, the granted scopes, and the grant they belong to (`gid`). The grant must still be in the
store for a token to pass, which is what revocation and refresh-token replay detection remove.
Nothing of the identity provider's tokens is in them."""

from __future__ import annotations

import secrets
import time
from collections.abc import Sequence
from typing import Any

_ALGORITHM = "HS256"
_MAX_TOKEN_BYTES = 8 * 1024


def mint_access_token(
    key: bytes,
    *,
    issuer: str,
    resource: str,
    subject: str,
    client_id: str,
    scopes: Sequence[str],
    grant_id: str,
    lifetime: int,
) -> tuple[str, int]:
    """A signed access token and its expiry (epoch seconds)."""
    import jwt

    now = int(time.time())
    expires_at = now + lifetime
    claims: dict[str, Any] = {
        "iss": issuer,
        "aud": resource,
        "sub": subject,
        "client_id": client_id,
        "scope": " ".join(scopes),
        "iat": now,
        "exp": expires_at,
        "jti": secrets.token_urlsafe(16),
        "gid": grant_id,
    }
    return jwt.encode(claims, key, algorithm=_ALGORITHM), expires_at


def read_access_token(key: bytes, token: str, *, issuer: str, resource: str) -> dict[str, Any] | None:
    """The claims of a token this proxy signed for `resource`, unexpired; `None` for anything else
    (another issuer's token is simply not ours: the next token source may know it)."""
    import jwt

    if len(token) > _MAX_TOKEN_BYTES or token.count(".") != 2:
        return None
    try:
        claims: dict[str, Any] = jwt.decode(
            token,
            key,
            algorithms=[_ALGORITHM],
            issuer=issuer,
            audience=resource,
            options={"require": ["exp", "iat", "sub", "gid", "client_id"]},
        )
    except jwt.PyJWTError:
        return None
    if not isinstance(claims.get("gid"), str) or not isinstance(claims.get("client_id"), str):
        return None
    return claims


__all__ = ["mint_access_token", "read_access_token"]
