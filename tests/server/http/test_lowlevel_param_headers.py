"""`Mcp-Param-*` headers of a 2026-07-28 `tools/call` are held to the tool's `x-mcp-header`
declarations on a low-level `Server` too, as officially: the schema comes from
`get_tool_input_schema` when given, else from the server's own `tools/list` run as the caller
(followed through cursors up to the tool's page); a tool that cannot be found is left to dispatch."""

import logging
from typing import Any

import anyio
import httpx
import pytest
from httpkit import connect, modern_headers, modern_tool_call

from mcp.server import Server, ServerRequestContext
from mcp.types import (
    CallToolRequestParams,
    CallToolResult,
    ListToolsResult,
    PaginatedRequestParams,
    TextContent,
    Tool,
)

pytestmark = pytest.mark.anyio

REGION_TOOL = Tool(name="search", input_schema={
    "type": "object", "properties": {"region": {"type": "string", "x-mcp-header": "Region"}}})


@pytest.fixture(params=["asgi-asyncio", "asgi-trio"])
def wire(request: pytest.FixtureRequest) -> str:
    return request.param


async def call_tool(ctx: ServerRequestContext[Any], params: CallToolRequestParams) -> CallToolResult:
    return CallToolResult(content=[TextContent(text="ok")])


def listing_server(*pages: list[Tool], seen: list[Any] | None = None) -> Server[Any]:
    """A server listing `pages` (cursor "1", "2", ... between them), recording each list's params."""

    async def list_tools(ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None) -> ListToolsResult:
        if seen is not None:
            seen.append((params, ctx.session.client_params))
        index = int(params.cursor) if params is not None and params.cursor is not None else 0
        following = str(index + 1) if index + 1 < len(pages) else None
        return ListToolsResult(tools=pages[index], next_cursor=following, ttl_ms=0, cache_scope="public")

    return Server("lowlevel", on_list_tools=list_tools, on_call_tool=call_tool)


async def post_call(server: Server[Any], wire: str, arguments: Any, headers: dict[str, str] | None = None,
                    *, name: str = "search", lines: list[tuple[str, str]] | None = None) -> httpx.Response:
    call = modern_tool_call(7, name, {})
    call["params"]["arguments"] = arguments
    sent: Any = list({**modern_headers(call), **(headers or {})}.items()) + (lines or [])
    with anyio.fail_after(10):
        async with connect(wire, server.streamable_http_app()) as client:
            return await client.post("/mcp", json=call, headers=httpx.Headers(sent))


def error_of(response: httpx.Response) -> tuple[int, int, str]:
    error = response.json()["error"]
    return response.status_code, error["code"], error["message"]


async def test_a_header_that_matches_the_listed_declaration_is_served(wire: str) -> None:
    response = await post_call(listing_server([REGION_TOOL]), wire, {"region": "Tōkyō"},
                               {"mcp-param-region": "=?base64?VMWNa3nFjQ==?="})
    assert response.status_code == 200
    assert response.json()["result"]["content"] == [{"type": "text", "text": "ok"}]


@pytest.mark.parametrize(("arguments", "headers", "message"), [
    ({"region": "us"}, {"mcp-param-region": "eu"},
     "Mcp-Param-Region header does not match the request body's 'region' argument"),
    ({"region": "us"}, {}, "Mcp-Param-Region header is missing but the request body's 'region' argument is present"),
    ({}, {"mcp-param-region": "eu"}, "Mcp-Param-Region header is present but the request body's 'region' argument is absent"),
])
async def test_a_header_that_disagrees_with_the_listed_declaration_is_400_header_mismatch(
    wire: str, arguments: dict[str, Any], headers: dict[str, str], message: str
) -> None:
    response = await post_call(listing_server([REGION_TOOL]), wire, arguments, headers)
    assert error_of(response) == (400, -32020, message)
    assert response.headers["content-type"].startswith("application/json")


