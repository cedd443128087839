"""Tools whose arguments are real pydantic models (nesting, enums, unions, Optional, recursion,
constraints, Literal), for the portable-schema tests; run as a script, a stdio server with
`portable_schemas=True` (spawned by test_portable_schemas.py)."""

from __future__ import annotations

import enum
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from mcp.server import MCPServer


class Priority(enum.IntEnum):
    LOW = 1
    HIGH = 2


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


class Address(BaseModel):
    """A postal address."""

    street: str = Field(min_length=1)
    postcode: Annotated[str, Field(pattern=r"^[0-9]{5}$")]
    country: Literal["FR", "DE"] = "FR"


class Cat(BaseModel):
    kind: Literal["cat"] = "cat"
    lives: int = Field(default=9, ge=0, le=9)


class Dog(BaseModel):
    kind: Literal["dog"] = "dog"
    good: bool = True


class Customer(BaseModel):
    name: str
    home: Address
    work: Address | None = None
    favourite: Color = Color.RED
    pet: Annotated[Cat | Dog, Field(discriminator="kind")]
    tags: list[str] = Field(default_factory=list[str], max_length=5)


class Order(BaseModel):
    customer: Customer
    priority: Priority = Priority.LOW
    quantity: int | str = 1
    notes: dict[str, int] = {}


def place_order(
    order: Order,
    express: bool = False,
    mode: Literal["auto", 1] = "auto",
    limit: int = None,  # noqa: RUF013  # pyright: ignore[reportArgumentType]  # pydantic's null default on an int
) -> Customer:
    """Place an order.

    Args:
        order: The order to place.
        express: Ship the same day.
    """
    return order.customer


class Node(BaseModel):
    value: int
    children: list[Node] = []


def tree_sum(root: Node) -> int:
    """Sum the values of a tree."""

    def total(node: Node) -> int:
        return node.value + sum(total(child) for child in node.children)

    return total(root)


def build(**options: Any) -> MCPServer:
    mcp = MCPServer("portable", **options)
    mcp.add_tool(place_order)
    return mcp


if __name__ == "__main__":
    build(portable_schemas=True).run()
