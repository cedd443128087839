"""Root conftest for the official suite (installed as its tests/conftest.py by run.py).

The sdist's own root conftest wires its private test tooling (BlockBuster, logfire capture, a
module-scoped loop lease); this one keeps what a user of the public API has: the `anyio_backend`
fixture. The official package's private modules the suite imports (`mcp.client._memory`,
`mcp.client._transport`, `mcp.shared._compat`) are ours too, so nothing is bridged here.
"""

import pytest


@pytest.fixture(scope="session")
def anyio_backend() -> str:
    return "asyncio"
