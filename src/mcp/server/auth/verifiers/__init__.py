"""Ready-made `TokenVerifier`s for MCP resource servers.

- `JWTVerifier` (`jwt_verifier`): JWT access tokens checked locally against the issuer's JWKS (or a
  static key): signature, `exp`/`nbf`/`iat`, `iss`, `aud` (RFC 8707 resource binding), scopes.
- `IntrospectionVerifier` (`introspection`): opaque tokens asked about at the authorization
  server's RFC 7662 introspection endpoint, with client authentication and a short cache.
- `StaticTokenVerifier` (`static`): a fixed table of tokens, for development and tests.
- `TokenSources` (`chain`): several verifiers tried in order, the first that accepts decides.
- `JWKSCache` (`jwks`): the key set fetcher `JWTVerifier` uses.

Names load on first use (PEP 562); the JOSE library (PyJWT, the `auth` extra) and the HTTP client
are imported only by the verifier that needs them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcp.server.auth.verifiers.chain import TokenSources
    from mcp.server.auth.verifiers.introspection import IntrospectionVerifier
    from mcp.server.auth.verifiers.jwks import JWKSCache
    from mcp.server.auth.verifiers.jwt_verifier import JWTVerifier
    from mcp.server.auth.verifiers.static import StaticTokenVerifier

_HOMES = {
    "IntrospectionVerifier": "introspection",
    "JWKSCache": "jwks",
    "JWTVerifier": "jwt_verifier",
    "StaticTokenVerifier": "static",
    "TokenSources": "chain",
}

__all__ = ["IntrospectionVerifier", "JWKSCache", "JWTVerifier", "StaticTokenVerifier", "TokenSources"]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
