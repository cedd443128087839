"""How a handler's exception that is not an `MCPError` is answered (and, for an in-memory client
with `raise_exceptions=True`, what it sees raised)."""

from __future__ import annotations

import logging
from typing import Any

from mcp.shared.exceptions import MCPError
from mcp.types.jsonrpc import INTERNAL_ERROR

logger = logging.getLogger("mcp.server")


def handler_failure(exc: Exception, method: str, modern: bool) -> tuple[int, str, Any]:
    """The error answer (code, message, data) for a handler's exception that is not an `MCPError`,
    as the official SDK gives it: a pydantic `ValidationError` is -32602 "Invalid request
    parameters"; anything else is logged with its traceback and answered -32603 "Internal server
    error" on the 2026-07-28 wire, or code 0 with the exception's text on the handshake-era wire
    (the official dispatcher's pinned compatibility answer: the text a handler raises is its
    message to the caller, so a handler must not raise secrets)."""
    from mcp.shared.jsonrpc_dispatcher import handler_exception_to_error_data

    error = handler_exception_to_error_data(exc)
    if error is not None:
        return error.code, error.message, error.data
    logger.exception("error handling %s", method)
    if modern:
        return INTERNAL_ERROR, "Internal server error", None
    return 0, str(exc), None


def raised_for(exc: Exception, modern: bool) -> BaseException | None:
    """What an in-memory client with `raise_exceptions=True` sees for a handler's exception, as
    officially: nothing special for one with a mapped answer (the error response), else the
    exception itself on the handshake-era wire and `MCPError(-32603, its text)` chained to it on
    the 2026-07-28 wire."""
    from mcp.shared.jsonrpc_dispatcher import handler_exception_to_error_data

    if handler_exception_to_error_data(exc) is not None:
        return None
    if not modern:
        return exc
    revealed = MCPError(INTERNAL_ERROR, str(exc))
    revealed.__cause__ = exc
    return revealed
