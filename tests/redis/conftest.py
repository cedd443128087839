"""Fixtures of the Redis tests: one real redis-server for the module, a fresh key prefix per test,
and a fake identity provider per preset for the OAuth proxy flows across workers."""

from __future__ import annotations

import itertools
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from redis_server import RedisServer

sys.path.insert(0, str(Path(__file__).parents[1] / "server" / "auth"))

from fake_idp import PRESETS, FakeIdP
from jwtkit import serve

_prefixes = itertools.count(1)


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    server = RedisServer(tmp_path_factory.mktemp("redis"))
    server.start()
    try:
        yield server
    finally:
        server.kill()


@pytest.fixture
def prefix() -> str:
    """Keys of one test only (tests share the server, never keys)."""
    return f"t{next(_prefixes)}"


@pytest.fixture
def anyio_backend() -> str:
    """The redis client's asyncio API runs on asyncio only."""
    return "asyncio"


@pytest.fixture(params=PRESETS)
def idp(request: pytest.FixtureRequest) -> Iterator[FakeIdP]:
    """A fake of each provider preset the proxy ships, served on loopback."""
    fake = FakeIdP(request.param)
    with serve(fake.app) as base:
        fake.base = base
        yield fake
