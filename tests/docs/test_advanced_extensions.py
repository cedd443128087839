"""docs/advanced/extensions.md: extensions are opt-in bundles behind one identifier. Server side:
settings, tools, additive methods (gated, version-pinned), one `tools/call` interceptor. Client
side: capability ads, result claims, notification bindings, `name_param` riding `Mcp-Name`."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any, Literal

import httpx
import pytest
from pydantic import Field
from tests.server.http.httpkit import uvicorn_server

import mcp.types as types
from mcp import Client, MCPError
from mcp.client import ClaimContext, ClientExtension, NotificationBinding, ResultClaim, advertise
from mcp.client.extension import UnexpectedClaimedResult
from mcp.client.streamable_http import streamable_http_client
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.extension import Extension, MethodBinding, ToolBinding
from mcp.server.mcpserver import MCPServer, require_client_extension

pytestmark = pytest.mark.anyio

LOOKUP = "com.example/lookup"


class LookupParams(types.RequestParams):
    word: str
    limit: int = Field(default=2, ge=1, le=10)


class LookupResult(types.Result):
    senses: list[str]


class LookupRequest(types.Request[LookupParams, Literal["com.example/lookup"]]):
    method: Literal["com.example/lookup"] = "com.example/lookup"
    params: LookupParams
    name_param = "word"


async def lookup(ctx: ServerRequestContext[Any, Any], params: LookupParams) -> LookupResult:
    require_client_extension(ctx, LOOKUP)
    header = ctx.request.headers.get("mcp-name") if ctx.request is not None else None
    return LookupResult(senses=[f"{params.word}#{n}" for n in range(params.limit)] + ([f"header:{header}"] if header else []))


class Dictionary(Extension):
    identifier = LOOKUP

    def settings(self) -> dict[str, Any]:
        return {"languages": ["en"]}

    def tools(self) -> Sequence[ToolBinding]:
        def define(word: str) -> str:
            """Define a word."""
            return f"{word}: a word"

        return [ToolBinding(define)]

    def methods(self) -> Sequence[MethodBinding]:
        return [MethodBinding(LOOKUP, LookupParams, lookup, protocol_versions=frozenset({"2026-07-28"}))]


def test_an_identifier_without_a_vendor_prefix_fails_when_the_class_is_defined() -> None:
    with pytest.raises(TypeError, match=r"Stamps\.identifier must be a `vendor-prefix/name` string \(reverse-DNS "
                                        r"prefix required\), got 'stamps'"):
        class Stamps(Extension):  # pyright: ignore[reportUnusedClass]  # defined for the error it raises
            identifier = "stamps"


async def test_settings_are_advertised_and_contributed_tools_are_served() -> None:
    async with Client(MCPServer("dict", extensions=[Dictionary()])) as client:
        assert client.server_capabilities.extensions == {LOOKUP: {"languages": ["en"]}}
        result = await client.call_tool("define", {"word": "mcp"})
    assert result.structured_content == {"result": "mcp: a word"}


async def test_a_vendor_method_is_gated_on_the_client_declaring_the_extension() -> None:
    server = MCPServer("dict", extensions=[Dictionary()])
    request = LookupRequest(params=LookupParams(word="tea"))
    async with Client(server, extensions=[advertise(LOOKUP)]) as client:
        assert (await client.session.send_request(request, LookupResult)).senses == ["tea#0", "tea#1"]
    async with Client(server) as client:
        with pytest.raises(MCPError) as refused:
            await client.session.send_request(request, LookupResult)
    assert refused.value.error.code == -32021
    assert refused.value.error.data == {"requiredCapabilities": {"extensions": {LOOKUP: {}}}}


async def test_a_version_pinned_method_does_not_exist_on_a_legacy_connection() -> None:
    async with Client(MCPServer("dict", extensions=[Dictionary()]), mode="legacy",
                      extensions=[advertise(LOOKUP)]) as client:
        assert client.server_capabilities.extensions is None  # a legacy handshake cannot carry the map
        with pytest.raises(MCPError) as missing:
            await client.session.send_request(LookupRequest(params=LookupParams(word="tea")), LookupResult)
    assert missing.value.error.code == -32601


async def test_params_are_validated_before_the_handler_runs() -> None:
    async with Client(MCPServer("dict", extensions=[Dictionary()]), extensions=[advertise(LOOKUP)]) as client:
        with pytest.raises(MCPError) as invalid:
            await client.session.send_request_raw(LOOKUP, {"word": "tea", "limit": 500})
    assert invalid.value.error.code == -32602


def test_methods_are_strictly_additive() -> None:
    with pytest.raises(ValueError, match="cannot bind spec method 'tools/list'"):
        MethodBinding("tools/list", types.RequestParams, lookup)
    with pytest.raises(ValueError, match="'initialize'"):
        MethodBinding("initialize", types.RequestParams, lookup)
    with pytest.raises(ValueError, match="empty protocol_versions set"):
        MethodBinding("com.example/x", types.RequestParams, lookup, protocol_versions=frozenset())

    class Rival(Extension):
        identifier = "com.rival/lookup"

        def methods(self) -> Sequence[MethodBinding]:
            return [MethodBinding(LOOKUP, LookupParams, lookup)]

    with pytest.raises(ValueError, match="already registered"):
        MCPServer("clash", extensions=[Dictionary(), Rival()])
    assert not hasattr(MCPServer("fixed"), "add_extension")


def tagger(identifier: str, tag: str, log: list[str]) -> Extension:
    """An interceptor that logs each call, refuses a `veto`, and answers `replaced` itself."""

    async def intercept_tool_call(self: Extension, params: types.CallToolRequestParams,
                                  ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        log.append(f"{tag}:{params.name}")
        if params.arguments and params.arguments.get("veto"):
            raise MCPError(-32001, f"{tag} refuses")
        if params.name == "replaced":
            return types.CallToolResult(content=[types.TextContent(text=f"answered by {tag}")])
        return await call_next(ctx)

    cls = type("Tagger", (Extension,), {"identifier": identifier, "intercept_tool_call": intercept_tool_call})
    return cls()


async def test_interceptors_nest_in_registration_order_and_may_observe_replace_or_refuse() -> None:
    log: list[str] = []
    server = MCPServer("audited", extensions=[tagger("com.example/outer", "outer", log),
                                              tagger("com.example/inner", "inner", log)])

    @server.tool()
    def add(a: int, b: int, veto: bool = False) -> int:
        return a + b

    @server.tool(structured_output=False)
    def replaced() -> str:
        return "the tool itself"

    async with Client(server) as client:
        assert (await client.call_tool("add", {"a": 1, "b": 2})).structured_content == {"result": 3}
        assert log == ["outer:add", "inner:add"]
        answer = await client.call_tool("replaced", {})
        assert answer.content == [types.TextContent(text="answered by outer")]
        assert answer.meta is not None and "io.modelcontextprotocol/serverInfo" in answer.meta  # serialized like a handler's
        with pytest.raises(MCPError, match="outer refuses"):
            await client.call_tool("add", {"a": 1, "b": 2, "veto": True})
        assert (await client.call_tool("add", {"a": 2, "b": 2})).structured_content == {"result": 4}


class Receipt(types.Result):
    result_type: Literal["receipt"] = "receipt"
    token: str


RECEIPTS = "com.example/receipts"


class Issuer(Extension):
    identifier = RECEIPTS

    async def intercept_tool_call(self, params: types.CallToolRequestParams, ctx: ServerRequestContext[Any, Any],
                                  call_next: CallNext) -> HandlerResult:
        if params.name != "buy":
            return await call_next(ctx)
        require_client_extension(ctx, RECEIPTS)
        return {"resultType": "receipt", "token": "t-9"}


class Redeemer(ClientExtension):
    identifier = RECEIPTS

    def claims(self) -> Sequence[ResultClaim[Any]]:
        return [ResultClaim(result_type="receipt", model=Receipt, resolve=self.redeem)]

    async def redeem(self, claimed: Receipt, ctx: ClaimContext) -> types.CallToolResult:
        return await ctx.session.call_tool("redeem", {"token": claimed.token})


def shop() -> MCPServer:
    server = MCPServer("shop", extensions=[Issuer()])

    @server.tool()
    def buy(item: str) -> str:
        raise AssertionError("the issuer answers first")

    @server.tool()
    def redeem(token: str) -> str:
        return f"redeemed {token}"

    return server


@pytest.mark.wire_invalid_ok({"result": {"resultType": "receipt"}}, reason="a claimed shape is the extension's own")
async def test_a_claimed_result_shape_is_finished_by_the_client_extension() -> None:
    async with Client(shop(), extensions=[Redeemer()]) as client:
        result = await client.call_tool("buy", {"item": "tea"})
        assert result.content == [types.TextContent(text="redeemed t-9")]
        with pytest.raises(UnexpectedClaimedResult):
            await client.session.call_tool("buy", {"item": "tea"})
        raw = await client.session.call_tool("buy", {"item": "tea"}, allow_claimed=True)
        assert isinstance(raw, Receipt) and raw.token == "t-9"
    async with Client(shop()) as client:
        with pytest.raises(MCPError) as refused:
            await client.call_tool("buy", {"item": "tea"})
    assert refused.value.error.code == -32021


def test_a_claim_model_must_pin_its_tag_and_not_subclass_core_results() -> None:
    async def resolve(model: Any, ctx: ClaimContext) -> types.CallToolResult:
        raise AssertionError

    class Loose(types.Result):
        result_type: str = "receipt"

    class Sneaky(types.CallToolResult):
        result_type: Literal["receipt"] = "receipt"  # type: ignore[assignment]

    with pytest.raises(ValueError, match=r"must be Literal\['receipt'\]"):
        ResultClaim(result_type="receipt", model=Loose, resolve=resolve)
    with pytest.raises(ValueError, match="must not subclass core result types"):
        ResultClaim(result_type="receipt", model=Sneaky, resolve=resolve)
    with pytest.raises(ValueError, match="core protocol vocabulary"):
        ResultClaim(result_type="complete", model=Receipt, resolve=resolve)


async def test_a_notification_binding_on_a_core_method_goes_quiet_with_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    async def observe(params: Any) -> None:
        raise AssertionError

    class Shadow(ClientExtension):
        identifier = "com.example/shadow"

        def notifications(self) -> Sequence[NotificationBinding[Any]]:
            return [NotificationBinding(method="notifications/progress", params_type=types.ProgressNotificationParams,
                                        handler=observe)]

    with caplog.at_level(logging.WARNING):
        async with Client(MCPServer("quiet"), extensions=[Shadow()]):
            pass
    assert "notification binding for 'notifications/progress' will never fire" in caplog.text


async def test_a_request_without_its_name_param_fails_loudly_before_sending() -> None:
    async with Client(MCPServer("dict", extensions=[Dictionary()]), extensions=[advertise(LOOKUP)]) as client:
        request = LookupRequest.model_construct(method=LOOKUP, params=LookupParams.model_construct(limit=1))
        with pytest.raises(ValueError, match=r"com\.example/lookup requires params\['word'\] for Mcp-Name"):
            await client.session.send_request(request, LookupResult)


@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_the_name_param_rides_the_mcp_name_header_over_streamable_http() -> None:
    server = MCPServer("dict", extensions=[Dictionary()])
    async with uvicorn_server(server.streamable_http_app()) as base, httpx.AsyncClient() as http:
        target = streamable_http_client(f"{base}/mcp", http_client=http)
        async with Client(target, extensions=[advertise(LOOKUP)]) as client:
            assert client.protocol_version == "2026-07-28"
            result = await client.session.send_request(LookupRequest(params=LookupParams(word="tea", limit=1)),
                                                       LookupResult)
    assert result.senses[0] == "tea#0"
    assert result.senses[1].startswith("header:")
