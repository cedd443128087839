"""The conformance "everything server", built only with the public MCPServer API.

Run: python tests/conformance/everything_server.py --port 3001   (serves http://127.0.0.1:3001/mcp)
Exposes exactly the tools, resources and prompts the MCP conformance harness exercises, on one
endpoint for both protocol eras.
"""

from __future__ import annotations

import argparse
import base64
import json
from typing import Annotated, Any

import anyio
from pydantic import Field

from mcp import MCPError
from mcp.server.mcpserver import Audio, Context, Image, MCPServer, UserMessage
from mcp.server.mcpserver.prompts.base import AssistantMessage
from mcp.server.streamable_http import InMemoryEventStore
from mcp.types import (
    Completion,
    EmbeddedResource,
    ImageContent,
    InputRequiredResult,
    SamplingMessage,
    SetLevelRequestParams,
    TextContent,
    TextResourceContents,
)

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)
WAV = (b"RIFF$\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00\x44\xac\x00\x00\x88\x58\x01\x00"
       b"\x02\x00\x10\x00data\x00\x00\x00\x00")
PNG_B64 = base64.b64encode(PNG).decode()

mcp = MCPServer("mcpkit-everything-server", version="1.0.0",
                instructions="The MCP conformance everything-server, built with mcpkit.")

MODERN = "2026-07-28"


async def _set_logging_level(ctx: Any, params: Any) -> dict[str, Any]:
    """`logging/setLevel`: MCPServer does not serve it (as officially); the conformance suite's
    logging scenarios need it, so this server registers it on its low-level table."""
    return {}


mcp._lowlevel_server.add_request_handler(  # pyright: ignore[reportPrivateUsage]
    "logging/setLevel", SetLevelRequestParams, _set_logging_level)


def _caps(ctx: Context) -> dict[str, Any]:
    caps = ctx.client_capabilities
    return caps.model_dump(exclude_none=True) if caps is not None else {}


def _elicit(message: str, properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"method": "elicitation/create", "params": {
        "mode": "form", "message": message,
        "requestedSchema": {"type": "object", "properties": properties, "required": required}}}


def _sample(text: str, max_tokens: int) -> dict[str, Any]:
    return {"method": "sampling/createMessage", "params": {
        "messages": [{"role": "user", "content": {"type": "text", "text": text}}], "maxTokens": max_tokens}}


ROOTS = {"method": "roots/list", "params": {}}


def _accepted(response: Any) -> dict[str, Any] | None:
    """The content of an accepted ElicitResult, else None."""
    data = response.model_dump(mode="json") if hasattr(response, "model_dump") else response
    if isinstance(data, dict) and data.get("action") == "accept" and isinstance(data.get("content"), dict):
        return data["content"]
    return None


# -- tools (test_simple_text first: http-header-validation calls tools[0]) ------------------------


@mcp.tool()
def test_simple_text() -> str:
    """Returns a simple text response."""
    return "This is a simple text response for testing."


@mcp.tool()
def test_image_content() -> Image:
    """Returns an image."""
    return Image(data=PNG, format="png")


@mcp.tool()
def test_audio_content() -> Audio:
    """Returns an audio clip."""
    return Audio(data=WAV, format="wav")


@mcp.tool()
def test_embedded_resource() -> EmbeddedResource:
    """Returns an embedded resource."""
    return EmbeddedResource(resource=TextResourceContents(
        uri="test://embedded-resource", mime_type="text/plain", text="This is an embedded resource content."))


@mcp.tool()
def test_multiple_content_types() -> list[TextContent | ImageContent | EmbeddedResource]:
    """Returns text, an image and a resource."""
    return [
        TextContent(text="Multiple content types test:"),
        ImageContent(data=PNG_B64, mime_type="image/png"),
        EmbeddedResource(resource=TextResourceContents(
            uri="test://mixed-content-resource", mime_type="application/json", text='{"test":"data","value":123}')),
    ]


@mcp.tool()
async def test_tool_with_logging(ctx: Context) -> str:
    """Sends log messages while running."""
    for text in ("Tool execution started", "Tool processing data", "Tool execution completed"):
        await ctx.info(text)
        await anyio.sleep(0.05)  # paced, as the scenario describes a tool logging while it runs
    return "Logging test completed"


@mcp.tool()
async def test_logging_tool(ctx: Context) -> str:
    """Logs only when the request asked for a log level."""
    await ctx.info("logging tool ran")
    return "logged"


@mcp.tool()
def test_error_handling() -> str:
    """Always fails."""
    raise RuntimeError("This tool intentionally returns an error for testing")


