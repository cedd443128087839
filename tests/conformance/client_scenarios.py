"""Handlers for the conformance harness's non-auth client scenarios, built on `mcp.Client`.

`SCENARIOS` maps a scenario name to `async def handler(server_url)`. The harness puts the protocol
revision under test in `MCP_CONFORMANCE_PROTOCOL_VERSION` and, for some scenarios, a JSON object in
`MCP_CONFORMANCE_CONTEXT` (which tools to call with which arguments); handlers read both from the
environment. Only the public API is used: what a scenario checks is the SDK's behaviour, and the
handlers do no more than an application would.
"""

from __future__ import annotations

import json
import os
from collections.abc import Awaitable, Callable
from typing import Any

from mcp import Client
from mcp.client import ClientRequestContext
from mcp.types import ElicitRequestFormParams, ElicitRequestParams, ElicitResult, ErrorData, ListRootsResult

Handler = Callable[[str], Awaitable[None]]
SCENARIOS: dict[str, Handler] = {}


def scenario(*names: str) -> Callable[[Handler], Handler]:
    def register(handler: Handler) -> Handler:
        for name in names:
            SCENARIOS[name] = handler
        return handler

    return register


def client_mode() -> str:
    """The `Client` mode for the revision under test: the handshake for a dated stateful revision,
    probing (`server/discover`, retried at a mutual version on -32022, then adopted) on the 2026
    wire and when the harness does not say. A pinned mode sends nothing before the first request
    (as documented), so it could not show the harness its supported-version retry."""
    version = os.environ.get("MCP_CONFORMANCE_PROTOCOL_VERSION", "")
    if version.startswith(("2024", "2025")):
        return "legacy"
    return "auto"


def context() -> dict[str, Any]:
    return json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")


def connect(url: str, **kwargs: Any) -> Client:
    return Client(url, mode=client_mode(), **kwargs)


def check_ok(result: Any, what: str) -> None:
    if result.is_error:
        raise RuntimeError(f"{what} failed: {result.content}")


def example_arguments(schema: dict[str, Any]) -> dict[str, Any]:
    """Plausible arguments for a tool: a value of the declared type for each required property."""
    samples: dict[str, Any] = {"string": "example", "integer": 1, "number": 1.5, "boolean": True,
                               "object": {}, "array": [], "null": None}
    properties = schema.get("properties") or {}
    arguments: dict[str, Any] = {}
    for name in schema.get("required") or []:
        prop = properties.get(name) or {}
        arguments[name] = samples.get(prop.get("type"), "example")
    return arguments


# -- handshake era ------------------------------------------------------------------------------------


@scenario("initialize")
async def initialize(url: str) -> None:
    async with connect(url) as client:
        await client.list_tools()


@scenario("tools_call")
async def tools_call(url: str) -> None:
    async with connect(url) as client:
        tools = await client.list_tools()
        if not any(tool.name == "add_numbers" for tool in tools.tools):
            raise RuntimeError("the server does not offer add_numbers")
        check_ok(await client.call_tool("add_numbers", {"a": 5, "b": 3}), "add_numbers")


@scenario("elicitation-sep1034-client-defaults")
async def elicitation_defaults(url: str) -> None:
    async def accept_prefilled_form(ctx: ClientRequestContext, params: ElicitRequestParams) -> ElicitResult:
        """The user accepts the form as shown: every field pre-filled with its schema default."""
        if not isinstance(params, ElicitRequestFormParams):
            return ElicitResult(action="decline")
        properties = params.requested_schema.get("properties") or {}
        content = {name: prop["default"] for name, prop in properties.items() if "default" in prop}
        return ElicitResult(action="accept", content=content)

    async with connect(url, elicitation_callback=accept_prefilled_form) as client:
        await client.list_tools()
        check_ok(await client.call_tool("test_client_elicitation_defaults", {}), "test_client_elicitation_defaults")


@scenario("sse-retry")
async def sse_retry(url: str) -> None:
    async with connect(url) as client:
        await client.list_tools()
        check_ok(await client.call_tool("test_reconnection", {}), "test_reconnection")


# -- both eras ------------------------------------------------------------------------------------------


@scenario("json-schema-2020-12-preservation")
async def json_schema_preservation(url: str) -> None:
    async with connect(url) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        focal = tools.get("json_schema_2020_12_tool")
        if focal is None or "json_schema_echo" not in tools:
            raise RuntimeError(f"expected tools missing; got {sorted(tools)}")
        check_ok(await client.call_tool("json_schema_echo", {"schema": focal.input_schema}), "json_schema_echo")


# -- 2026-07-28 -------------------------------------------------------------------------------------------


@scenario("request-metadata")
async def request_metadata(url: str) -> None:
    """Declares every client capability, so that the scenario checks how each is carried in `_meta`."""

    async def decline(ctx: ClientRequestContext, params: Any) -> Any:
        return ErrorData(code=-32603, message="not used in this scenario")

    async def no_roots(ctx: ClientRequestContext) -> ListRootsResult:
        return ListRootsResult(roots=[])

    callbacks: dict[str, Any] = {"sampling_callback": decline, "elicitation_callback": decline,
                                 "list_roots_callback": no_roots}
    async with connect(url, **callbacks) as client:
        await client.list_tools()
        await client.call_tool("test_tool", {})


@scenario("sep-2322-client-request-state")
async def request_state(url: str) -> None:
    client_ref: list[Client] = []
    unrelated_called = False

    async def confirm(ctx: ClientRequestContext, params: ElicitRequestParams) -> ElicitResult:
        nonlocal unrelated_called
        if not unrelated_called:
            # Another request between the rounds of a multi-round call must carry none of its state.
            unrelated_called = True
            check_ok(await client_ref[0].call_tool("test_mrtr_unrelated", {}), "test_mrtr_unrelated")
        return ElicitResult(action="accept", content={"confirmed": True})

    async with connect(url, elicitation_callback=confirm) as client:
        client_ref.append(client)
        await client.list_tools()
        for name in ("test_mrtr_echo_state", "test_mrtr_no_state", "test_mrtr_no_result_type"):
            check_ok(await client.call_tool(name, {}), name)


@scenario("http-standard-headers")
async def standard_headers(url: str) -> None:
    async with connect(url) as client:
        for tool in (await client.list_tools()).tools:
            check_ok(await client.call_tool(tool.name, example_arguments(tool.input_schema)), tool.name)
        for resource in (await client.list_resources()).resources:
            await client.read_resource(resource.uri)
        for prompt in (await client.list_prompts()).prompts:
            await client.get_prompt(prompt.name)


@scenario("http-custom-headers")
async def custom_headers(url: str) -> None:
    calls = context().get("toolCalls") or []
    async with connect(url) as client:
        await client.list_tools()
        for call in calls:
            check_ok(await client.call_tool(call["name"], call.get("arguments") or {}), call["name"])


@scenario("http-invalid-tool-headers")
async def invalid_tool_headers(url: str) -> None:
    async with connect(url) as client:
        tools = (await client.list_tools()).tools
        if not tools:
            raise RuntimeError("no usable tools")
        for tool in tools:
            arguments = example_arguments(tool.input_schema)
            check_ok(await client.call_tool(tool.name, arguments), tool.name)


@scenario("json-schema-ref-no-deref")
async def ref_no_deref(url: str) -> None:
    async with connect(url) as client:
        tools = (await client.list_tools()).tools
        if not any(tool.name == "lookup_user" for tool in tools):
            raise RuntimeError("the server does not offer lookup_user")
