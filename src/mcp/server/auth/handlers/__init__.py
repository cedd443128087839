"""The Starlette endpoints of the embedded authorization server, one module per endpoint:
`authorize`, `token`, `register`, `revoke`, and `metadata` (RFC 8414 / RFC 9728 documents)."""
