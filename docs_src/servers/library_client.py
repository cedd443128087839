import asyncio

from library import mcp

from mcp import Client


async def main() -> None:
    async with Client(mcp) as client:
        listing = await client.read_resource("library://catalogue")
        print(listing.contents[0].text)
        one = await client.read_resource("library://books/emma")
        print(one.contents[0].text)
        prompt = await client.get_prompt("review", {"book_id": "dune"})
        print(prompt.messages[0].content.text)
        result = await client.call_tool("count_words", {"text": "a tale of two cities"})
        print(result.structured_content)


if __name__ == "__main__":
    asyncio.run(main())
