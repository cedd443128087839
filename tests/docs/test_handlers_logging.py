"""docs/handlers/logging.md: a tool logs with the standard library; the log line goes to stderr
and never into the result or onto the wire; `MCPServer(log_level=...)` configures logging only
when nothing configured it first. The deprecated protocol logging, where a client still uses it,
never delivers a line below the level the client's request asked for (2026-07-28 `_meta`; `MCPServer`
serves no `logging/setLevel`, as officially)."""

from __future__ import annotations

import logging
import sys
import textwrap
import warnings
from pathlib import Path
from typing import Any

import anyio
import pytest

from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.server.mcpserver import Context, MCPServer
from mcp.types import LoggingMessageNotificationParams, TextContent

pytestmark = pytest.mark.anyio

SERVER = textwrap.dedent('''
    import logging

    from mcp.server import MCPServer

    logger = logging.getLogger("catalog")
    mcp = MCPServer("Catalog")


    @mcp.tool()
    def find(query: str) -> str:
        """Search the catalog."""
        logger.info("looking for %r", query)
        return f"2 results for {query!r}"


    if __name__ == "__main__":
        mcp.run()
''')


async def test_the_log_line_goes_to_stderr_not_into_the_result(tmp_path: Path) -> None:
    script = tmp_path / "server.py"
    script.write_text(SERVER)
    errlog = (tmp_path / "stderr.txt").open("w+")
    messages: list[Any] = []

    async def on_message(message: Any) -> None:
        messages.append(message)

    params = StdioServerParameters(command=sys.executable, args=[str(script)])
    with anyio.fail_after(30):
        async with Client(stdio_client(params, errlog=errlog), message_handler=on_message) as client:
            result = await client.call_tool("find", {"query": "moss"})
    assert result.content == [TextContent(text="2 results for 'moss'")]
    assert result.structured_content == {"result": "2 results for 'moss'"}
    assert messages == []  # nothing about the log line crossed the wire
    errlog.seek(0)
    assert "looking for 'moss'" in errlog.read()
    errlog.close()


def test_log_level_configures_logging_only_when_nothing_did_first() -> None:
    root = logging.getLogger()
    saved = root.handlers[:], root.level
    try:
        root.handlers, root.level = [], logging.WARNING
        MCPServer("Verbose", log_level="DEBUG")
        assert root.level == logging.DEBUG and root.handlers
        root.handlers, root.level = [logging.NullHandler()], logging.WARNING
        MCPServer("Verbose", log_level="DEBUG")
        assert root.level == logging.WARNING
    finally:
        root.handlers, root.level = saved


async def test_a_line_below_the_level_the_client_set_never_reaches_it() -> None:
    mcp = MCPServer("Chatty")

    @mcp.tool()
    async def work(ctx: Context) -> str:
        await ctx.debug("debug detail")
        await ctx.info("progressing")
        await ctx.warning("disk almost full")
        return "done"

    received: list[LoggingMessageNotificationParams] = []

    async def on_log(params: LoggingMessageNotificationParams) -> None:
        received.append(params)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # protocol logging is deprecated; this pins its filter still holds
        with anyio.fail_after(10):
            async with Client(mcp, logging_callback=on_log, log_level="warning") as client:
                assert (await client.call_tool("work", {})).content == [TextContent(text="done")]
    assert [(entry.level, entry.data) for entry in received] == [("warning", "disk almost full")]
