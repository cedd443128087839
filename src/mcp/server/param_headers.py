"""The server half of the 2026-07-28 `Mcp-Param-*` headers: before a `tools/call` over Streamable
HTTP is dispatched, the headers are checked against the called tool's `x-mcp-header` declarations
(the rules live in `mcp._protocol.http`), and a disagreement is answered -32020 (HTTP 400).

As in the official SDK, the tool's input schema comes from the first source the server has:
`MCPServer`'s own registry (`header_params`, declarations cached per tool), the low-level
`Server(get_tool_input_schema=...)`, or else the server's `tools/list` handler, run as the caller
(its envelope, no `_meta` extras) and followed through `nextCursor` up to the page listing the
tool. Every failure to find a schema fails open: a tool that is not listed (or a listing that
breaks, cycles or never ends) is left to dispatch, which owns the unknown-tool answer. Only a
`tools/call` that carries arguments or `Mcp-Param-*` headers pays for any of this.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any, Final, cast

from mcp._protocol.http import PARAM_HEADER_PREFIX, param_header_declarations, param_header_mismatch
from mcp.types.version import CLIENT_CAPABILITIES_META_KEY, CLIENT_INFO_META_KEY, PROTOCOL_VERSION_META_KEY

logger = logging.getLogger("mcp.server.http")

LIST_PAGE_CAP: Final = 100
"""How many `tools/list` pages the schema lookup walks at most: a paginator that never ends
degrades to a logged skip, never a hang."""

ListTools = Callable[[dict[str, Any]], Awaitable[Any]]
"""Serves one `tools/list` with the given params as the caller; returns its wire result."""


async def param_header_mismatch_for_call(
    server: Any, params: Any, headers: Mapping[str, str], header_lines: Iterable[tuple[str, str]],
    list_tools: ListTools,
) -> str | None:
    """Why a 2026-07-28 `tools/call`'s `Mcp-Param-*` headers disagree with its arguments, or None.

    `params` is the request's params (envelope already checked), `headers` the lowercase header map
    and `header_lines` every raw (lowercase name, value) line (a repeated header is refused).
    A call whose `name` or `arguments` is mis-shaped is left to dispatch's -32602.
    """
    if type(params) is not dict:
        return None
    call = cast("dict[str, Any]", params)
    name = call.get("name")
    arguments: Any = call.get("arguments")
    if type(name) is not str or not (arguments is None or isinstance(arguments, Mapping)):
        return None
    hook: Callable[[str, Any, Iterable[tuple[str, str]]], str | None] | None = getattr(server, "header_params", None)
    lookup: Callable[[str], Any] | None = server.get_tool_input_schema
    if hook is None and lookup is None and not server.has_handler("tools/list"):
        return None  # no tool was ever advertised with a declaration: nothing to hold the call to
    if not arguments and not any(key.startswith(PARAM_HEADER_PREFIX) for key in headers):
        return None  # no argument and no header: no declaration can be violated
    given = cast("Mapping[str, Any]", arguments or {})
    if hook is not None:
        return hook(name, given, header_lines)
    if lookup is not None:
        try:
            schema = lookup(name)
        except Exception:
            logger.exception("Mcp-Param header validation skipped: get_tool_input_schema raised")
            return None
    else:
        schema = await listed_input_schema(name, call.get("_meta"), list_tools)
    if schema is None:
        return None
    return param_header_mismatch(param_header_declarations(schema), given, header_lines)


async def listed_input_schema(name: str, meta: Any, list_tools: ListTools) -> Any:
    """The `inputSchema` the caller's own `tools/list` advertises for `name`, or None (not listed,
    or the listing failed: both logged, neither an error of the call's)."""
    from pydantic import ValidationError

    from mcp.types.methods import validate_client_request

    envelope = cast("dict[str, Any]", meta)
    version: Any = envelope.get(PROTOCOL_VERSION_META_KEY)
    synthetic: dict[str, Any] = {PROTOCOL_VERSION_META_KEY: version,
                                 CLIENT_CAPABILITIES_META_KEY: envelope.get(CLIENT_CAPABILITIES_META_KEY)}
    if envelope.get(CLIENT_INFO_META_KEY) is not None:  # optional: a caller without it sends no null
        synthetic[CLIENT_INFO_META_KEY] = envelope[CLIENT_INFO_META_KEY]
    list_params: dict[str, Any] = {"_meta": synthetic}
    try:
        validate_client_request("tools/list", version, list_params)
    except (ValidationError, ValueError, KeyError):
        # the caller's fault: dispatch answers its -32602; a louder line would let clients flood the log
        logger.debug("Mcp-Param header validation skipped: the request envelope fails tools/list validation")
        return None
    seen: set[str] = set()
    for _ in range(LIST_PAGE_CAP):
        try:
            result: Any = await list_tools(list_params)
            for tool in result.get("tools", []):
                if tool.get("name") == name:
                    return tool.get("inputSchema")
            cursor = result.get("nextCursor")
        except Exception:
            # fail open by design: header validation must never break a call that works
            logger.exception("Mcp-Param header validation skipped: the tools/list listing failed")
            return None
        if not isinstance(cursor, str):
            return None  # listed everything without `name`: dispatch answers the unknown tool
        if cursor in seen:
            logger.warning("Mcp-Param header validation skipped: the tools/list handler returned a cursor cycle")
            return None
        seen.add(cursor)
        list_params = {"_meta": synthetic, "cursor": cursor}
    logger.warning("Mcp-Param header validation skipped: tools/list pagination did not terminate within %d pages",
                   LIST_PAGE_CAP)
    return None
