"""Makes `httpkit` (the helpers shared by the HTTP server tests) importable, and runs every test
here once per wire: each `wire` of `httpkit.WIRES` on the event loop it needs (a module may
override `anyio_backend` or parametrize it directly instead)."""

import sys
from pathlib import Path

_here = str(Path(__file__).parent)
if _here not in sys.path:
    sys.path.insert(0, _here)

import pytest  # noqa: E402
from httpkit import WIRES, backend_for  # noqa: E402


@pytest.fixture(params=WIRES)
def wire(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
def anyio_backend(wire: str) -> str:
    return backend_for(wire)
