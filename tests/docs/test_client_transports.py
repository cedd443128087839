"""docs/client/transports.md: what `Client(...)` resolves its argument to, and how HTTP is
configured on a client of your own (an `httpx2.AsyncClient` as the page shows, or an
`httpx.AsyncClient`), over a real uvicorn."""

from __future__ import annotations

import inspect
import sys
from pathlib import Path

import anyio
import httpx
import httpx2
import pytest

from mcp import Client
from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client
from mcp.types import TextContent

sys.path.insert(0, str(Path(__file__).parent))
from client_pages_kit import Recorder, bookshop, serving

if sys.version_info < (3, 11):
    from exceptiongroup import ExceptionGroup  # pyright: ignore[reportMissingImports]  # (3.10 only)

pytestmark = pytest.mark.anyio


def _text(result: object) -> str:
    (block,) = result.content  # type: ignore[attr-defined]
    assert isinstance(block, TextContent)
    return block.text


async def test_the_server_object_itself_connects_in_memory_through_the_real_protocol() -> None:
    async with Client(bookshop()) as client:
        tools = await client.list_tools()
        assert [tool.name for tool in tools.tools] == ["search_books"]
        result = await client.call_tool("search_books", {"query": "Dune"})
        assert _text(result) == "Found 3 books matching 'Dune'."
        invalid = await client.call_tool("search_books", {})
        assert invalid.is_error  # validated as it would be over HTTP


async def test_a_url_string_is_streamable_http() -> None:
    mcp = bookshop()
    with serving(lambda: mcp.streamable_http_app()) as base, anyio.fail_after(30):
        async with Client(f"{base}/mcp") as client:
            assert client.server_info is not None and client.server_info.name == "Bookshop"
            assert _text(await client.call_tool("search_books", {"query": "x"})) == "Found 3 books matching 'x'."


def test_the_default_http_client_is_an_httpx2_client_configured_for_mcp() -> None:
    client = create_mcp_http_client()
    assert isinstance(client, httpx2.AsyncClient)
    assert client.follow_redirects is True
    assert client.timeout == httpx2.Timeout(30.0, read=300.0)


async def test_constructing_a_client_connects_nothing_and_using_it_before_entering_says_so() -> None:
    client = Client("http://127.0.0.1:9/mcp")  # nothing listens there: construction is free
    with pytest.raises(RuntimeError, match=r"^Client must be used within an async context manager$"):
        await client.list_tools()


@pytest.mark.parametrize("library", [httpx2, httpx], ids=["httpx2", "httpx"])
async def test_headers_and_timeouts_live_on_your_own_http_client_of_either_library(library: object) -> None:
    recorder: list[Recorder] = []
    mcp = bookshop()

    def app() -> Recorder:
        recorder.append(Recorder(mcp.streamable_http_app()))
        return recorder[0]

    with serving(app) as base, anyio.fail_after(30):
        async with library.AsyncClient(  # type: ignore[attr-defined]
            headers={"Authorization": "Bearer docs-page"},
            timeout=library.Timeout(30.0, read=300.0),  # type: ignore[attr-defined]
            follow_redirects=True,
        ) as http_client:
            transport = streamable_http_client(f"{base}/mcp", http_client=http_client)
            async with Client(transport) as client:
                tools = await client.list_tools()
                assert [tool.name for tool in tools.tools] == ["search_books"]
            # You own the client: the SDK never closes one it did not create.
            assert not http_client.is_closed
            answer = await http_client.get(f"{base}/nowhere")
            assert answer.status_code == 404
    posts = recorder[0].posts()
    assert posts and all(r["headers"].get("authorization") == "Bearer docs-page" for r in posts)


@pytest.mark.parametrize("library", [httpx2, httpx], ids=["httpx2", "httpx"])
async def test_a_connection_failure_is_an_error_not_a_hang_with_either_library(library: object) -> None:
    with anyio.fail_after(30):
        async with library.AsyncClient(timeout=5) as http_client:  # type: ignore[attr-defined]
            transport = streamable_http_client("http://127.0.0.1:9/mcp", http_client=http_client)
            # As officially: the library's own ConnectError, inside an ExceptionGroup.
            with pytest.raises(ExceptionGroup) as info:
                async with Client(transport):
                    pass
    (error,) = info.value.exceptions
    assert isinstance(error, library.ConnectError)  # type: ignore[attr-defined]


