"""The server the hardening tests attack over stdio.

Tools of every flavour (sync on a worker thread, async, slow, never-ending, failing), a prompt,
a static resource and two templates, a completion handler, and a `stats` tool that reports the
server's own bookkeeping (tasks, the peer's tables, live objects by type) so a test can assert
that nothing was left behind. Options: `--backend trio`, `--max-message-size N`, `--max-queued-output N`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from introspect import object_counts, task_count

from mcp.server import MCPServer
from mcp.server.mcpserver import Context


def build() -> MCPServer:
    """A fresh server (in-process tests build one per test)."""
    mcp = MCPServer("hardening-target", version="1.0.0")

    @mcp.tool()
    def echo(text: str) -> str:
        """Return `text` (sync: runs on a worker thread)."""
        return text

    @mcp.tool()
    async def add(a: int, b: int) -> int:
        return a + b

    @mcp.tool()
    async def slow_echo(token: str, seconds: float = 0.01) -> str:
        """Return `token` after a short sleep (capped: fuzzed arguments cannot hang the server)."""
        await anyio.sleep(min(max(seconds, 0.0), 0.5))
        return token

    @mcp.tool()
    async def hang(token: str) -> str:
        """Never returns by itself: only cancellation (or the end of the connection) ends it."""
        await anyio.sleep_forever()
        return token

    @mcp.tool()
    def bulk(size: int) -> str:
        """`size` bytes of text (capped at 1 MB), from a worker thread: big answers for output bounds."""
        return "x" * min(max(size, 0), 1 << 20)

    @mcp.tool()
    async def abulk(size: int) -> str:
        """Like `bulk`, from an async tool on the loop."""
        return "x" * min(max(size, 0), 1 << 20)

    @mcp.tool(input_schema={"type": "object", "properties": {"word": {"type": "string", "pattern": "^(a+)+$"}},
                            "required": ["word"]})
    def patterned(word: str) -> str:
        """A verbatim input schema whose `pattern` backtracks catastrophically under Python's `re`."""
        return word

    @mcp.tool()
    async def total(numbers: list[int]) -> int:
        """Typed arguments: a million wrong-typed items once made a million-entry error report."""
        return sum(numbers)

    @mcp.tool(input_schema={"type": "object", "properties": {"rows": {"type": "array", "uniqueItems": True}},
                            "required": ["rows"]})
    async def distinct(rows: list[Any]) -> int:
        """A verbatim input schema with `uniqueItems` (the stock keyword compares objects pairwise)."""
        return len(rows)

    @mcp.tool()
    def fail(message: str) -> str:
        raise ValueError(message)

    @mcp.tool()
    async def stats(ctx: Context, objects: bool = False) -> dict[str, Any]:
        """The server's own bookkeeping; `objects=True` adds live objects by type."""
        peer = ctx.session.peer
        report: dict[str, Any] = {
            "tasks": task_count(),
            "in_flight": len(peer._in_flight),
            "active": peer._active,
            "pending": len(peer._pending),
        }
        if objects:
            report["objects"] = dict(object_counts())
        return report

    @mcp.prompt()
    def greet(name: str) -> str:
        return f"Say hello to {name}."

    @mcp.resource("data://static")
    def static_data() -> str:
        return "static"

    @mcp.resource("item://{item_id}")
    def item(item_id: str) -> str:
        return f"item {item_id}"

    @mcp.resource("pair://{name}-{date}")
    def pair(name: str, date: str) -> str:
        """Two values split on a literal they may contain: a backtracking matcher is quadratic here."""
        return f"{len(name)} {date}"

    @mcp.completion()
    async def complete(ref: Any, argument: Any, context: Any) -> Any:
        return None

    async def not_json(ctx: Any, params: Any) -> Any:
        """A buggy low-level handler: its result holds a value JSON cannot carry."""
        from mcp.server.session import WireResult

        return WireResult({"value": float("nan")})

    mcp._lowlevel_server.add_request_handler("test/not_json", None, not_json)
    return mcp


mcp = build()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--backend", default="asyncio", choices=["asyncio", "trio"])
    parser.add_argument("--max-message-size", type=int, default=None)
    parser.add_argument("--max-queued-output", type=int, default=None)
    args = parser.parse_args()
    anyio.run(lambda: mcp.run_stdio_async(max_message_size=args.max_message_size,
                                          max_queued_output=args.max_queued_output), backend=args.backend)


if __name__ == "__main__":
    main()
