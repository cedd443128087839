"""Several token sources on one server: `TokenSources([...])` tries each `TokenVerifier` in order
and the first that accepts a token decides (e.g. an `OAuthProxy`'s own tokens for interactive users,
then a `JWTVerifier` for machine clients with their own identity provider). A source that refuses
with a reason (`InvalidTokenError`) lets the next try; when none accepts, the first reason given
is the answer. `InsufficientScopeError` ends the search: the token was recognised, its scopes are
short. The principal each source produced is what `get_access_token()` returns to tools; its
`claims["token_source"]` names the source (its position, or the name given)."""

from __future__ import annotations

from collections.abc import Sequence

from mcp.server.auth.provider import AccessToken, InvalidTokenError, TokenVerifier


async def first_accepting(
    sources: Sequence[TokenVerifier], token: str, names: Sequence[str] | None = None
) -> AccessToken | None:
    """The `AccessToken` of the first source accepting `token` (see the module docstring)."""
    refusal: InvalidTokenError | None = None
    for index, source in enumerate(sources):
        try:
            access = await source.verify_token(token)
        except InvalidTokenError as exc:
            refusal = refusal or exc
            continue
        if access is not None:
            claims = dict(access.claims or {})
            claims.setdefault("token_source", names[index] if names else type(source).__name__)
            return access.model_copy(update={"claims": claims})
    if refusal is not None:
        raise refusal
    return None


class TokenSources:
    """A `TokenVerifier` trying several in order (see the module docstring). `names` label the
    sources in `claims["token_source"]` (default: each verifier's class name)."""

    def __init__(self, sources: Sequence[TokenVerifier], *, names: Sequence[str] | None = None) -> None:
        if not sources:
            raise ValueError("TokenSources needs at least one token verifier")
        if names is not None and len(names) != len(sources):
            raise ValueError("names must label every source")
        self.sources = list(sources)
        self.names = list(names) if names is not None else None

    def bind_resource(self, resource: str) -> None:
        """Pass the server's resource to every source that checks audiences."""
        for source in self.sources:
            bind = getattr(source, "bind_resource", None)
            if callable(bind):
                bind(resource)

    async def verify_token(self, token: str) -> AccessToken | None:
        return await first_accepting(self.sources, token, self.names)


__all__ = ["TokenSources", "first_accepting"]