@mcp.tool()
async def test_tool_with_progress(ctx: Context) -> str:
    """Reports progress 0, 50, 100."""
    for step in (0, 50, 100):
        await ctx.report_progress(step, 100)
        await anyio.sleep(0.05)  # paced, as the scenario describes a tool reporting while it runs
    meta = ctx.request_context.meta or {}
    return str(meta.get("progress_token"))


@mcp.tool()
async def test_sampling(prompt: str, ctx: Context) -> str:
    """Asks the client's model."""
    result = await ctx.session.create_message(
        messages=[SamplingMessage(role="user", content=TextContent(text=prompt))], max_tokens=100)
    content = result.content
    text = content.text if isinstance(content, TextContent) else str(content)
    return f"LLM response: {text}"


@mcp.tool()
async def test_elicitation(message: str, ctx: Context) -> str:
    """Asks the user for a username and an email."""
    result = await ctx.session.elicit_form(message, {
        "type": "object",
        "properties": {"username": {"type": "string", "description": "User's response"},
                       "email": {"type": "string", "description": "User's email address"}},
        "required": ["username", "email"]})
    return f"User response: action={result.action}, content={json.dumps(result.content)}"


@mcp.tool()
async def test_elicitation_sep1034_defaults(ctx: Context) -> str:
    """Elicitation with default values for every primitive type."""
    result = await ctx.session.elicit_form("Please review and update the form fields with defaults", {
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "User name", "default": "John Doe"},
            "age": {"type": "integer", "description": "User age", "default": 30},
            "score": {"type": "number", "description": "User score", "default": 95.5},
            "status": {"type": "string", "description": "User status", "enum": ["active", "inactive", "pending"],
                       "default": "active"},
            "verified": {"type": "boolean", "description": "Verification status", "default": True},
        },
        "required": []})
    return f"Elicitation completed: action={result.action}, content={json.dumps(result.content)}"


@mcp.tool()
async def test_elicitation_sep1330_enums(ctx: Context) -> str:
    """Elicitation with every enum schema shape."""
    result = await ctx.session.elicit_form("Please select options from the enum fields", {
        "type": "object",
        "properties": {
            "untitledSingle": {"type": "string", "description": "Select one option",
                               "enum": ["option1", "option2", "option3"]},
            "titledSingle": {"type": "string", "description": "Select one option with titles",
                             "oneOf": [{"const": "value1", "title": "First Option"},
                                       {"const": "value2", "title": "Second Option"},
                                       {"const": "value3", "title": "Third Option"}]},
            "legacyEnum": {"type": "string", "description": "Select one option (legacy)",
                           "enum": ["opt1", "opt2", "opt3"], "enumNames": ["Option One", "Option Two", "Option Three"]},
            "untitledMulti": {"type": "array", "description": "Select multiple options",
                              "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
            "titledMulti": {"type": "array", "description": "Select multiple options with titles",
                            "items": {"anyOf": [{"const": "value1", "title": "First Choice"},
                                                {"const": "value2", "title": "Second Choice"},
                                                {"const": "value3", "title": "Third Choice"}]}},
        },
        "required": []})
    return f"Elicitation completed: action={result.action}, content={json.dumps(result.content)}"


JSON_SCHEMA_2020_12 = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {"address": {"$anchor": "addressDef", "type": "object",
                          "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
    "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"},
                   "contactMethod": {"type": "string", "enum": ["phone", "email"]},
                   "phone": {"type": "string"}, "email": {"type": "string"}},
    "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
    "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
    "then": {"required": ["phone"]},
    "else": {"required": ["email"]},
    "additionalProperties": False,
}


@mcp.tool(input_schema=JSON_SCHEMA_2020_12)
def json_schema_2020_12_tool(**arguments: Any) -> str:
    """Takes arguments described by a JSON Schema 2020-12 document, published verbatim."""
    return f"Received: {json.dumps(arguments, sort_keys=True)}"


@mcp.tool()
async def test_reconnection(ctx: Context) -> str:
    """SSE polling: closes its stream before answering; the answer arrives on resumption."""
    assert ctx.request_context.close_sse_stream is not None  # set over streamable HTTP
    await ctx.request_context.close_sse_stream()
    await anyio.sleep(0.2)  # works on while the client reconnects (what it misses is replayed)
    return "Reconnection test completed"


@mcp.tool()
def test_missing_capability(ctx: Context) -> str:
    """Needs the sampling capability on the 2026-07-28 wire."""
    if ctx.protocol_version == MODERN and "sampling" not in _caps(ctx):
        raise MCPError(-32021, "Missing required client capability", {"requiredCapabilities": {"sampling": {}}})
    return "The client declared sampling."


