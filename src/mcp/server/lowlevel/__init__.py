"""The low-level server: `Server`."""

from typing import Any

from mcp.server.lowlevel.server import NotificationOptions, Server

__all__ = ["NotificationOptions", "Server"]


def __getattr__(name: str) -> Any:
    # A pydantic model: resolved on first use so `import mcp.server.lowlevel` stays pydantic-free.
    if name == "InitializationOptions":
        from mcp.server.models import InitializationOptions

        return InitializationOptions
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