async def test_a_repeated_mcp_param_header_is_refused_even_when_one_copy_matches(wire: str) -> None:
    response = await post_call(listing_server([REGION_TOOL]), wire, {"region": "eu"},
                               lines=[("mcp-param-region", "spoofed"), ("mcp-param-region", "eu")])
    assert error_of(response) == (400, -32020, "Mcp-Param-Region header appears more than once")


async def test_a_tool_the_listing_does_not_advertise_goes_unchecked(wire: str) -> None:
    other = Tool(name="other", input_schema={"type": "object"})
    response = await post_call(listing_server([other]), wire, {"region": "us"}, {"mcp-param-region": "eu"})
    assert response.status_code == 200


async def test_the_listing_is_followed_through_cursors_only_up_to_the_tools_page(wire: str) -> None:
    seen: list[Any] = []
    later = Tool(name="later", input_schema={"type": "object"})
    server = listing_server([], [REGION_TOOL], [later], seen=seen)
    response = await post_call(server, wire, {"region": "us"}, {"mcp-param-region": "eu"})
    assert error_of(response)[:2] == (400, -32020)
    assert [params.cursor for params, _ in seen] == [None, "1"]


async def test_the_listing_runs_as_the_caller_without_its_meta_extras(wire: str) -> None:
    seen: list[Any] = []
    call = modern_tool_call(3, "search", {"region": "eu"}, progress_token="tok")
    with anyio.fail_after(10):
        async with connect(wire, listing_server([REGION_TOOL], seen=seen).streamable_http_app()) as client:
            response = await client.post("/mcp", json=call, headers={**modern_headers(call), "mcp-param-region": "eu"})
    assert response.status_code == 200
    [(params, client_params)] = seen
    assert "progressToken" not in (params.meta or {})
    assert client_params.client_info.name == "raw-test"


async def test_get_tool_input_schema_is_asked_instead_of_listing(wire: str) -> None:
    async def list_tools(ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None) -> ListToolsResult:
        raise NotImplementedError

    schemas = {"search": REGION_TOOL.input_schema}
    server = Server("gateway", on_list_tools=list_tools, on_call_tool=call_tool, get_tool_input_schema=schemas.get)
    assert error_of(await post_call(server, wire, {"region": "us"}, {"mcp-param-region": "eu"}))[:2] == (400, -32020)
    assert (await post_call(server, wire, {"region": "eu"}, {"mcp-param-region": "eu"})).status_code == 200
    unknown = await post_call(server, wire, {"region": "eu"}, {"mcp-param-region": "us"}, name="unregistered")
    assert unknown.status_code == 200


async def test_a_server_without_a_tools_list_handler_checks_nothing(wire: str) -> None:
    server: Server[Any] = Server("bare", on_call_tool=call_tool)
    assert (await post_call(server, wire, {"region": "us"}, {"mcp-param-region": "eu"})).status_code == 200


async def test_a_failing_or_cycling_listing_fails_open_and_is_logged(wire: str, caplog: pytest.LogCaptureFixture) -> None:
    async def broken(ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None) -> ListToolsResult:
        raise RuntimeError("catalog down")

    async def cycling(ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None) -> ListToolsResult:
        return ListToolsResult(tools=[], next_cursor="again", ttl_ms=0, cache_scope="public")

    with caplog.at_level(logging.WARNING, logger="mcp.server.http"):
        for handler in (broken, cycling):
            server = Server("failing", on_list_tools=handler, on_call_tool=call_tool)
            assert (await post_call(server, wire, {"region": "us"}, {"mcp-param-region": "eu"})).status_code == 200
    assert "Mcp-Param header validation skipped: the tools/list listing failed" in caplog.text
    assert "cursor cycle" in caplog.text


async def test_mis_shaped_arguments_are_dispatchs_invalid_params_not_a_header_mismatch(wire: str) -> None:
    response = await post_call(listing_server([REGION_TOOL]), wire, ["not", "an", "object"], {"mcp-param-region": "eu"})
    assert response.json()["error"]["code"] == -32602
