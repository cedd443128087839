"""The low-level server: `Server`."""

from mcp.server.lowlevel.server import InitializationOptions, NotificationOptions, Server

__all__ = ["InitializationOptions", "NotificationOptions", "Server"]
