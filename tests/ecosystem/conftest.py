"""The library venvs (tests/ecosystem/venvs.py), built or found in the cache once per session; the
first test that needs one builds them all side by side, so a fresh machine waits once."""

from __future__ import annotations

import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from venvs import HAS_PYDANTIC_AI, VENVS, library_venv


@pytest.fixture(scope="session")
def venvs() -> dict[str, Path]:
    with ThreadPoolExecutor(len(VENVS)) as pool:
        built = {name: pool.submit(library_venv, name) for name in VENVS}
        return {name: future.result() for name, future in built.items()}


@pytest.fixture(scope="session")
def fastmcp_python(venvs: dict[str, Path]) -> Path:
    return venvs["fastmcp"]


@pytest.fixture(scope="session")
def agents_python(venvs: dict[str, Path]) -> Path:
    return venvs["openai-agents"]


@pytest.fixture(scope="session")
def together_python(venvs: dict[str, Path]) -> Path:
    return venvs["together"]


@pytest.fixture(scope="session")
def pydantic_ai_python(venvs: dict[str, Path]) -> Path:
    if not HAS_PYDANTIC_AI:
        pytest.skip("pydantic-ai requires Python 3.11 or newer")
    return venvs["pydantic-ai"]
