"""`Settings`: an `MCPServer`'s constructor options as a pydantic model (`MCPServer.settings`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, Literal

from pydantic import BaseModel, ConfigDict
from typing_extensions import TypeVar

LifespanResultT = TypeVar("LifespanResultT", default=Any)


class Settings(BaseModel, Generic[LifespanResultT]):
    """The server-wide options given to `MCPServer(...)`."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    debug: bool
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]
    warn_on_duplicate_resources: bool
    warn_on_duplicate_tools: bool
    warn_on_duplicate_prompts: bool
    dependencies: list[str]
    """Packages the server needs installed (read by `mcp install` / `mcp dev`)."""
    lifespan: Callable[..., Any] | None
    """The async context manager run around the server's life."""
    auth: Any
    """The `AuthSettings` (or None)."""
    tool_timeout: float | None = None
    """Seconds a tool call may run unless the tool's own `timeout=` says otherwise (None: no bound;
    `MCP_TOOL_TIMEOUT` when not given)."""
    portable_schemas: bool = False
    """Tools publish portable schemas: `$ref`s inlined and the other rewrites strict clients need
    (`mcp.server.mcpserver.tools.portable_schema`). A tool's `portable_schemas=` overrides it."""
    parameter_docs: bool = False
    """Tools take their parameters' descriptions from their docstrings (Google, NumPy or Sphinx
    style) and keep only the summary as their description. A tool's `parameter_docs=` overrides it."""
