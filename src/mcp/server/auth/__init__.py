"""Authorization for MCP servers over HTTP.

- `provider`: `TokenVerifier`, `AccessToken`, the embedded `OAuthAuthorizationServerProvider`.
- `settings`: `AuthSettings`.
- `middleware.auth_context`: `get_access_token()` inside handlers (`auth_context_var`).
- `middleware.bearer_auth`: the bearer-token gate `MCPServer` uses, and the Starlette pair
  `BearerAuthBackend` / `RequireAuthMiddleware`; `middleware.client_auth`: `ClientAuthenticator`.
- `handlers`: the endpoints of an embedded authorization server (`TokenHandler`, ...).
- `routes`: `create_auth_routes(...)` and `create_protected_resource_routes(...)`.
- `app`: `wrap_with_auth(...)`, the gate plus the protected resource metadata route.
- `verifiers`: ready-made `TokenVerifier`s: `JWTVerifier`, `IntrospectionVerifier`,
  `StaticTokenVerifier` (PyJWT, the `auth` extra, imported only when a token is verified).
- `scopes`: `ScopeRequirements`, the scopes per tool, resource and prompt (`required_scopes=`).

`provider` and `settings` are pure pydantic; the rest imports Starlette.
"""
