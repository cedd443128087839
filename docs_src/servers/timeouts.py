import asyncio
import time

import anyio.from_thread

from mcp import Client
from mcp.server import MCPServer

mcp = MCPServer("Reports", tool_timeout=30)  # no tool call may run longer than 30 s...


@mcp.tool(timeout=0.5)  # ...and this one no longer than 0.5 s: a tool's own timeout wins
async def build_report() -> str:
    await asyncio.sleep(60)  # cancelled when the 0.5 s are up
    return "report"


@mcp.tool(timeout=0.5)
def crunch() -> str:
    for _ in range(600):  # a minute of work, in small steps
        anyio.from_thread.check_cancelled()  # raises once the timeout has passed: the thread stops here
        time.sleep(0.1)
    return "crunched"


@mcp.tool()
def ping() -> str:
    return "pong"


async def main() -> None:
    async with Client(mcp) as client:
        for name in ("build_report", "crunch", "ping"):
            result = await client.call_tool(name, {})
            print(result.is_error, result.content[0].text)


if __name__ == "__main__":
    asyncio.run(main())