def test_streamable_http_client_takes_no_headers_keyword() -> None:
    with pytest.raises(TypeError, match="unexpected keyword argument 'headers'"):
        streamable_http_client("http://127.0.0.1:9/mcp", headers={"X": "1"})  # type: ignore[call-arg]
    assert list(inspect.signature(streamable_http_client).parameters)[:3] == ["url", "http_client",
                                                                            "terminate_on_close"]


async def test_a_stdio_subprocess_gets_an_allow_listed_environment_plus_env(tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    from mcp import StdioServerParameters

    server = tmp_path / "env_server.py"
    server.write_text(
        "import os\n"
        "from mcp.server import MCPServer\n"
        "mcp = MCPServer('Env')\n"
        "@mcp.tool()\n"
        "def read(name: str) -> str:\n"
        "    return os.environ.get(name, '<unset>')\n"
        "mcp.run()\n"
    )
    monkeypatch.setenv("DOCS_PAGE_SECRET", "must-not-leak")
    params = StdioServerParameters(command=sys.executable, args=[str(server)],
                                   env={"BOOKSHOP_API_KEY": "given"})
    with anyio.fail_after(60):
        async with Client(params) as client:
            assert _text(await client.call_tool("read", {"name": "BOOKSHOP_API_KEY"})) == "given"
            assert _text(await client.call_tool("read", {"name": "DOCS_PAGE_SECRET"})) == "<unset>"
            assert _text(await client.call_tool("read", {"name": "PATH"})) != "<unset>"


async def test_anything_else_is_entered_as_a_transport() -> None:
    mcp = bookshop()
    entered: list[bool] = []

    class Wrapped:
        """A transport of our own: wraps the Streamable HTTP one and notes that it was entered."""

        def __init__(self, url: str) -> None:
            self.inner = streamable_http_client(url)

        async def __aenter__(self) -> object:
            entered.append(True)
            return await self.inner.__aenter__()

        async def __aexit__(self, *exc: object) -> object:
            return await self.inner.__aexit__(*exc)  # type: ignore[arg-type]

    with serving(lambda: mcp.streamable_http_app()) as base, anyio.fail_after(30):
        async with Client(Wrapped(f"{base}/mcp")) as client:
            assert [tool.name for tool in (await client.list_tools()).tools] == ["search_books"]
    assert entered == [True]


def _reporting_server() -> object:
    from mcp.server import MCPServer
    from mcp.server.mcpserver import Context

    mcp = MCPServer("Importer")

    @mcp.tool()
    async def import_all(ctx: Context) -> str:
        for step in range(1, 4):
            await ctx.report_progress(step, 3, f"step {step}")
        return "imported"

    return mcp


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_in_memory_every_progress_report_lands_before_call_tool_returns(mode: str) -> None:
    seen: list[float] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append(progress)

    async with Client(_reporting_server(), mode=mode) as client:
        await client.call_tool("import_all", {}, progress_callback=on_progress)
        assert seen == [1, 2, 3]


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_over_http_progress_callbacks_race_the_result_and_never_block_it(mode: str) -> None:
    mcp = _reporting_server()
    release = anyio.Event()
    all_done = anyio.Event()
    started: list[float] = []
    finished: list[float] = []

    async def slow(progress: float, total: float | None, message: str | None) -> None:
        started.append(progress)
        await release.wait()  # held until after call_tool has returned
        finished.append(progress)
        if len(finished) == 3:
            all_done.set()

    with serving(lambda: mcp.streamable_http_app()) as base, anyio.fail_after(30):  # type: ignore[attr-defined]
        async with Client(f"{base}/mcp", mode=mode) as client:
            result = await client.call_tool("import_all", {}, progress_callback=slow)
            assert _text(result) == "imported"
            assert finished == []  # the slow callback has not finished, yet the result is here
            release.set()
            await all_done.wait()  # the reports all arrive, in order
    assert started == finished == [1, 2, 3]
