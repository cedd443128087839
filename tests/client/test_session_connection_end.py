"""A session tells whether its connection has ended, through the official private
`ClientSession._dispatcher._closed` that FastMCP's keep-alive stdio transport reads to reconnect to a
server process that exited: False while the server runs, True once its output ended. Real
subprocess over stdio."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import anyio
import pytest

from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

pytestmark = pytest.mark.anyio

SERVER = textwrap.dedent('''
    import json, sys
    from mcp.server import MCPServer

    mcp = MCPServer("short-lived")

    @mcp.tool()
    def stop() -> str:
        """Ends the server process right after answering."""
        import threading, os
        threading.Timer(0.1, lambda: os._exit(0)).start()
        return "bye"

    mcp.run()
''')


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_the_session_reports_its_connection_ended_once_the_server_process_exits(tmp_path: Path) -> None:
    script = tmp_path / "server.py"
    script.write_text(SERVER)
    params = StdioServerParameters(command=sys.executable, args=[str(script)])
    with anyio.fail_after(30):
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            assert session._dispatcher._closed is False
            await session.call_tool("stop", {})
            while not session._dispatcher._closed:
                await anyio.sleep(0.02)
            assert session._dispatcher._closed is True
