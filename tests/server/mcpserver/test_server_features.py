"""Resources, templates, prompts, completions, pagination, progress, logging, cancellation and
lifespan through `Client(mcp)`, in both protocol eras."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import anyio
import pytest
from pydantic import Field

from mcp import Client, MCPError
from mcp.server.mcpserver import Context, Image, MCPServer, UserMessage
from mcp.types import (
    BlobResourceContents,
    Completion,
    ImageContent,
    PromptReference,
    ResourceTemplateReference,
    TextContent,
    TextResourceContents,
)

pytestmark = pytest.mark.anyio
MODES = ["auto", "legacy"]
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 8


def make_server(**kwargs: Any) -> MCPServer:
    mcp = MCPServer("features", **kwargs)

    @mcp.resource("data://greeting", mime_type="text/plain")
    def greeting() -> str:
        return "hello"

    @mcp.resource("data://logo", mime_type="image/png")
    def logo() -> bytes:
        return PNG

    @mcp.resource("data://config")
    def config() -> dict[str, int]:
        return {"retries": 3}

    @mcp.resource("users://{user_id}/profile", mime_type="application/json")
    def profile(user_id: int) -> dict[str, Any]:
        return {"id": user_id, "kind": type(user_id).__name__}

    @mcp.resource("files://{+path}")
    def file(path: str) -> str:
        return f"file {path}"

    @mcp.prompt()
    def review(code: str, language: str = Field(default="python", description="The code's language.")) -> str:
        """Review some code."""
        return f"Review this {language}: {code}"

    @mcp.prompt()
    def show(caption: str) -> list[UserMessage]:
        return [UserMessage(Image(data=PNG, format="png")), UserMessage(caption)]

    @mcp.completion()
    async def complete(ref: Any, argument: Any, context: Any) -> Completion | None:
        if isinstance(ref, PromptReference) and argument.name == "language":
            return Completion(values=[v for v in ("python", "pascal", "perl") if v.startswith(argument.value)])
        if isinstance(ref, ResourceTemplateReference) and context is not None:
            return Completion(values=[f"{context.arguments.get('prefix', '')}{argument.value}1"])
        return None

    return mcp


@pytest.mark.parametrize("mode", MODES)
async def test_static_resources_map_return_types_to_contents(mode: str) -> None:
    async with Client(make_server(), mode=mode) as client:
        listed = {str(r.uri): r for r in (await client.list_resources()).resources}
        assert set(listed) == {"data://greeting", "data://logo", "data://config"}
        assert listed["data://config"].mime_type == "text/plain"
        text = (await client.read_resource("data://greeting")).contents[0]
        assert isinstance(text, TextResourceContents) and text.text == "hello"
        blob = (await client.read_resource("data://logo")).contents[0]
        assert isinstance(blob, BlobResourceContents) and blob.mime_type == "image/png"
        config = (await client.read_resource("data://config")).contents[0]
        assert isinstance(config, TextResourceContents) and '"retries": 3' in config.text


@pytest.mark.parametrize("mode", MODES)
async def test_templates_match_and_convert_variables(mode: str) -> None:
    async with Client(make_server(), mode=mode) as client:
        templates = [t.uri_template for t in (await client.list_resource_templates()).resource_templates]
        assert templates == ["users://{user_id}/profile", "files://{+path}"]
        profile = (await client.read_resource("users://42/profile")).contents[0]
        assert '"kind": "int"' in profile.text and '"id": 42' in profile.text
        nested = (await client.read_resource("files://a/b/c.txt")).contents[0]
        assert nested.text == "file a/b/c.txt"


@pytest.mark.parametrize("mode", MODES)
async def test_an_unknown_resource_is_invalid_params_on_every_era(mode: str) -> None:
    async with Client(make_server(), mode=mode) as client:
        with pytest.raises(MCPError) as info:
            await client.read_resource("data://missing")
    # -32602 on every revision, as the official SDK answers (SEP-2164).
    assert (info.value.code, info.value.message) == (-32602,
                                                     "Unknown resource: data://missing")
    assert info.value.data == {"uri": "data://missing"}


async def test_path_traversal_in_a_template_looks_like_no_match() -> None:
    async with Client(make_server()) as client:
        with pytest.raises(MCPError) as info:
            await client.read_resource("files://../etc/passwd")
    assert info.value.code == -32602


@pytest.mark.parametrize("mode", MODES)
async def test_prompts_list_arguments_and_render_messages(mode: str) -> None:
    async with Client(make_server(), mode=mode) as client:
        prompts = {p.name: p for p in (await client.list_prompts()).prompts}
        args = {a.name: a for a in prompts["review"].arguments or []}
        assert args["code"].required is True and args["language"].required is False
        assert args["language"].description == "The code's language."
        result = await client.get_prompt("review", {"code": "x = 1"})
        assert result.messages[0].content == TextContent(text="Review this python: x = 1")
        shown = await client.get_prompt("show", {"caption": "look"})
        assert isinstance(shown.messages[0].content, ImageContent)


@pytest.mark.parametrize("mode", MODES)
async def test_a_missing_prompt_argument_is_an_error_naming_it_on_the_handshake_era_wire(mode: str) -> None:
    async with Client(make_server(), mode=mode) as client:
        with pytest.raises(MCPError) as info:
            await client.get_prompt("review", {})
    if mode == "legacy":
        assert (info.value.code, info.value.message) == (0, "Missing required arguments: {'code'}")
    else:  # 2026-07-28: a handler's failure is an opaque internal error, as officially
        assert (info.value.code, info.value.message) == (-32603, "Internal server error")


@pytest.mark.parametrize("mode", MODES)
async def test_completions_serve_prompts_and_templates_with_context(mode: str) -> None:
    async with Client(make_server(), mode=mode) as client:
        assert client.server_capabilities.completions is not None
        done = await client.complete(PromptReference(name="review"), {"name": "language", "value": "p"})
        assert done.completion.values == ["python", "pascal", "perl"]
        dependent = await client.complete(ResourceTemplateReference(uri="users://{user_id}/profile"),
                                          {"name": "user_id", "value": "4"}, context_arguments={"prefix": "x"})
        assert dependent.completion.values == ["x41"]
        empty = await client.complete(PromptReference(name="show"), {"name": "caption", "value": ""})
        assert empty.completion.values == []


async def test_the_completions_capability_appears_only_with_a_handler() -> None:
    async with Client(MCPServer("bare")) as client:
        assert client.server_capabilities.completions is None


@pytest.mark.parametrize("mode", MODES)
async def test_list_results_are_paged_with_a_configurable_size(mode: str) -> None:
    mcp = MCPServer("paged", page_size=2)
    for i in range(5):
        mcp.add_tool(lambda: "x", name=f"tool_{i}")
    async with Client(mcp, mode=mode) as client:
        names: list[str] = []
        cursor = None
        pages = 0
        while True:
            page = await client.list_tools(cursor=cursor)
            names += [t.name for t in page.tools]
            pages += 1
            cursor = page.next_cursor
            if cursor is None:
                break
        assert names == [f"tool_{i}" for i in range(5)] and pages == 3
        with pytest.raises(MCPError) as info:
            await client.list_tools(cursor="not-a-cursor")
        assert info.value.code == -32602


@pytest.mark.parametrize("mode", MODES)
async def test_progress_reaches_the_callback_and_is_a_noop_without_a_token(mode: str) -> None:
    mcp = MCPServer("progress")

    @mcp.tool()
    async def work(ctx: Context) -> str:
        for step in (1, 2):
            await ctx.report_progress(step, 2, f"step {step}")
        return "done"

    seen: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))

    async with Client(mcp, mode=mode) as client:
        await client.call_tool("work", {}, progress_callback=on_progress)
        assert (await client.call_tool("work", {})).content[0].text == "done"
    assert seen == [(1, 2, "step 1"), (2, 2, "step 2")]


async def test_a_cancelled_call_stops_the_handler_and_the_connection_keeps_working() -> None:
    mcp = MCPServer("slow")
    started = anyio.Event()
    stopped = anyio.Event()

    @mcp.tool()
    async def slow() -> str:
        started.set()
        try:
            await anyio.sleep(30)
        finally:
            stopped.set()
        return "late"

    @mcp.tool()
    def fast() -> str:
        return "fast"

    async with Client(mcp, mode="legacy") as client:
        async with anyio.create_task_group() as tg:
            tg.start_soon(client.call_tool, "slow", {})
            with anyio.fail_after(5):
                await started.wait()
            tg.cancel_scope.cancel()
        with anyio.fail_after(5):
            await stopped.wait()
        assert (await client.call_tool("fast", {})).content[0].text == "fast"


async def test_a_sync_tool_can_poll_ctx_cancelled() -> None:
    mcp = MCPServer("poll")
    observed = anyio.Event()
    import threading

    flag = threading.Event()
    running = threading.Event()

    @mcp.tool()
    def loop(ctx: Context) -> str:
        running.set()
        for _ in range(500):
            if ctx.cancelled:
                flag.set()
                return "stopped"
            threading.Event().wait(0.01)
        return "ran out"

    async with Client(mcp, mode="legacy") as client:
        async with anyio.create_task_group() as tg:
            tg.start_soon(client.call_tool, "loop", {})
            assert await anyio.to_thread.run_sync(running.wait, 5)
            tg.cancel_scope.cancel()
        assert await anyio.to_thread.run_sync(flag.wait, 5)
        observed.set()
    assert observed.is_set()


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_a_def_tool_uses_anyio_from_thread_and_stops_at_its_next_check_cancelled(mode: str, anyio_backend: str) -> None:
    import threading

    import anyio.from_thread

    mcp = MCPServer("bookshop")
    started = anyio.Event()
    resume = threading.Event()
    steps: list[int] = []
    outcome: list[str] = []
    stopped = threading.Event()

    @mcp.tool()
    def rebuild_index(count: int) -> str:
        try:
            for step in range(count):
                anyio.from_thread.check_cancelled()
                steps.append(step)
                anyio.from_thread.run_sync(started.set)  # back on the event loop
                assert resume.wait(5)
        except BaseException as exc:
            outcome.append(type(exc).__name__)
            stopped.set()
            raise
        outcome.append("finished")
        return f"indexed {count}"

    async with Client(mcp, mode=mode) as client:
        resume.set()
        assert (await client.call_tool("rebuild_index", {"count": 2})).structured_content == {"result": "indexed 2"}
        resume.clear()
        started = anyio.Event()
        async with anyio.create_task_group() as tg:
            tg.start_soon(client.call_tool, "rebuild_index", {"count": 3})
            with anyio.fail_after(5):
                await started.wait()
            tg.cancel_scope.cancel()
        await anyio.wait_all_tasks_blocked()  # the server has taken the cancellation in
        resume.set()  # the tool goes on to its next check, which stops it
        assert await anyio.to_thread.run_sync(stopped.wait, 5)
    assert steps == [0, 1, 0] and outcome == ["finished", "CancelledError" if anyio_backend == "asyncio" else "Cancelled"]


@dataclass
class AppState:
    db: str


async def test_the_lifespan_is_entered_once_and_reachable_from_context() -> None:
    entered: list[str] = []

    @asynccontextmanager
    async def lifespan(server: MCPServer[AppState]) -> AsyncIterator[AppState]:
        entered.append("in")
        yield AppState(db="sqlite://")
        entered.append("out")

    mcp = MCPServer("life", lifespan=lifespan)

    @mcp.tool()
    def which_db(ctx: Context[AppState]) -> str:
        return ctx.request_context.lifespan_context.db

    async with Client(mcp) as client:
        assert (await client.call_tool("which_db", {})).content[0].text == "sqlite://"
        assert (await client.call_tool("which_db", {})).content[0].text == "sqlite://"
    assert entered == ["in", "out"]


@pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")  # subscribe is a retired verb
@pytest.mark.parametrize("mode", MODES)
async def test_legacy_subscribe_delivers_resource_updated(mode: str) -> None:
    if mode == "auto":
        pytest.skip("resources/subscribe is a handshake-era method (2026-07-28 uses subscriptions/listen)")
    mcp = make_server()

    @mcp.tool()
    async def touch(ctx: Context) -> str:
        await ctx.notify_resource_updated("data://greeting")
        return "touched"

    updates: list[str] = []
    got = anyio.Event()

    async def handler(message: Any) -> None:
        from mcp.types import ResourceUpdatedNotification

        if isinstance(message, ResourceUpdatedNotification):  # typed, as in the official SDK
            updates.append(str(message.params.uri))
            got.set()

    async with Client(mcp, mode=mode, message_handler=handler) as client:
        await client.subscribe_resource("data://greeting")
        await client.call_tool("touch", {})
        with anyio.fail_after(5):
            await got.wait()
        await client.unsubscribe_resource("data://greeting")
    assert updates == ["data://greeting"]


async def test_deprecated_features_warn_with_mcp_deprecation_warning() -> None:
    from mcp.shared.exceptions import MCPDeprecationWarning

    mcp = MCPServer("old")

    @mcp.tool()
    async def old_log(ctx: Context) -> str:
        await ctx.info("hello")
        return "logged"

    async with Client(mcp, mode="legacy") as client:
        with pytest.warns(MCPDeprecationWarning, match=r"^ping is removed as of 2026-07-28; the method only works under mode='legacy'\.$"):
            await client.send_ping()
        with pytest.warns(MCPDeprecationWarning, match="logging capability is deprecated"):
            result = await client.call_tool("old_log", {})
        assert result.content[0].text == "logged"

    async def on_roots(ctx: Any) -> Any:
        return None

    Client(mcp, list_roots_callback=on_roots)  # as official: declaring a callback does not warn

    async def on_sampling(ctx: Any, params: Any) -> Any:
        return None

    Client(mcp, sampling_callback=on_sampling)
