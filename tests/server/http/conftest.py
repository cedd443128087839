"""Makes `httpkit` (the helpers shared by the HTTP server tests) importable, and runs every test
here once per wire: each `wire` of `httpkit.WIRES` on the event loop it needs (a module may
override `anyio_backend` or parametrize it directly instead)."""

import sys
from pathlib import Path

_here = str(Path(__file__).parent)
if _here not in sys.path:
    sys.path.insert(0, _here)

from httpkit import anyio_backend, wire  # noqa: E402

__all__ = ["anyio_backend", "wire"]
