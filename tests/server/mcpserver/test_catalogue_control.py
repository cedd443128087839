"""Catalogue control in memory, through a real `Client` on both eras: tags, `enable()`/`disable()`
by name, tag and kind, the allowlist mode, hidden items answered exactly as unknown ones, the
list_changed each change sends, per-session rules from `Context`, and `capabilities=`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anyio
import pytest

from mcp import Client
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPError

pytestmark = pytest.mark.anyio

TOOLS_CHANGED = "notifications/tools/list_changed"
RESOURCES_CHANGED = "notifications/resources/list_changed"
PROMPTS_CHANGED = "notifications/prompts/list_changed"


def build(**options: Any) -> MCPServer:
    mcp = MCPServer("catalogue", **options)

    @mcp.tool(tags={"admin"})
    def wipe() -> str:
        return "wiped"

    @mcp.tool(tags={"admin", "audit"})
    def audit_log() -> str:
        return "log"

    @mcp.tool()
    def status() -> str:
        return "ok"

    @mcp.tool()
    async def lock_admin() -> str:
        await mcp.disable(tags={"admin"})
        return "locked"

    @mcp.tool()
    def lock_admin_sync() -> str:  # a plain sync tool: served on a worker thread
        mcp.disable(tags={"admin"})
        return "locked"

    @mcp.tool()
    async def unlock_for_me(ctx: Context) -> str:
        await ctx.enable(tags={"admin"})
        return "unlocked"

    @mcp.tool()
    async def hide_status_for_me(ctx: Context) -> str:
        await ctx.disable("status")
        return "hidden"

    @mcp.resource("config://app", tags={"admin"})
    def config() -> str:
        return "cfg"

    @mcp.resource("users://{user_id}", tags={"admin"})
    def user(user_id: str) -> str:
        return user_id

    @mcp.prompt(tags={"admin"})
    def triage(issue: str) -> str:
        return f"triage {issue}"

    return mcp


def names(result: Any) -> list[str]:
    return [tool.name for tool in result.tools]


class Heard:
    """The notification methods a client received, and a way to wait for one."""

    def __init__(self) -> None:
        self.methods: list[str] = []
        self._arrived = anyio.Event()

    async def __call__(self, message: Any) -> None:
        method = getattr(message, "method", None)
        if method is not None:
            self.methods.append(method)
            self._arrived.set()

    async def wait_for(self, method: str) -> None:
        with anyio.fail_after(5):
            while method not in self.methods:
                self._arrived = anyio.Event()
                await self._arrived.wait()


async def test_tags_stay_on_the_server_so_a_tagged_server_lists_exactly_what_an_untagged_one_does() -> None:
    tagged, plain = MCPServer("same"), MCPServer("same")

    def add(a: int, b: int) -> int:
        return a + b

    tagged.add_tool(add, tags={"math"})
    plain.add_tool(add)
    for mode in ("legacy", "2026-07-28"):
        async with Client(tagged, mode=mode) as one, Client(plain, mode=mode) as other:
            assert (await one.list_tools()).model_dump() == (await other.list_tools()).model_dump()


async def test_a_disabled_tool_is_absent_from_the_list_and_its_call_is_answered_as_an_unknown_tools() -> None:
    mcp = build()
    mcp.disable(tags={"admin"})
    for mode in ("legacy", "2026-07-28"):
        async with Client(mcp, mode=mode) as client:
            assert "wipe" not in names(await client.list_tools())
            assert "audit_log" not in names(await client.list_tools())
            hidden = (await client.call_tool("wipe", {})).model_dump()
            unknown = (await client.call_tool("wipf", {})).model_dump()
            assert hidden["is_error"] is True
            assert hidden["content"][0]["text"] == "Unknown tool: wipe"
            assert unknown["content"][0]["text"] == "Unknown tool: wipf"
            assert {**hidden, "content": None} == {**unknown, "content": None}


async def test_disabled_resources_templates_and_prompts_are_unlisted_and_answered_as_unknown() -> None:
    mcp = build()
    mcp.disable(tags={"admin"}, kinds={"resource", "template", "prompt"})
    for mode in ("legacy", "2026-07-28"):
        async with Client(mcp, mode=mode) as client:
            assert "wipe" in names(await client.list_tools())  # kinds narrowed the rule
            assert (await client.list_resources()).resources == []
            assert (await client.list_resource_templates()).resource_templates == []
            assert (await client.list_prompts()).prompts == []
            for hidden, unknown in (("config://app", "config://nope"), ("users://ada", "nothing://ada")):
                with pytest.raises(MCPError) as seen_hidden:
                    await client.read_resource(hidden)
                with pytest.raises(MCPError) as seen_unknown:
                    await client.read_resource(unknown)
                assert seen_hidden.value.error.code == seen_unknown.value.error.code
                assert seen_hidden.value.error.message == f"Unknown resource: {hidden}"
                assert seen_unknown.value.error.message == f"Unknown resource: {unknown}"
            with pytest.raises(MCPError) as seen_prompt:
                await client.get_prompt("triage", {"issue": "x"})
            with pytest.raises(MCPError) as seen_missing:
                await client.get_prompt("triagf", {"issue": "x"})
            assert seen_prompt.value.error.code == seen_missing.value.error.code
            assert seen_prompt.value.error.message == seen_missing.value.error.message.replace(
                "triagf", "triage"
            )


async def test_a_resource_is_selected_by_its_uri_or_its_name_and_a_template_by_its_uri_template() -> None:
    mcp = build()
    mcp.disable(["config", "users://{user_id}"])
    async with Client(mcp) as client:
        assert (await client.list_resources()).resources == []
        assert (await client.list_resource_templates()).resource_templates == []
    mcp.enable("config://app")
    async with Client(mcp) as client:
        assert [str(r.uri) for r in (await client.list_resources()).resources] == ["config://app"]
        assert (await client.read_resource("config://app")).contents[0].text == "cfg"  # type: ignore[union-attr]


async def test_a_later_enable_overrides_an_earlier_disable_for_the_items_it_matches() -> None:
    mcp = build()
    mcp.disable(tags={"admin"})
    mcp.enable(tags={"audit"})
    async with Client(mcp) as client:
        listed = names(await client.list_tools())
        assert "audit_log" in listed and "wipe" not in listed
        assert (await client.call_tool("audit_log", {})).is_error is False


async def test_allowlist_mode_shows_only_what_is_enabled_including_items_registered_later() -> None:
    mcp = build()
    mcp.enable(tags={"admin"}, only=True)

    @mcp.tool()
    def added_later() -> str:
        return "late"

    async with Client(mcp) as client:
        assert sorted(names(await client.list_tools())) == ["audit_log", "wipe"]
        assert [p.name for p in (await client.list_prompts()).prompts] == ["triage"]
        assert (await client.call_tool("added_later", {})).content[0].text == "Unknown tool: added_later"  # type: ignore[union-attr]
    mcp.enable()  # no selector: every rule dropped
    async with Client(mcp) as client:
        assert "added_later" in names(await client.list_tools())


async def test_the_python_api_sees_what_clients_see() -> None:
    from mcp.shared.exceptions import ToolError

    mcp = build()
    mcp.disable("wipe")
    assert "wipe" not in [tool.name for tool in await mcp.list_tools()]
    with pytest.raises(ToolError, match="Unknown tool: wipe"):
        await mcp.call_tool("wipe", {})
    mcp.disable("triage")
    with pytest.raises(ValueError, match="Unknown prompt: triage"):
        await mcp.get_prompt("triage", {"issue": "x"})


async def test_a_handshake_era_client_hears_tools_list_changed_and_then_lists_the_change() -> None:
    mcp = build()
    heard = Heard()
    async with Client(mcp, mode="legacy", message_handler=heard) as client:
        assert "wipe" in names(await client.list_tools())
        assert (await client.call_tool("lock_admin", {})).is_error is False
        await heard.wait_for(TOOLS_CHANGED)
        assert "wipe" not in names(await client.list_tools())
        # the tagged resource, template and prompt went too: their lists' notices as well
        await heard.wait_for(RESOURCES_CHANGED)
        await heard.wait_for(PROMPTS_CHANGED)


async def test_a_sync_tool_on_a_worker_thread_announces_its_change_before_its_result() -> None:
    mcp = build()
    heard = Heard()
    async with Client(mcp, mode="legacy", message_handler=heard) as client:
        assert (await client.call_tool("lock_admin_sync", {})).is_error is False
        await heard.wait_for(TOOLS_CHANGED)
        assert "wipe" not in names(await client.list_tools())


async def test_a_2026_client_hears_the_change_on_its_listen_stream() -> None:
    mcp = build()
    async with Client(mcp) as client:
        async with client.listen(tools_list_changed=True, prompts_list_changed=True) as sub:
            await mcp.disable(tags={"admin"})
            methods: list[str] = []
            with anyio.fail_after(5):
                async for event in sub:
                    methods.append(event.method)
                    if len(methods) == 2:
                        break
            assert methods == [TOOLS_CHANGED, PROMPTS_CHANGED]
        assert "wipe" not in names(await client.list_tools())


async def test_a_change_that_alters_no_list_sends_nothing() -> None:
    mcp = build()
    heard = Heard()
    async with Client(mcp, mode="legacy", message_handler=heard) as client:
        await mcp.enable("status")  # already visible
        await mcp.disable(tags={"no-such-tag"})
        await mcp.disable("wipe")
        await heard.wait_for(TOOLS_CHANGED)
        assert heard.methods == [TOOLS_CHANGED]
        await client.list_tools()


async def test_a_session_rule_changes_that_session_only() -> None:
    mcp = build()
    mcp.disable(tags={"admin"})
    heard_a, heard_b = Heard(), Heard()
    async with (
        Client(mcp, mode="legacy", message_handler=heard_a) as a,
        Client(mcp, mode="legacy", message_handler=heard_b) as b,
    ):
        assert (await a.call_tool("unlock_for_me", {})).content[0].text == "unlocked"  # type: ignore[union-attr]
        await heard_a.wait_for(TOOLS_CHANGED)
        assert "wipe" in names(await a.list_tools())
        assert (await a.call_tool("wipe", {})).content[0].text == "wiped"  # type: ignore[union-attr]
        assert "wipe" not in names(await b.list_tools())
        assert (await b.call_tool("wipe", {})).content[0].text == "Unknown tool: wipe"  # type: ignore[union-attr]
        assert heard_b.methods == []
        assert (await b.call_tool("hide_status_for_me", {})).is_error is False
        await heard_b.wait_for(TOOLS_CHANGED)
        assert "status" not in names(await b.list_tools())
        assert "status" in names(await a.list_tools())


async def test_per_session_rules_on_a_2026_request_raise_a_clear_error() -> None:
    mcp = build(mask_error_details=False)
    async with Client(mcp) as client:
        result = await client.call_tool("unlock_for_me", {})
        assert result.is_error is True
        assert "per-session visibility needs a handshake-era session" in result.content[0].text  # type: ignore[union-attr]


BAD_INPUT: list[tuple[Callable[[MCPServer[Any]], object], type[Exception], str]] = [
        (lambda m: m.disable(tags={1}), TypeError, "non-empty strings"),  # type: ignore[arg-type]
        (lambda m: m.disable(tags=42), TypeError, "set of strings"),  # type: ignore[arg-type]
        (lambda m: m.disable(kinds={"tools"}), ValueError, "unknown kind 'tools'"),  # type: ignore[arg-type]
        (lambda m: m.enable(only=True), ValueError, "needs names, tags or kinds"),
        (lambda m: m.tool(tags={""})(lambda: 1), TypeError, "non-empty strings"),
        (lambda m: MCPServer(capabilities=42), TypeError, "capabilities= must be"),
        (lambda m: MCPServer(capabilities={"tools": {"listChanged": "maybe"}}), ValueError, "not a valid"),
]


@pytest.mark.parametrize(("call", "error", "message"), BAD_INPUT)
async def test_bad_input_gets_a_clear_error_and_changes_nothing(call: Any, error: type, message: str) -> None:
    mcp = build()
    with pytest.raises(error, match=message):
        call(mcp)
    async with Client(mcp) as client:
        assert len(names(await client.list_tools())) == 7


async def capabilities(server: MCPServer, mode: str) -> dict[str, Any]:
    """What the server declares: by `initialize`, or by `server/discover` (mode "auto")."""
    async with Client(server, mode=mode) as client:
        assert (client.protocol_version == "2026-07-28") == (mode == "auto")
        return client.server_capabilities.model_dump(by_alias=True, exclude_none=True)


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_capabilities_default_is_unchanged_and_can_follow_what_is_registered(mode: str) -> None:
    tools_only = MCPServer("t")
    tools_only.add_tool(lambda: "x", name="x")
    default = await capabilities(tools_only, mode)
    assert {"tools", "resources", "prompts"} <= default.keys()
    registered = MCPServer("t", capabilities="registered")
    registered.add_tool(lambda: "x", name="x")
    derived = await capabilities(registered, mode)
    assert derived == {key: value for key, value in default.items() if key not in ("resources", "prompts")}


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_an_explicit_capabilities_override_is_advertised_on_both_eras(mode: str) -> None:
    from mcp.types import ServerCapabilities, ToolsCapability

    plain = await capabilities(build(), mode)
    as_dict = await capabilities(build(capabilities={"tools": {"listChanged": False}, "prompts": None}), mode)
    as_model = await capabilities(
        build(capabilities=ServerCapabilities(tools=ToolsCapability(list_changed=False))), mode
    )
    assert as_dict["tools"] == {"listChanged": False} and "prompts" not in as_dict
    assert as_dict["resources"] == plain["resources"]
    assert as_model["tools"] == {"listChanged": False} and as_model["prompts"] == plain["prompts"]


async def test_a_server_that_advertises_no_tools_list_changed_sends_none() -> None:
    mcp = build(capabilities={"tools": {"listChanged": False}})
    heard = Heard()
    async with Client(mcp, mode="legacy", message_handler=heard) as client:
        await mcp.disable(tags={"admin"})
        await heard.wait_for(PROMPTS_CHANGED)
        assert TOOLS_CHANGED not in heard.methods
        assert "wipe" not in names(await client.list_tools())


async def test_completion_offers_no_values_for_a_hidden_prompt_or_template_and_the_usual_ones_otherwise() -> None:
    mcp = build()
    asked: list[str] = []

    @mcp.completion()
    async def complete(ref: Any, argument: Any, context: Any) -> list[str]:
        asked.append(getattr(ref, "name", None) or ref.uri)
        return ["alpha", "beta"]

    mcp.disable(tags={"admin"}, kinds={"template", "prompt"})
    prompt_ref = {"type": "ref/prompt", "name": "triage"}
    template_ref = {"type": "ref/resource", "uri": "users://{user_id}"}
    for mode in ("legacy", "2026-07-28"):
        async with Client(mcp, mode=mode) as client:
            for ref in (prompt_ref, template_ref):
                hidden = await client.complete(ref, {"name": "issue", "value": "a"})
                assert hidden.completion.values == []
    assert asked == []  # the handler never learns of a hidden item either
    mcp.enable(tags={"admin"})
    async with Client(mcp) as client:
        shown = await client.complete(prompt_ref, {"name": "issue", "value": "a"})
        assert shown.completion.values == ["alpha", "beta"]
    assert asked == ["triage"]
