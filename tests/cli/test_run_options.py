"""`mcp run`'s HTTP options and the `MCP_*` environment `run()` reads: arguments win over the
environment, which wins over the defaults. Each case serves a real uvicorn on 127.0.0.1."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from clikit import MCP, free_port, mcp
from hostpipe import Host

from mcp.server.mcpserver.run_environment import resolve_run

SERVER = textwrap.dedent("""
    from mcp.server.mcpserver import MCPServer

    mcp = MCPServer("configured")


    @mcp.tool()
    def first() -> str:
        return "one"


    if __name__ == "__main__":
        mcp.run()
    """)

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
ACCEPT = {"Accept": "application/json, text/event-stream"}


@pytest.fixture
def server_file(tmp_path: Path) -> Path:
    file = tmp_path / "server.py"
    file.write_text(SERVER)
    return file


def clean_env(**variables: str) -> dict[str, str]:
    environ = dict(os.environ)
    for name in ("MCP_TRANSPORT", "MCP_HOST", "MCP_PORT", "MCP_PATH", "MCP_STATELESS_HTTP", "MCP_JSON_RESPONSE"):
        environ.pop(name, None)
    return {**environ, **variables}


@contextmanager
def serving(command: list[str], port: int, env: dict[str, str]) -> Iterator[subprocess.Popen[bytes]]:
    """`command` running until it listens on `port` (bounded); stopped afterwards."""
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while True:
            assert process.poll() is None, process.stderr.read().decode() if process.stderr else "exited"
            assert time.monotonic() < deadline, "the server never listened"
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.05)
        yield process
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stderr is not None:
            process.stderr.close()


def initialize(port: int, path: str) -> httpx.Response:
    return httpx.post(f"http://127.0.0.1:{port}{path}", json=INITIALIZE, headers=ACCEPT, timeout=30)


def test_the_options_choose_port_path_and_json_answers(server_file: Path) -> None:
    port = free_port()
    with serving([*MCP, "run", str(server_file), "-t", "streamable-http", "--host", "127.0.0.1",
                  "--port", str(port), "--path", "/custom", "--json-response"], port, clean_env()):
        answer = initialize(port, "/custom")
        assert answer.status_code == 200
        assert answer.headers["content-type"].startswith("application/json")
        assert answer.json()["result"]["serverInfo"]["name"] == "configured"
        assert initialize(port, "/mcp").status_code == 404


def test_run_reads_the_environment_when_the_file_serves_itself(server_file: Path) -> None:
    port = free_port()
    env = clean_env(MCP_TRANSPORT="streamable-http", MCP_PORT=str(port), MCP_PATH="/from-env",
                    MCP_STATELESS_HTTP="true", MCP_JSON_RESPONSE="1")
    with serving([sys.executable, str(server_file)], port, env):
        answer = initialize(port, "/from-env")
        assert answer.status_code == 200
        assert "mcp-session-id" not in answer.headers  # stateless: no session
        assert answer.json()["result"]["serverInfo"]["name"] == "configured"


def test_arguments_win_over_the_environment(server_file: Path) -> None:
    port, other = free_port(), free_port()
    env = clean_env(MCP_TRANSPORT="streamable-http", MCP_PORT=str(other), MCP_PATH="/from-env")
    with serving([*MCP, "run", str(server_file), "--port", str(port), "--path", "/from-args"], port, env):
        assert initialize(port, "/from-args").status_code == 200


def test_an_explicit_stdio_transport_wins_over_MCP_TRANSPORT(server_file: Path) -> None:
    host = Host("run", str(server_file), "-t", "stdio", env=clean_env(MCP_TRANSPORT="streamable-http"))
    try:
        assert host.handshake()["result"]["serverInfo"]["name"] == "configured"
    finally:
        host.close()


def test_http_options_over_stdio_are_refused_with_a_clear_line(server_file: Path) -> None:
    done = mcp("run", str(server_file), "--port", "9", env=clean_env())
    assert done.returncode == 2
    assert "--port only apply to the HTTP transports" in done.stderr


def test_a_bad_MCP_PORT_is_a_clear_error(server_file: Path) -> None:
    done = mcp("run", str(server_file), env=clean_env(MCP_TRANSPORT="streamable-http", MCP_PORT="eighty"))
    assert done.returncode != 0
    assert "MCP_PORT='eighty'" in done.stderr


def test_the_precedence_is_arguments_then_environment_then_defaults() -> None:
    environ = {"MCP_TRANSPORT": "streamable-http", "MCP_HOST": "0.0.0.0", "MCP_PORT": "9000",
               "MCP_JSON_RESPONSE": "off"}
    assert resolve_run("stdio", {}, {}) == ("stdio", {})
    assert resolve_run("stdio", {}, environ) == ("streamable-http", {"host": "0.0.0.0", "port": 9000,
                                                                     "json_response": False})
    assert resolve_run("streamable-http", {"port": 1234}, environ)[1]["port"] == 1234
    assert resolve_run("sse", {}, {"MCP_PATH": "/events"}) == ("sse", {"sse_path": "/events"})
    assert resolve_run("stdio", {"max_message_size": 10}, environ) == ("stdio", {"max_message_size": 10})


def test_http_reload_keeps_the_port_and_serves_the_edited_file(server_file: Path) -> None:
    port = free_port()
    command = [*MCP, "run", str(server_file), "-t", "streamable-http", "--port", str(port), "--stateless",
               "--json-response", "--reload"]
    with serving(command, port, clean_env()):
        listed = httpx.post(f"http://127.0.0.1:{port}/mcp", headers=ACCEPT, timeout=30,
                            json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        assert [tool["name"] for tool in listed.json()["result"]["tools"]] == ["first"]

        server_file.write_text(SERVER.replace("if __name__", '@mcp.tool()\ndef second() -> str:\n    return "two"\n\n\nif __name__'))
        deadline = time.monotonic() + 60
        names: list[str] = []
        while "second" not in names:  # the old server answers until the new child binds the same port
            assert time.monotonic() < deadline, "the reloaded server never answered"
            try:
                listed = httpx.post(f"http://127.0.0.1:{port}/mcp", headers=ACCEPT, timeout=30,
                                    json={"jsonrpc": "2.0", "id": 3, "method": "tools/list"})
                names = [tool["name"] for tool in listed.json()["result"]["tools"]]
            except httpx.TransportError:  # between the two children
                pass
            time.sleep(0.05)
        assert names == ["first", "second"]
