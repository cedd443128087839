import asyncio
import sys
from pathlib import Path

from mcp import Client, StdioServerParameters

SERVER = Path(__file__).parent.parent / "getting_started" / "server.py"


async def main() -> None:
    params = StdioServerParameters(command=sys.executable, args=[str(SERVER)])
    async with Client(params) as client:
        print("protocol", client.protocol_version)
        result = await client.call_tool("get_temperature", {"city": "Cairo"})
        print(result.structured_content)


if __name__ == "__main__":
    asyncio.run(main())
