"""Logging helpers of the official SDK's `mcpserver.utilities.logging`."""

from __future__ import annotations

import logging
from typing import Literal


def get_logger(name: str) -> logging.Logger:
    """The logger `name` (the framework logs under `mcp.*` names)."""
    return logging.getLogger(name)


def configure_logging(level: Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"] = "INFO") -> None:
    """Log at `level` to stderr, through rich's handler when rich is installed."""
    handlers: list[logging.Handler] = []
    try:
        from rich.console import Console
        from rich.logging import RichHandler

        handlers.append(RichHandler(console=Console(stderr=True), rich_tracebacks=True))
    except ImportError:
        handlers.append(logging.StreamHandler())
    logging.basicConfig(level=level, format="%(message)s", handlers=handlers)
