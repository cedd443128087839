"""A small server with one of each thing the client commands show: tools (one reporting
progress and logging, one asking the user a question, one failing), a resource, a resource
template, a prompt, and a binary resource."""

import sys
from typing import Annotated

from pydantic import BaseModel

from mcp.server import MCPServer
from mcp.server.mcpserver import AcceptedElicitation, Context, Elicit, ElicitationResult, Resolve
from mcp.server.mcpserver.exceptions import ToolError

mcp = MCPServer("Bookshop", version="1.0.0")

BOOKS = {"dune": "Dune", "emma": "Emma"}


class Book(BaseModel):
    slug: str
    title: str
    copies: int


@mcp.tool()
def find_book(slug: str, copies: int = 1) -> Book:
    """Look a book up by its slug."""
    return Book(slug=slug, title=BOOKS[slug], copies=copies)


@mcp.tool()
def echo_text(text: str) -> str:
    """Return the text unchanged (a string argument stays a string)."""
    return text


@mcp.tool()
async def restock(count: int, ctx: Context) -> str:
    """Restock, reporting progress and logging as it goes."""
    for done in range(1, count + 1):
        await ctx.report_progress(done, count, f"box {done}")
    await ctx.info(f"restocked {count} boxes")
    return f"restocked {count}"


class Customer(BaseModel):
    name: str


async def ask_name() -> Elicit[Customer]:
    return Elicit("Who is buying?", Customer)


@mcp.tool()
async def greet_customer(customer: Annotated[ElicitationResult[Customer], Resolve(ask_name)]) -> str:
    """Ask the user for a name, then greet them."""
    if isinstance(customer, AcceptedElicitation):
        return f"hello {customer.data.name}"
    return f"no name ({customer.action})"


@mcp.tool()
def out_of_stock(slug: str) -> str:
    """Always fails, as a deliberate tool error (its text reaches the client)."""
    raise ToolError(f"{slug} is out of stock")


@mcp.resource("shop://catalog", mime_type="text/plain")
def catalog() -> str:
    """Every title we sell."""
    return "\n".join(sorted(BOOKS.values()))


@mcp.resource("shop://cover.png", mime_type="image/png")
def cover() -> bytes:
    """A cover image (binary)."""
    return b"\x89PNG\r\n\x1a\nfake"


@mcp.resource("shop://books/{slug}")
def book_page(slug: str) -> str:
    """One book's page."""
    return f"{BOOKS[slug]} ({slug})"


@mcp.prompt()
def recommend(genre: str, mood: str = "cheerful") -> str:
    """Ask for a recommendation."""
    return f"Recommend a {mood} {genre} book."


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] in ("http", "sse"):
        mcp.run(transport="streamable-http" if sys.argv[1] == "http" else "sse", host="127.0.0.1",
                port=int(sys.argv[2]))
    else:
        mcp.run()
