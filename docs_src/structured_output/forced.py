from mcp.server import MCPServer

mcp = MCPServer("Harbour")


class Berth:
    def __init__(self, number: int, free: bool) -> None:
        self.number = number
        self.free = free


@mcp.tool(structured_output=True)
def get_berth(number: int) -> Berth:
    """A berth of the harbour."""
    return Berth(number=number, free=True)
