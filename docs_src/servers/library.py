from mcp.server.mcpserver import Context, MCPServer

mcp = MCPServer("Library")

BOOKS = {"dune": "Dune, Frank Herbert, 1965", "emma": "Emma, Jane Austen, 1815"}


@mcp.resource("library://catalogue", mime_type="text/plain")
def catalogue() -> str:
    """Every book, one per line."""
    return "\n".join(BOOKS.values())


@mcp.resource("library://books/{book_id}")
def book(book_id: str) -> str:
    """One book, by its id."""
    return BOOKS[book_id]


@mcp.prompt()
def review(book_id: str) -> str:
    """Ask for a short review of a book."""
    return f"Write a three-sentence review of {BOOKS[book_id]}."


@mcp.tool()
async def count_words(text: str, ctx: Context) -> int:
    """Count the words of a text, reporting progress to a client that asked for it."""
    words = text.split()
    await ctx.report_progress(len(words), len(words))
    return len(words)
