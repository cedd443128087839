"""docs/get-started/installation.md: Python 3.10+, the protocol types importable as `mcp.types`
(the same objects as the standalone `mcp_types`), the async runtime is anyio (asyncio or trio),
a `cli` extra, and an `mcp` command."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import Distribution, PackageNotFoundError, distribution
from pathlib import Path

import anyio
import pytest

import mcp
import mcp.types
import mcp_types
from mcp import Client
from mcp.server import MCPServer


def the_distribution() -> Distribution:
    """The installed distribution providing `mcp`: ours is `mcpkit` (a drop-in for `mcp`)."""
    for name in ("mcpkit", "mcp"):
        try:
            return distribution(name)
        except PackageNotFoundError:
            continue
    raise AssertionError("no distribution provides the mcp package")


def test_python_3_10_or_newer_is_required() -> None:
    assert the_distribution().metadata["Requires-Python"] == ">=3.10"


def test_mcp_types_is_the_standalone_types_package() -> None:
    assert mcp.types.TextContent is mcp_types.TextContent
    assert mcp.types.CallToolResult is mcp_types.CallToolResult


def test_the_cli_extra_exists_and_the_mcp_command_runs() -> None:
    assert "cli" in (the_distribution().metadata.get_all("Provides-Extra") or [])
    command = Path(sys.executable).parent / "mcp"
    done = subprocess.run([str(command), "--help"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0
    for word in ("dev", "run", "install"):
        assert word in done.stdout


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
def test_the_sdk_runs_on_either_anyio_backend(backend: str) -> None:
    server = MCPServer("Either")

    @server.tool()
    def ping() -> str:
        return "pong"

    async def main() -> str:
        async with Client(server) as client:
            return (await client.call_tool("ping", {})).structured_content["result"]  # type: ignore[index]

    assert anyio.run(main, backend=backend) == "pong"
    assert mcp.Client is Client
