"""Additional OAuth client providers: `client_credentials` (machine to machine),
`identity_assertion` (SEP-990 enterprise-managed authorization), `workload_identity` (SEP-1933,
a workload's JWT as a `jwt-bearer` grant) and `dpop` (RFC 9449 sender-constrained tokens, a
wrapper around any of them)."""
