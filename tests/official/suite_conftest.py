"""Root conftest for the official suite (installed as its tests/conftest.py by run.py).

The sdist's own root conftest wires its private test tooling (BlockBuster, logfire capture, a
module-scoped loop lease); this one keeps what a user of the public API has: the `anyio_backend`
fixture. One private test aid of the official package is bridged here, listed:
- `mcp.shared._compat.resync_tracer` (used by tests/interaction/transports/_bridge.py): a shielded
  checkpoint that works around a CPython 3.11 coverage-tracing bug; behaviourally a no-op.
"""

import sys
import types

import anyio.lowlevel
import pytest


async def _resync_tracer() -> None:
    await anyio.lowlevel.cancel_shielded_checkpoint()


if "mcp.shared._compat" not in sys.modules:
    try:
        import mcp.shared._compat  # noqa: F401  # pyright: ignore[reportMissingImports]
    except ImportError:
        _bridge = types.ModuleType("mcp.shared._compat")
        _bridge.resync_tracer = _resync_tracer  # type: ignore[attr-defined]
        sys.modules["mcp.shared._compat"] = _bridge


@pytest.fixture(scope="session")
def anyio_backend() -> str:
    return "asyncio"
