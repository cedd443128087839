import asyncio
import sys

from mcp import Client


async def main(url: str) -> None:
    async with Client(url) as client:
        tools = await client.list_tools()
        print([tool.name for tool in tools.tools])
        result = await client.call_tool("get_temperature", {"city": "Reykjavik"})
        print(result.structured_content)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))  # e.g. http://127.0.0.1:8000/mcp
