"""Additional OAuth client providers: `client_credentials` (machine to machine) and
`identity_assertion` (SEP-990 enterprise-managed authorization)."""
