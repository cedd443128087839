"""How a handler's exception that is not an `MCPError` is answered (and, for an in-memory client
with `raise_exceptions=True`, what it sees raised)."""

from __future__ import annotations

import logging
from typing import Any

from mcp.shared.exceptions import MCPError, answers_itself, error_fields_for

logger = logging.getLogger("mcp.server")


def handler_failure(exc: Exception, method: str, modern: bool) -> tuple[int, str, Any]:
    """The error answer (code, message, data) for a handler's exception that is not an `MCPError`,
    as the official SDK gives it: a pydantic `ValidationError` is -32602 "Invalid request
    parameters"; anything else is logged with its traceback and answered -32603 "Internal server
    error" on the 2026-07-28 wire, or code 0 with the exception's text on the handshake-era wire
    (the official dispatcher's pinned compatibility answer: the text a handler raises is its
    message to the caller, so a handler must not raise secrets). The mapping is
    `mcp.shared.exceptions.error_fields_for`'s."""
    if not answers_itself(exc):
        logger.exception("error handling %s", method)
    return error_fields_for(exc, "masked" if modern else "text")


def raised_for(exc: Exception, modern: bool) -> BaseException | None:
    """What an in-memory client with `raise_exceptions=True` sees for a handler's exception, as
    officially: nothing special for one with a mapped answer (the error response), else the
    exception itself on the handshake-era wire and `MCPError(-32603, its text)` chained to it on
    the 2026-07-28 wire."""
    if answers_itself(exc):
        return None
    if not modern:
        return exc
    revealed = MCPError(*error_fields_for(exc, "internal_text"))
    revealed.__cause__ = exc
    return revealed
