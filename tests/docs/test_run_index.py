"""docs/run/index.md: `mcp.run()` serves stdio by default and blocks; the `__main__` guard keeps an
import from starting a server; `run("streamable-http", port=...)` serves `/mcp` over real HTTP;
transport options belong to `run()`, never to the constructor; `log_level` and `debug` are
constructor settings readable on `mcp.settings`."""

from __future__ import annotations

import importlib.util
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import anyio
import httpx
import pytest

from mcp import Client, StdioServerParameters
from mcp.server import MCPServer
from mcp.types import TextContent

pytestmark = pytest.mark.anyio

SERVER = textwrap.dedent('''
    import sys

    from mcp.server import MCPServer

    mcp = MCPServer("Clock")
    STARTED = []


    @mcp.tool()
    def now() -> str:
        """The time."""
        return "12:00"


    if __name__ == "__main__":
        STARTED.append(True)
        if len(sys.argv) > 1:
            mcp.run("streamable-http", port=int(sys.argv[1]))
        else:
            mcp.run()
''')


def write_server(tmp_path: Path) -> Path:
    script = tmp_path / "clock_server.py"
    script.write_text(SERVER)
    return script


def test_importing_the_file_starts_nothing(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("clock_server", write_server(tmp_path))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # returns: the guard kept run() from blocking
    assert module.STARTED == []
    assert isinstance(module.mcp, MCPServer)


async def test_run_with_no_argument_serves_stdio(tmp_path: Path) -> None:
    params = StdioServerParameters(command=sys.executable, args=[str(write_server(tmp_path))])
    with anyio.fail_after(30):
        async with Client(params) as client:
            assert (await client.call_tool("now", {})).content == [TextContent(text="12:00")]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_run_streamable_http_serves_the_mcp_endpoint_on_the_port_given(tmp_path: Path) -> None:
    port = free_port()
    process = subprocess.Popen([sys.executable, str(write_server(tmp_path)), str(port)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        url = f"http://127.0.0.1:{port}/mcp"
        with anyio.fail_after(30):
            while True:  # wait for the listener, bounded by the deadline above
                try:
                    with socket.create_connection(("127.0.0.1", port), timeout=1):
                        break
                except OSError:
                    assert process.poll() is None, "the server exited"
                    await anyio.sleep(0.05)
            async with Client(url) as client:
                assert (await client.call_tool("now", {})).content == [TextContent(text="12:00")]
            async with httpx.AsyncClient() as http:
                assert (await http.get(f"http://127.0.0.1:{port}/elsewhere")).status_code == 404
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.mark.parametrize("option", ["port", "host", "stateless_http", "json_response", "streamable_http_path"])
def test_a_transport_option_on_the_constructor_is_pythons_own_type_error(option: str) -> None:
    with pytest.raises(TypeError, match=rf"^MCPServer\.__init__\(\) got an unexpected keyword argument '{option}'"):
        MCPServer("Clock", **{option: 1})


def test_log_level_and_debug_are_constructor_settings_read_back_on_settings() -> None:
    mcp = MCPServer("Clock", log_level="WARNING", debug=True)
    assert (mcp.settings.log_level, mcp.settings.debug) == ("WARNING", True)
    default = MCPServer("Clock")
    assert (default.settings.log_level, default.settings.debug) == ("INFO", False)