@mcp.tool()
def test_x_mcp_header(
    region: Annotated[str, Field(description="Mirrored in the Mcp-Param-Region header.",
                                 json_schema_extra={"x-mcp-header": "Region"})] = "<none>",
) -> str:
    """Echoes a parameter that travels in a header too."""
    return f"region={region}"


@mcp.tool()
async def test_trigger_tool_change(ctx: Context) -> str:
    """Adds and removes a tool, then announces the change."""

    def temporary_tool() -> str:
        """Exists only briefly."""
        return "temporary"

    mcp.add_tool(temporary_tool)
    mcp.remove_tool("temporary_tool")
    await ctx.notify_tools_changed()
    return "Tool list changed"


@mcp.tool()
async def test_trigger_prompt_change(ctx: Context) -> str:
    """Adds and removes a prompt, then announces the change."""

    @mcp.prompt()
    def temporary_prompt() -> str:
        """Exists only briefly."""
        return "temporary"

    mcp.remove_prompt("temporary_prompt")
    await ctx.notify_prompts_changed()
    return "Prompt list changed"


# -- multi-round-trip (2026-07-28) -------------------------------------------------------------


@mcp.tool()
def test_input_required_result_elicitation(ctx: Context) -> Any:
    """Asks for the user's name through an InputRequiredResult."""
    responses = ctx.input_responses or {}
    answer = _accepted(responses.get("user_name")) if isinstance(responses, dict) else None
    if answer is None or not isinstance(answer.get("name"), str):
        return InputRequiredResult.model_validate({"inputRequests": {"user_name": _elicit(
            "What is your name?", {"name": {"type": "string"}}, ["name"])}})
    return f"Hello, {answer['name']}!"


@mcp.tool()
def test_input_required_result_sampling(ctx: Context) -> Any:
    """Asks the client's model a question."""
    responses = ctx.input_responses or {}
    answer = responses.get("capital_question")
    if answer is None:
        return InputRequiredResult.model_validate({"inputRequests": {
            "capital_question": _sample("What is the capital of France?", 100)}})
    data: Any = answer.model_dump(mode="json") if hasattr(answer, "model_dump") else answer
    return f"The model answered: {json.dumps(data.get('content'))}"


@mcp.tool()
def test_input_required_result_list_roots(ctx: Context) -> Any:
    """Asks for the client's roots."""
    responses = ctx.input_responses or {}
    answer = responses.get("client_roots")
    if answer is None:
        return InputRequiredResult.model_validate({"inputRequests": {"client_roots": ROOTS}})
    data: Any = answer.model_dump(mode="json") if hasattr(answer, "model_dump") else answer
    return f"Roots: {json.dumps(data.get('roots'))}"


@mcp.tool()
def test_input_required_result_request_state(ctx: Context) -> Any:
    """Carries state across rounds."""
    responses = ctx.input_responses or {}
    if ctx.request_state == "awaiting-confirm" and _accepted(responses.get("confirm")) is not None:
        return "Confirmed: state-ok"
    return InputRequiredResult.model_validate({
        "inputRequests": {"confirm": _elicit("Please confirm", {"ok": {"type": "boolean"}}, ["ok"])},
        "requestState": "awaiting-confirm"})


@mcp.tool()
def test_input_required_result_multiple_inputs(ctx: Context) -> Any:
    """Asks three questions of three kinds at once."""
    responses = ctx.input_responses or {}
    if all(key in responses for key in ("user_name", "greeting", "client_roots")):
        return "All inputs received"
    return InputRequiredResult.model_validate({"inputRequests": {
        "user_name": _elicit("What is your name?", {"name": {"type": "string"}}, ["name"]),
        "greeting": _sample("Write a greeting", 50),
        "client_roots": ROOTS,
    }, "requestState": "multiple-inputs"})


@mcp.tool()
def test_input_required_result_multi_round(ctx: Context) -> Any:
    """Two questions in two rounds, then the answer."""
    responses = ctx.input_responses or {}
    state = ctx.request_state
    if state is None:
        return InputRequiredResult.model_validate({
            "inputRequests": {"step1": _elicit("What is your name?", {"name": {"type": "string"}}, ["name"])},
            "requestState": json.dumps({"round": 1})})
    progress = json.loads(state)
    if progress.get("round") == 1:
        name = (_accepted(responses.get("step1")) or {}).get("name", "someone")
        return InputRequiredResult.model_validate({
            "inputRequests": {"step2": _elicit("What is your favourite colour?", {"color": {"type": "string"}},
                                               ["color"])},
            "requestState": json.dumps({"round": 2, "name": name})})
    color = (_accepted(responses.get("step2")) or {}).get("color", "nothing")
    return f"{progress.get('name')} likes {color}."


