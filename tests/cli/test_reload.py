"""`mcp run FILE --reload` over a real pipe: a host-like client keeps one connection while the
server file is edited (see `mcp.cli.reload`)."""

from __future__ import annotations

import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hostpipe import Host

SERVER = textwrap.dedent("""
    import pathlib

    import anyio
    from mcp.server.mcpserver import MCPServer

    mcp = MCPServer("reloadable")


    @mcp.tool()
    def first() -> str:
        return "one"


    @mcp.tool()
    async def slow() -> str:
        pathlib.Path(__file__).with_name("slow-started").touch()
        await anyio.sleep(600)
        return "late"
    """)

SECOND_TOOL = textwrap.dedent("""

    @mcp.tool()
    def second() -> str:
        return "two"
    """)


@pytest.fixture
def server_file(tmp_path: Path) -> Path:
    file = tmp_path / "server.py"
    file.write_text(SERVER)
    return file


@pytest.fixture
def host(server_file: Path) -> Iterator[Host]:
    running = Host("run", str(server_file), "--reload")
    try:
        yield running
    finally:
        running.close()


def edit(file: Path, added: str) -> None:
    file.write_text(file.read_text() + added)


def test_an_edit_tells_the_host_the_tools_changed_and_the_same_connection_lists_the_new_tool(
        host: Host, server_file: Path) -> None:
    host.handshake()
    assert host.tool_names() == ["first", "slow"]

    edit(server_file, SECOND_TOOL)
    host.notified("notifications/tools/list_changed")

    assert host.tool_names() == ["first", "second", "slow"]
    result = host.call("tools/call", {"name": "second", "arguments": {}})["result"]
    assert result["content"][0]["text"] == "two"
    assert host.process.poll() is None


def test_an_added_prompt_is_announced_with_the_prompts_notification(host: Host, server_file: Path) -> None:
    host.handshake()
    edit(server_file, '\n\n@mcp.prompt()\ndef greet() -> str:\n    return "hello"\n')

    host.notified("notifications/prompts/list_changed")
    prompts = host.call("prompts/list")["result"]["prompts"]
    assert [prompt["name"] for prompt in prompts] == ["greet"]


def test_a_syntax_error_keeps_the_old_server_serving_and_says_why_on_stderr(host: Host, server_file: Path) -> None:
    host.handshake()
    edit(server_file, "\ndef broken(:\n")

    assert "syntax error" in host.said("syntax error")
    assert "kept the old server" in host.said("kept the old server")
    result = host.call("tools/call", {"name": "first", "arguments": {}})["result"]
    assert result["content"][0]["text"] == "one"

    server_file.write_text(SERVER + SECOND_TOOL)  # fixed: the next save reloads
    host.notified("notifications/tools/list_changed")
    assert "second" in host.tool_names()


def test_a_request_in_flight_during_a_reload_gets_an_error_not_silence(host: Host, server_file: Path) -> None:
    host.handshake()
    slow = host.request("tools/call", {"name": "slow", "arguments": {}})
    started = server_file.with_name("slow-started")
    deadline = time.monotonic() + 60
    while not started.exists():
        assert time.monotonic() < deadline, "the slow tool never started"
        time.sleep(0.02)

    edit(server_file, SECOND_TOOL)

    answer = host.answer(slow)
    assert "reloaded" in answer["error"]["message"]
    host.notified("notifications/tools/list_changed")
    assert "second" in host.tool_names()


def test_the_supervisor_exits_when_the_host_closes_the_pipe(host: Host) -> None:
    host.handshake()
    assert host.close() == 0


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_our_client_sees_the_new_tool_after_the_notification_on_both_wires(server_file: Path, mode: str) -> None:
    """On 2026-07-28 there is no handshake to replay; the supervisor asks with the host's `_meta`."""
    import os

    import anyio

    from mcp.client import Client
    from mcp.client.stdio import StdioServerParameters
    from mcp.types import ToolListChangedNotification

    async def main() -> list[str]:
        changed = anyio.Event()

        async def on_message(message: object) -> None:
            if isinstance(message, ToolListChangedNotification):
                changed.set()

        params = StdioServerParameters(command=sys.executable, args=["-m", "mcp.cli", "run", str(server_file), "--reload"],
                                       env=dict(os.environ))
        async with Client(params, mode=mode, message_handler=on_message) as client:
            assert [tool.name for tool in (await client.list_tools()).tools] == ["first", "slow"]
            edit(server_file, SECOND_TOOL)
            with anyio.fail_after(60):
                await changed.wait()
            return [tool.name for tool in (await client.list_tools()).tools]

    assert sorted(anyio.run(main)) == ["first", "second", "slow"]
