"""The `data` payloads of MCP's own error codes (the models behind `ErrorData.data`).

-32022 and -32021 are 2026-07-28; -32042's payload lives in `_elicitation` next to its params.
"""

from __future__ import annotations

from mcp.types._base import MCPModel
from mcp.types._lifecycle import ClientCapabilities

__all__ = ["MissingRequiredClientCapabilityErrorData", "UnsupportedProtocolVersionErrorData"]


class UnsupportedProtocolVersionErrorData(MCPModel):
    """-32022: the requested revision is not served; `supported` lists those that are."""

    supported: list[str]
    requested: str


class MissingRequiredClientCapabilityErrorData(MCPModel):
    """-32021: the request needs client capabilities the client did not declare."""

    required_capabilities: ClientCapabilities
