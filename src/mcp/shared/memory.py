"""In-memory transport for tests (official path): two connected stream pairs, one for each side
of a connection. Its home is `mcp._engine.memory` (the streams are read on the engine's wire face),
loaded on first use so that `mcp.shared` imports nothing above it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcp._engine.memory import MessageStream as MessageStream
    from mcp._engine.memory import create_client_server_memory_streams as create_client_server_memory_streams

__all__ = ["MessageStream", "create_client_server_memory_streams"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from mcp._engine import memory

        value = getattr(memory, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
