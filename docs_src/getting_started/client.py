import asyncio

from mcp import Client
from server import mcp


async def main() -> None:
    async with Client(mcp) as client:
        tools = await client.list_tools()
        print(tools.tools[0].output_schema)
        result = await client.call_tool("get_temperature", {"city": "London"})
        print(result.content)
        print(result.structured_content)


if __name__ == "__main__":
    asyncio.run(main())
