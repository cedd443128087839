"""The answer to a request no handler serves.

As in the official SDK, a spec method's params are checked against its revision's shape before the
handler lookup, so a malformed spec request is -32602 "Invalid request parameters" even when the
server does not serve it; a well-formed one (or a vendor method, or a spec method its revision does
not define) is -32601. Only the no-handler branch pays for this check: a served method's params
are validated once, by its handler's params model.
"""

from __future__ import annotations

from typing import Any

from mcp.shared.exceptions import MCPError
from mcp.types.jsonrpc import INVALID_PARAMS, METHOD_NOT_FOUND
from mcp.types.version import KNOWN_PROTOCOL_VERSIONS


def unserved_request_error(method: str, version: str | None, params: dict[str, Any] | None) -> MCPError:
    """-32602 for a spec method whose params do not fit `version`'s shape, else -32601."""
    from mcp.types.methods import SPEC_CLIENT_METHODS  # the method table loads on this branch only

    if method in SPEC_CLIENT_METHODS and version in KNOWN_PROTOCOL_VERSIONS:
        from pydantic import ValidationError

        from mcp.types.methods import validate_client_request

        try:
            validate_client_request(method, version, params)
        except ValidationError:
            return MCPError(INVALID_PARAMS, "Invalid request parameters", "")
        except KeyError:  # not defined at this revision
            pass
    return MCPError(METHOD_NOT_FOUND, "Method not found", method)
