"""How `run(transport="streamable-http" | "sse")` configures uvicorn: its access log (a line per
HTTP request) is on at log level DEBUG or when asked for with `access_log=True`."""

from typing import Any

import pytest
from httpkit import build_server

from mcp.server import streamable_http_app
from mcp.server.streamable_http_app import uvicorn_config

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def test_the_access_log_is_off_at_the_default_log_level() -> None:
    for level in ("INFO", "warning", "ERROR"):
        assert uvicorn_config(object(), host="127.0.0.1", port=8000, log_level=level).access_log is False


def test_the_access_log_is_on_at_debug_level() -> None:
    config = uvicorn_config(object(), host="127.0.0.1", port=8000, log_level="DEBUG")
    assert config.access_log is True
    assert config.log_level == "debug"


def test_an_explicit_access_log_choice_wins_over_the_log_level() -> None:
    assert uvicorn_config(object(), host="127.0.0.1", port=8000, log_level="INFO", access_log=True).access_log is True
    assert uvicorn_config(object(), host="127.0.0.1", port=8000, log_level="DEBUG", access_log=False).access_log is False


@pytest.mark.parametrize("transport", ["streamable-http", "sse"])
async def test_run_passes_access_log_and_the_address_to_uvicorn(transport: str, monkeypatch: pytest.MonkeyPatch) -> None:
    configs: list[Any] = []

    async def capture(config: Any, limits: Any = None) -> None:
        configs.append(config)

    monkeypatch.setattr(streamable_http_app, "_uvicorn", capture)
    mcp = build_server()
    run = mcp.run_streamable_http_async if transport == "streamable-http" else mcp.run_sse_async
    await run(host="127.0.0.1", port=8123, access_log=True)
    await run(host="127.0.0.1", port=8124)
    assert [(c.host, c.port, c.access_log, c.lifespan) for c in configs] == [
        ("127.0.0.1", 8123, True, "on"), ("127.0.0.1", 8124, False, "on")]


def test_served_connections_are_read_64_kib_at_a_time() -> None:
    import asyncio

    from mcp._engine.fdio import CHUNK
    from mcp.server.streamable_http_app import chunked_reads

    made: list[Any] = []

    class Protocol(asyncio.Protocol):
        def connection_made(self, transport: Any) -> None:
            made.append(transport)

    class Transport:
        max_size = 256 * 1024

    transport = Transport()
    chunked_reads(Protocol)().connection_made(transport)
    assert made == [transport] and transport.max_size == CHUNK == 64 * 1024
