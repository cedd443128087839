"""A low-level `Server` over stdio with what issue 3 asks to see on a real wire: a result and an
output schema put on the wire as returned, `_meta` the application sees, a crashing handler, a
custom method with validated params, a notification handler, and two middlewares (a recorder that
reports what it saw through the custom method `trail/get`, and a policy that refuses one tool)."""

from __future__ import annotations

import logging
import sys
from typing import Any

import anyio

from mcp import MCPError
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.types import (
    CallToolRequestParams,
    CallToolResult,
    ListToolsResult,
    RequestParams,
    Result,
    TextContent,
    Tool,
)

# Key order, spacing inside values and vendor keys must reach the client untouched.
ODD_SCHEMA = {"type": "object", "properties": {"z": {"type": "string", "pattern": "^a  b$"}, "a": {"type": "integer"}},
              "required": ["z"], "$schema": "https://json-schema.org/draft/2020-12/schema", "x-vendor": [1, {"k": None}]}

trail: list[str] = []
notes: list[int] = []


async def list_tools(ctx: Any, params: Any) -> ListToolsResult:
    return ListToolsResult(tools=[Tool(name=name, input_schema={"type": "object"}, output_schema=ODD_SCHEMA)
                                  for name in ("echo", "crash", "forbidden")])


async def call_tool(ctx: Any, params: CallToolRequestParams) -> CallToolResult:
    args = params.arguments or {}
    if params.name == "crash":
        raise RuntimeError("database password is hunter2")
    return CallToolResult(content=[TextContent(text=str(args))], structured_content={"z": "a  b", "a": args.get("a", 0)},
                          _meta={"app/only": {"secret": 1, "echo": args.get("tag")}})


class SearchParams(RequestParams):
    query: str
    limit: int = 3


class SearchResult(Result):
    hits: list[str]


class TrailResult(Result):
    trail: list[str]
    notes: list[int]


class NoteParams(RequestParams):
    count: int


async def search(ctx: Any, params: SearchParams) -> SearchResult:
    return SearchResult(hits=[f"{params.query}-{i}" for i in range(params.limit)])


async def get_trail(ctx: Any, params: RequestParams | None) -> TrailResult:
    return TrailResult(trail=list(trail), notes=list(notes))


async def on_note(ctx: Any, params: NoteParams) -> None:
    notes.append(params.count)


def recorder(tag: str) -> Any:
    async def middleware(ctx: Any, call_next: Any) -> Any:
        if ctx.method != "trail/get":
            trail.append(f"{tag}>{ctx.method}")
        return await call_next(ctx)

    return middleware


async def policy(ctx: Any, call_next: Any) -> Any:
    if ctx.method == "tools/call" and (ctx.params or {}).get("name") == "forbidden":
        raise MCPError(-32001, "Forbidden by policy", {"tool": "forbidden"})
    return await call_next(ctx)


server = Server("low-stdio", version="9", on_list_tools=list_tools, on_call_tool=call_tool)
server.add_request_handler("vendor/search", SearchParams, search)
server.add_request_handler("trail/get", RequestParams, get_trail)
server.add_notification_handler("vendor/note", NoteParams, on_note)
server.middleware.extend([recorder("outer"), policy, recorder("inner")])


async def main() -> None:
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    logging.basicConfig(stream=sys.stderr, level=logging.ERROR)
    anyio.run(main)
