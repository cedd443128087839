"""`resync_tracer` (the official SDK's private name, which its test helpers import)."""

from __future__ import annotations

import anyio.lowlevel

__all__ = ["resync_tracer"]


async def resync_tracer() -> None:
    """One shielded checkpoint: after a cancelled task-group join on CPython 3.11, resuming the
    awaiting chain normally once lets coverage's tracer see its frames again. No other effect."""
    await anyio.lowlevel.cancel_shielded_checkpoint()
