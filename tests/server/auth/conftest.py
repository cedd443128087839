"""Fixtures for the server-side authorization tests (their parts live in `authkit`)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from starlette.applications import Starlette

if str(Path(__file__).parent) not in sys.path:  # makes `jwtkit` and `authkit` importable
    sys.path.insert(0, str(Path(__file__).parent))

from authkit import MemoryProvider, protect


@pytest.fixture
def memory_provider() -> MemoryProvider:
    return MemoryProvider()


@pytest.fixture
def protect_app() -> Callable[..., Starlette]:
    return protect
