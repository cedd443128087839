"""The official SDK's module path for the media helpers `Image` and `Audio`."""

from mcp.server.mcpserver.media import Audio, Image

__all__ = ["Audio", "Image"]
