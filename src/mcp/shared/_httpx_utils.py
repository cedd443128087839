"""The default HTTP client of the transports at the private path the official SDK gives it
(`mcp.shared._httpx_utils`), which FastMCP imports: a lazy re-export of the one home,
`mcp.client.streamable_http.create_mcp_http_client` (an `httpx2.AsyncClient`, as the official's),
loaded on first use so that `mcp.shared` imports nothing above it."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcp.client.sse import McpHttpClientFactory as McpHttpClientFactory
    from mcp.client.streamable_http import DEFAULT_SSE_READ_TIMEOUT as MCP_DEFAULT_SSE_READ_TIMEOUT
    from mcp.client.streamable_http import DEFAULT_TIMEOUT as MCP_DEFAULT_TIMEOUT
    from mcp.client.streamable_http import create_mcp_http_client as create_mcp_http_client

__all__ = ["MCP_DEFAULT_SSE_READ_TIMEOUT", "MCP_DEFAULT_TIMEOUT", "McpHttpClientFactory", "create_mcp_http_client"]

_HOMES = {
    "MCP_DEFAULT_SSE_READ_TIMEOUT": ("mcp.client.streamable_http", "DEFAULT_SSE_READ_TIMEOUT"),
    "MCP_DEFAULT_TIMEOUT": ("mcp.client.streamable_http", "DEFAULT_TIMEOUT"),
    "McpHttpClientFactory": ("mcp.client.sse", "McpHttpClientFactory"),
    "create_mcp_http_client": ("mcp.client.streamable_http", "create_mcp_http_client"),
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(home[0]), home[1])
    globals()[name] = value
    return value