@mcp.tool()
def test_input_required_result_tampered_state(ctx: Context) -> Any:
    """Hands out integrity-protected state (the SDK seals it); a tampered echo is refused."""
    if ctx.request_state == "untampered":
        return "State verified"
    return InputRequiredResult.model_validate({
        "inputRequests": {"confirm": _elicit("Continue?", {"ok": {"type": "boolean"}}, ["ok"])},
        "requestState": "untampered"})


@mcp.tool()
def test_input_required_result_capabilities(ctx: Context) -> Any:
    """Asks only what the client declared it can answer."""
    caps = _caps(ctx)
    responses = ctx.input_responses or {}
    if responses:
        return "Inputs received"
    requests: dict[str, Any] = {}
    if "sampling" in caps:
        requests["question"] = _sample("What is 2 + 2?", 10)
    if "elicitation" in caps:
        requests["user_name"] = _elicit("What is your name?", {"name": {"type": "string"}}, ["name"])
    if "roots" in caps:
        requests["client_roots"] = ROOTS
    if not requests:
        return "The client declared no capability to ask with"
    return InputRequiredResult.model_validate({"inputRequests": requests})


@mcp.tool()
def test_streaming_elicitation(ctx: Context) -> Any:
    """On the 2026-07-28 wire, asks through an InputRequiredResult, never a pushed request."""
    return test_input_required_result_elicitation(ctx)


# -- resources ----------------------------------------------------------------------------------


@mcp.resource("test://static-text", name="static-text", description="A static text resource.", mime_type="text/plain")
def static_text() -> str:
    return "This is the content of the static text resource."


@mcp.resource("test://static-binary", name="static-binary", description="A static binary resource.",
              mime_type="image/png")
def static_binary() -> bytes:
    return PNG


@mcp.resource("test://watched-resource", name="watched-resource", description="A resource clients can subscribe to.",
              mime_type="text/plain")
def watched_resource() -> str:
    return "Watched resource content."


@mcp.resource("test://template/{id}/data", name="template", description="A templated resource.",
              mime_type="application/json")
def template_resource(id: str) -> str:
    return json.dumps({"id": id, "templateTest": True, "data": f"Data for ID: {id}"}, separators=(",", ":"))


# -- prompts ------------------------------------------------------------------------------------


@mcp.prompt()
def test_simple_prompt() -> str:
    """A simple prompt without arguments."""
    return "This is a simple prompt for testing."


@mcp.prompt()
def test_prompt_with_arguments(arg1: Annotated[str, Field(description="First test argument")],
                               arg2: Annotated[str, Field(description="Second test argument")]) -> str:
    """A prompt with two required arguments."""
    return f"Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"


@mcp.prompt()
def test_prompt_with_embedded_resource(
    resourceUri: Annotated[str, Field(description="URI of the resource to embed")],
) -> list[UserMessage]:
    """A prompt that embeds a resource."""
    return [
        UserMessage(EmbeddedResource(resource=TextResourceContents(
            uri=resourceUri, mime_type="text/plain", text="Embedded resource content for testing."))),
        UserMessage("Please process the embedded resource above."),
    ]


@mcp.prompt()
def test_prompt_with_image() -> list[UserMessage]:
    """A prompt with an image."""
    return [UserMessage(Image(data=PNG, format="png")), UserMessage("Please analyze the image above.")]


@mcp.prompt()
def test_input_required_result_prompt(ctx: Context) -> Any:
    """A prompt that asks for context first (2026-07-28)."""
    responses = ctx.input_responses or {}
    answer = _accepted(responses.get("user_context")) if isinstance(responses, dict) else None
    if answer is None:
        return InputRequiredResult.model_validate({"inputRequests": {"user_context": _elicit(
            "What context should the prompt use?", {"context": {"type": "string"}}, ["context"])}})
    return [UserMessage(f"Context: {answer.get('context')}"), AssistantMessage("Understood.")]


@mcp.completion()
async def complete(ref: Any, argument: Any, context: Any) -> Completion:
    values = [v for v in ("test", "testing", "tested") if v.startswith(argument.value)]
    return Completion(values=values, total=len(values), has_more=False)


from tasks_fixtures import install as install_tasks_fixtures  # noqa: E402, I001  (SEP-2663 tasks-* fixtures)
install_tasks_fixtures(mcp)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, default=3001)
    parser.add_argument("--host", default="127.0.0.1")
    args = parser.parse_args()
    mcp.run(transport="streamable-http", host=args.host, port=args.port,
            event_store=InMemoryEventStore(), retry_interval=100)


if __name__ == "__main__":
    main()
