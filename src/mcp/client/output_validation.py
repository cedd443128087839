"""Checking structured tool output against the tool's declared output schema: the client's name
for `mcp.shared.json_schema_check`, the one home of JSON Schema keyword evaluation (the schema and
the value both come from the server, hence `schema_from_peer=True`, the default)."""

from mcp.shared.json_schema_check import compile_validator, linear_search

__all__ = ["compile_validator", "linear_search"]
