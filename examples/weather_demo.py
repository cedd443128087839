"""The main job, end to end: start the seed page's weather server as a real stdio subprocess,
connect with `Client`, list its tools and call them, and show both channels of each result.

Run with `./dev demo`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import anyio

from mcp import Client, StdioServerParameters

SERVER = Path(__file__).with_name("weather_server.py")


async def main() -> None:
    params = StdioServerParameters(command=sys.executable, args=[str(SERVER)])
    for mode in ("auto", "legacy"):
        async with Client(params, mode=mode) as client:
            print(f"== connected to {client.server_info.name} over stdio, protocol {client.protocol_version} ==")
            for tool in (await client.list_tools()).tools:
                print(f"tool {tool.name}: output_schema = {json.dumps(tool.output_schema)}")
            for name, args in (("get_temperature", {"city": "London"}), ("get_weather", {"city": "Cairo"}),
                               ("get_temperatures", {"cities": ["London", "Reykjavik"]})):
                result = await client.call_tool(name, args)
                print(f"\n{name}({args})")
                print(f"  content            = {[block.text for block in result.content]}")
                print(f"  structured_content = {result.structured_content}")
            broken = await client.call_tool("get_broken_weather", {"city": "London"})
            print(f"\nget_broken_weather -> is_error={broken.is_error}\n  {broken.content[0].text.splitlines()[0]}\n")


if __name__ == "__main__":
    anyio.run(main)
