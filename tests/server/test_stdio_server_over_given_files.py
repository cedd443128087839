"""`stdio_server(stdin, stdout)` serves over the given text files (the official signature),
leaving the process's own descriptors alone."""

import io
import json
import os
from typing import Any

import anyio
import pytest

from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server
from mcp.types import ListToolsResult, PaginatedRequestParams, Tool

pytestmark = pytest.mark.anyio


async def test_a_server_answers_over_the_files_it_was_given() -> None:
    async def list_tools(ctx: ServerRequestContext[Any, Any], params: PaginatedRequestParams | None) -> ListToolsResult:
        return ListToolsResult(tools=[Tool(name="piped", input_schema={"type": "object"})])

    server = Server("files", on_list_tools=list_tools)
    in_read, in_write = os.pipe()
    out_read, out_write = os.pipe()
    requests = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]
    with os.fdopen(in_write, "w") as feed:
        feed.write("".join(json.dumps(request) + "\n" for request in requests))
    stdout_fd_before = os.fstat(1)
    stdin_file = anyio.wrap_file(io.TextIOWrapper(os.fdopen(in_read, "rb"), encoding="utf-8"))
    stdout_file = anyio.wrap_file(io.TextIOWrapper(os.fdopen(out_write, "wb"), encoding="utf-8"))
    with anyio.fail_after(10):
        async with stdio_server(stdin_file, stdout_file) as (read_stream, write_stream):
            assert os.fstat(1) == stdout_fd_before  # fd 1 untouched
            await server.run(read_stream, write_stream, server.create_initialization_options())
    await stdout_file.aclose()
    await stdin_file.aclose()
    with os.fdopen(out_read) as answers:
        lines = [json.loads(line) for line in answers.read().splitlines()]
    assert [line["id"] for line in lines] == [1, 2]
    assert lines[1]["result"]["tools"][0]["name"] == "piped"
