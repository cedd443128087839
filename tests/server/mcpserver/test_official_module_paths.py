"""Code written against the official SDK's `mcpserver` internals (`Tool`, `ToolManager`,
`func_metadata`, `ResourceManager`, `Prompt`, settings, elicitation) works on ours."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from mcp import Client
from mcp.server.caching import CacheHint, apply_cache_hint
from mcp.server.elicitation import AcceptedElicitation, ElicitationResult, render_elicitation_schema
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.server.mcpserver.prompts import Prompt
from mcp.server.mcpserver.prompts.base import PromptArgument, UserMessage, message_validator
from mcp.server.mcpserver.resources import (
    DEFAULT_RESOURCE_SECURITY,
    FileResource,
    HttpResource,
    ResourceManager,
    ResourceSecurityError,
    TextResource,
)
from mcp.server.mcpserver.server import Settings
from mcp.server.mcpserver.tools import Tool, ToolManager
from mcp.server.mcpserver.utilities.context_injection import find_context_parameter
from mcp.server.mcpserver.utilities.func_metadata import func_metadata
from mcp.server.request_state import AESGCMRequestStateCodec, HMACRequestStateCodec, InvalidRequestState
from mcp.server.validation import validate_sampling_tools
from mcp.shared.exceptions import MCPError
from mcp.types import CallToolResult, ListToolsResult

pytestmark = pytest.mark.anyio


def add(a: int, b: int = 2) -> int:
    """Add two numbers."""
    return a + b


def crash() -> str:
    raise RuntimeError("secret detail")


async def test_tool_from_function_describes_and_runs_the_function() -> None:
    tool = Tool.from_function(add)
    assert isinstance(tool, BaseModel)
    assert (tool.name, tool.description, tool.is_async) == ("add", "Add two numbers.", False)
    assert tool.parameters["required"] == ["a"]
    assert tool.output_schema is not None and "result" in tool.output_schema["properties"]
    assert await tool.run({"a": 1}, None) == 3
    result = await tool.run({"a": 1, "b": 5}, None, convert_result=True)
    assert isinstance(result, CallToolResult) and result.structured_content == {"result": 6}


async def test_tool_run_raises_tool_error_for_bad_arguments_and_unexpected_tool_error_for_a_crash() -> None:
    with pytest.raises(ToolError, match="Error executing tool add"):
        await Tool.from_function(add).run({"a": "not a number"}, None)
    with pytest.raises(UnexpectedToolError) as excinfo:
        await Tool.from_function(crash).run({}, None)
    assert str(excinfo.value) == "Error executing tool crash"
    assert isinstance(excinfo.value.__cause__, RuntimeError)


async def test_the_tool_manager_adds_lists_calls_and_removes_tools(caplog: pytest.LogCaptureFixture) -> None:
    manager = ToolManager()
    first = manager.add_tool(add)
    with caplog.at_level(logging.WARNING):
        assert manager.add_tool(add) is first
    assert "Tool already exists: add" in caplog.text
    assert [t.name for t in manager.list_tools()] == ["add"]
    assert await manager.call_tool("add", {"a": 40}, None) == 42
    manager.remove_tool("add")
    with pytest.raises(ToolError, match="Unknown tool: add"):
        await manager.call_tool("add", {}, None)


async def test_mcpserver_serves_a_tool_model_passed_in_tools() -> None:
    server = MCPServer("x", tools=[Tool.from_function(add)])
    async with Client(server) as client:
        listed: ListToolsResult = await client.list_tools()
        assert [t.name for t in listed.tools] == ["add"]
        assert (await client.call_tool("add", {"a": 1})).structured_content == {"result": 3}


def test_func_metadata_gives_the_arguments_model_and_one_level_kwargs() -> None:
    meta = func_metadata(add)
    validated = meta.arg_model.model_validate({"a": 3})
    assert validated.model_dump_one_level() == {"a": 3, "b": 2}
    assert meta.output_schema is not None
    assert meta.pre_parse_json({"a": "[1, 2]"}) == {"a": [1, 2]}


def test_find_context_parameter_names_the_context_argument() -> None:
    from mcp.server.mcpserver import Context

    def tool(x: int, ctx: Context) -> int:
        return x

    assert find_context_parameter(tool) == "ctx"
    assert find_context_parameter(add) is None


async def test_the_resource_manager_takes_resources_and_builds_template_resources() -> None:
    manager = ResourceManager(resources=[TextResource(uri="data://a", text="A")])
    template = manager.add_template(lambda name: f"hello {name}", "greet://{name}", name="greet")
    assert template.uri_template == "greet://{name}"
    static = await manager.get_resource("data://a", None)
    assert isinstance(static, TextResource) and static.text == "A"
    made = await manager.get_resource("greet://bob", None)
    assert isinstance(made, TextResource) and made.text == "hello bob" and made.name == "greet"


def test_resource_security_error_names_the_template_and_parameter() -> None:
    error = ResourceSecurityError("files://{path}", "path")
    assert (error.template, error.param) == ("files://{path}", "path")
    assert "files://{path}" in str(error)
    with pytest.raises(ResourceSecurityError) as excinfo:
        DEFAULT_RESOURCE_SECURITY.validate({"path": "../x"}, "files://{+path}")
    assert excinfo.value.template == "files://{+path}"


async def test_file_resource_encoding_follows_the_mime_type(tmp_path: Path) -> None:
    text = tmp_path / "a.txt"
    text.write_bytes("\ufeffhé".encode())
    assert FileResource(uri="file:///a", path=text).encoding == "utf-8-sig"
    assert await FileResource(uri="file:///a", path=text).read() == "hé"
    assert FileResource(uri="file:///a", path=text, mime_type="text/plain; charset=latin-1").encoding == "latin-1"
    png = FileResource(uri="file:///p", path=text, mime_type="image/png")
    assert png.encoding is None and isinstance(await png.read(), bytes)
    with pytest.raises(ValidationError):
        FileResource(uri="file:///a", path=text, encoding="not-a-codec")
    assert HttpResource(uri="https://example.com/x", url="https://example.com/x").mime_type == "application/json"


def test_mcpserver_defaults_to_the_default_resource_security() -> None:
    import inspect

    assert inspect.signature(MCPServer).parameters["resource_security"].default is DEFAULT_RESOURCE_SECURITY


async def test_prompts_are_pydantic_models_with_optional_arguments_not_required() -> None:
    def review(code: str, language: str = "python") -> str:
        return f"{language}: {code}"

    prompt = Prompt.from_function(review)
    assert isinstance(prompt, BaseModel)
    assert prompt.arguments == [PromptArgument(name="code", required=True), PromptArgument(name="language")]
    assert PromptArgument(name="x").required is False
    assert prompt.model_dump()["name"] == "review"
    messages = await prompt.render({"code": "x"})
    assert isinstance(messages, list) and messages[0].content.text == "python: x"  # type: ignore[union-attr]
    assert isinstance(message_validator.validate_python({"role": "user", "content": "hi"}), UserMessage)


def test_settings_is_a_pydantic_model_built_on_first_use() -> None:
    server = MCPServer("x", debug=True)
    assert isinstance(server.settings, Settings)
    assert server.settings.debug is True and server.settings.warn_on_duplicate_tools is True


def test_elicitation_result_is_a_generic_alias_and_accepted_data_must_be_a_model() -> None:
    class Answer(BaseModel):
        ok: bool

    assert repr(ElicitationResult[int]) == "ElicitationResult[int]"  # pyright: ignore[reportInvalidTypeForm]  # its repr only
    with pytest.raises(ValidationError):
        AcceptedElicitation(data=1)  # type: ignore[arg-type]
    assert render_elicitation_schema(Answer)["properties"]["ok"]["type"] == "boolean"


def test_apply_cache_hint_fills_only_the_fields_the_handler_left_unset() -> None:
    hinted = apply_cache_hint(ListToolsResult(tools=[]), CacheHint(ttl_ms=500, scope="public"))
    assert (hinted.ttl_ms, hinted.cache_scope) == (500, "public")
    kept = apply_cache_hint(ListToolsResult(tools=[], ttl_ms=0), CacheHint(ttl_ms=500))
    assert kept.ttl_ms == 0 and kept.cache_scope == "private"


@pytest.mark.parametrize("codec_type", [AESGCMRequestStateCodec, HMACRequestStateCodec])
def test_request_state_codecs_seal_by_payload_keyword_and_refuse_tampering(codec_type: Any) -> None:
    pytest.importorskip("cryptography")
    codec = codec_type([b"k" * 32])
    token = codec.seal(payload=b"state")
    assert codec.unseal(token) == b"state"
    with pytest.raises(InvalidRequestState):
        codec.unseal(token[:-2] + ("A" if token[-2] != "A" else "B") + token[-1])
    with pytest.raises(InvalidRequestState):
        codec_type([b"o" * 32]).unseal(token)


def test_sampling_with_tools_needs_the_client_capability() -> None:
    from mcp.types import ClientCapabilities, SamplingCapability, SamplingToolsCapability

    validate_sampling_tools(None, None, None)
    with pytest.raises(MCPError, match="does not support sampling tools"):
        validate_sampling_tools(ClientCapabilities(), [], None)
    validate_sampling_tools(ClientCapabilities(sampling=SamplingCapability(tools=SamplingToolsCapability())), [], None)


async def test_resource_templates_are_models_that_create_resources_from_matched_parameters() -> None:
    from mcp.server.mcpserver.resources import ResourceTemplate

    def weather(city: str) -> str:
        return f"sunny in {city}"

    template = ResourceTemplate.from_function(weather, "weather://{city}")
    assert isinstance(template, BaseModel)
    assert template.parameters["required"] == ["city"] and template.mime_type == "text/plain"
    assert "fn" not in template.model_dump()
    resource = await template.create_resource("weather://paris", {"city": "paris"}, None)
    assert isinstance(resource, TextResource) and resource.text == "sunny in paris"


def test_context_is_a_pydantic_model_that_validates_to_itself() -> None:
    from pydantic import TypeAdapter

    from mcp.server.mcpserver import Context

    server = MCPServer("x")
    ctx: Context[Any] = Context(mcp_server=server)
    assert isinstance(ctx, BaseModel) and ctx.model_dump() == {}
    assert TypeAdapter(Context[Any]).validate_python(ctx) is ctx
    assert ctx.mcp_server is server


def test_registering_a_tool_without_a_context_still_loads_no_pydantic() -> None:
    import subprocess
    import sys

    code = (
        "import sys\nfrom mcp.server import MCPServer\nm = MCPServer('x')\n"
        "@m.tool()\ndef add(a: int, b: int) -> int:\n    return a + b\nprint('pydantic' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


async def test_context_sse_closers_are_no_ops_without_an_sse_stream() -> None:
    from mcp.server.mcpserver import Context

    server = MCPServer("x")

    @server.tool()
    async def poll(ctx: Context) -> str:
        await ctx.close_sse_stream()
        await ctx.close_standalone_sse_stream()
        return "done"

    async with Client(server) as client:
        result = await client.call_tool("poll", {})
    assert result.is_error is not True and result.content[0].text == "done"  # type: ignore[union-attr]


def test_resolve_finds_resolved_parameters_and_input_required_returns() -> None:
    from typing import Annotated

    from mcp.server.mcpserver.resolve import Resolve, find_resolved_parameters, returns_input_required
    from mcp.types import InputRequiredResult

    class Confirm(BaseModel):
        ok: bool

    async def ask() -> Confirm:
        return Confirm(ok=True)

    def tool(
        item: str, answer: Annotated[ElicitationResult[Confirm], Resolve(ask)], plain: Annotated[Confirm, Resolve(ask)]
    ) -> CallToolResult | InputRequiredResult:
        raise NotImplementedError

    found = find_resolved_parameters(tool)
    assert {name: wants_union for name, (_, wants_union) in found.items()} == {"answer": True, "plain": False}
    assert returns_input_required(tool) is True
    assert returns_input_required(add) is False


async def test_direct_elicit_refuses_an_accepted_answer_that_does_not_fit_the_schema() -> None:
    from mcp.server.mcpserver import Context
    from mcp.types import ElicitResult

    class Booking(BaseModel):
        """Booking"""

        confirm: bool

    server = MCPServer("x")

    @server.tool()
    async def book(ctx: Context) -> str:
        result = await ctx.elicit("Confirm?", Booking)
        return "yes" if result.action == "accept" and result.data.confirm else "no"

    async def answer(context: Any, params: Any) -> ElicitResult:
        assert params.requested_schema["title"] == "Booking"
        return ElicitResult(action="accept", content={"confirm": "maybe"})

    async with Client(server, mode="legacy", elicitation_callback=answer) as client:
        result = await client.call_tool("book", {})
    assert result.is_error is True
    assert "does not match the requested schema" in result.content[0].text  # type: ignore[union-attr]


async def test_a_return_type_with_any_content_arm_is_unstructured() -> None:
    from mcp.server.mcpserver import Image

    server = MCPServer("x")

    @server.tool()
    def chart() -> list[str | Image]:
        return ["Sales:", Image(data=b"png", format="png")]

    async with Client(server) as client:
        [tool] = (await client.list_tools()).tools
        assert tool.output_schema is None
        result = await client.call_tool("chart", {})
    assert result.structured_content is None
    assert [block.type for block in result.content] == ["text", "image"]
