"""The default HTTP client of the transports, at the private path the official SDK gives it
(`mcp.shared._httpx_utils`), which FastMCP imports.

The official transports are built on httpx2, and libraries written for them hand the factory httpx2
objects (an `httpx2.Auth`, an `httpx2.Timeout`). So while httpx2 is installed the factory here makes
an httpx2 client; our transports take either kind. Without httpx2 it is our httpx default,
`mcp.client.streamable_http.create_mcp_http_client`, the one home of the settings both share.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import Any

from mcp.client.sse import McpHttpClientFactory
from mcp.client.streamable_http import DEFAULT_SSE_READ_TIMEOUT as MCP_DEFAULT_SSE_READ_TIMEOUT
from mcp.client.streamable_http import DEFAULT_TIMEOUT as MCP_DEFAULT_TIMEOUT
from mcp.client.streamable_http import create_mcp_http_client as _httpx_client

__all__ = ["MCP_DEFAULT_SSE_READ_TIMEOUT", "MCP_DEFAULT_TIMEOUT", "McpHttpClientFactory", "create_mcp_http_client"]


def create_mcp_http_client(headers: dict[str, str] | None = None, timeout: Any = None, auth: Any = None) -> Any:
    """An HTTP client with the transports' defaults: 30 s timeouts, 300 s to read a stream, redirects
    followed. httpx2's `AsyncClient` when httpx2 is installed, else httpx's."""
    if importlib.util.find_spec("httpx2") is None:
        return _httpx_client(headers=headers, timeout=timeout, auth=auth)
    httpx2: Any = importlib.import_module("httpx2")
    if timeout is None:
        timeout = httpx2.Timeout(MCP_DEFAULT_TIMEOUT, read=MCP_DEFAULT_SSE_READ_TIMEOUT)
    return httpx2.AsyncClient(follow_redirects=True, headers=headers, timeout=timeout, auth=auth)
