"""Authorization for MCP servers over HTTP.

- `provider`: `TokenVerifier`, `AccessToken`, the embedded `OAuthAuthorizationServerProvider`.
- `settings`: `AuthSettings`.
- `middleware.auth_context`: `get_access_token()` inside handlers.
- `app`: `wrap_with_auth(...)`, the bearer-token gate plus the protected resource metadata route.
- `routes`: `create_auth_routes(...)` (embedded authorization server) and
  `create_protected_resource_routes(...)`.

Only `app`, `routes` and the bearer middleware import Starlette.
"""
