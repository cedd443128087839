"""`InitializationOptions`: a server's identity and capabilities, as `Server.run` takes them."""

from __future__ import annotations

from pydantic import BaseModel

from mcp.types import Icon, ServerCapabilities


class InitializationOptions(BaseModel):
    """What a server reports about itself at initialization (`Server.create_initialization_options`)."""

    server_name: str
    server_version: str
    title: str | None = None
    description: str | None = None
    capabilities: ServerCapabilities
    instructions: str | None = None
    website_url: str | None = None
    icons: list[Icon] | None = None
