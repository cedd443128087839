from dataclasses import dataclass
from typing import TypedDict

from mcp.server import MCPServer

mcp = MCPServer("Harbour")


class TideDict(TypedDict):
    height: float
    rising: bool


@dataclass
class TideData:
    height: float
    rising: bool


class TideAnnotated:
    height: float
    rising: bool

    def __init__(self, height: float, rising: bool) -> None:
        self.height = height
        self.rising = rising


@mcp.tool()
def as_typed_dict(port: str) -> TideDict:
    return TideDict(height=3.4, rising=True)


@mcp.tool()
def as_dataclass(port: str) -> TideData:
    return TideData(height=3.4, rising=True)


@mcp.tool()
def as_annotated_class(port: str) -> TideAnnotated:
    return TideAnnotated(height=3.4, rising=True)
