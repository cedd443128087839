"""The default HTTP client of the transports at the private path the official SDK gives it
(`mcp.shared._httpx_utils`), which FastMCP imports: a re-export of the one home,
`mcp.client.streamable_http.create_mcp_http_client` (an `httpx2.AsyncClient`, as the official's)."""

from mcp.client.sse import McpHttpClientFactory
from mcp.client.streamable_http import DEFAULT_SSE_READ_TIMEOUT as MCP_DEFAULT_SSE_READ_TIMEOUT
from mcp.client.streamable_http import DEFAULT_TIMEOUT as MCP_DEFAULT_TIMEOUT
from mcp.client.streamable_http import create_mcp_http_client

__all__ = ["MCP_DEFAULT_SSE_READ_TIMEOUT", "MCP_DEFAULT_TIMEOUT", "McpHttpClientFactory", "create_mcp_http_client"]
