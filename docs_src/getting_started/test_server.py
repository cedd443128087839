import pytest

from mcp import Client
from server import mcp


@pytest.mark.anyio
async def test_the_temperature_comes_back_as_data() -> None:
    async with Client(mcp) as client:
        result = await client.call_tool("get_temperature", {"city": "London"})
    assert result.structured_content == {"result": 17}
