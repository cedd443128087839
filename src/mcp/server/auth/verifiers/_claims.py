"""What every verifier does with verified claims: scopes from `scope`/`scp`, the client id, the
audience check (RFC 8707), required scopes, and a log-safe name for a token."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from mcp.server.auth.middleware.bearer_auth import same_resource
from mcp.server.auth.provider import AccessToken, InsufficientScopeError, InvalidTokenError


def token_fingerprint(token: str) -> str:
    """A short, non-reversible name for `token` in logs (the token itself is never logged)."""
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()[:12]


def claim_scopes(claims: Mapping[str, Any]) -> list[str]:
    """Scopes from `scope` (RFC 9068 / RFC 7662: space-separated) or `scp` (a list, or a string)."""
    raw: Any = claims.get("scope")
    if raw is None:
        raw = claims.get("scp")
    if isinstance(raw, str):
        return [scope for scope in raw.split() if scope]
    if isinstance(raw, list | tuple):
        return [str(scope) for scope in raw if isinstance(scope, str) and scope]  # pyright: ignore[reportUnknownVariableType]
    return []


def claim_audiences(claims: Mapping[str, Any]) -> list[str]:
    raw: Any = claims.get("aud")
    if isinstance(raw, str):
        return [raw]
    if isinstance(raw, list | tuple):
        return [str(value) for value in raw if isinstance(value, str)]  # pyright: ignore[reportUnknownVariableType]
    return []


def matched_audience(claims: Mapping[str, Any], accepted: Sequence[str]) -> str:
    """The token audience that names this resource (compared as `same_resource` does: exact, a
    trailing slash aside); `InvalidTokenError` when none does."""
    for audience in claim_audiences(claims):
        if any(same_resource(audience, expected) for expected in accepted):
            return audience
    raise InvalidTokenError("Token was not issued for this resource")


def client_id_of(claims: Mapping[str, Any]) -> str:
    """`client_id` (RFC 9068), else `azp`, `cid` (Okta), `appid` (Entra), else `sub`."""
    for name in ("client_id", "azp", "cid", "appid", "sub"):
        value = claims.get(name)
        if isinstance(value, str) and value:
            return value
    return ""


def require_scopes(granted: Iterable[str], required: Sequence[str]) -> None:
    have = set(granted)
    if any(scope not in have for scope in required):
        raise InsufficientScopeError(list(required))


def access_token(token: str, claims: Mapping[str, Any], *, resource: str | None) -> AccessToken:
    expires = claims.get("exp")
    subject = claims.get("sub")
    return AccessToken(
        token=token,
        client_id=client_id_of(claims),
        scopes=claim_scopes(claims),
        expires_at=int(expires) if isinstance(expires, int | float) and not isinstance(expires, bool) else None,
        resource=resource,
        subject=subject if isinstance(subject, str) else None,
        claims=dict(claims),
    )
