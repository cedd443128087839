"""Request-time authorization: the bearer-token ASGI gate and the access-token context."""
