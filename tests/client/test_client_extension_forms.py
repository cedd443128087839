"""The forms `Client(extensions=...)`, `ClientSession(extensions=..., result_claims=...)` and
`ResultClaim` take, and what they refuse, as in the official SDK."""

from __future__ import annotations

from typing import Any, Literal

import pytest

from mcp import Client
from mcp.client import (
    ClaimContext,
    ClientExtension,
    ClientSession,
    ResultClaim,
    UnexpectedClaimedResult,
    advertise,
)
from mcp.client.transports import in_memory
from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.types import CallToolResult, Result, TextContent

pytestmark = pytest.mark.anyio


class Receipt(Result):
    result_type: Literal["receipt"] = "receipt"
    receipt_token: str


async def redeem(receipt: Receipt, ctx: ClaimContext) -> CallToolResult:
    return CallToolResult(content=[TextContent(text=f"redeemed {receipt.receipt_token}")])


def receipt_claim(**overrides: Any) -> ResultClaim[Any]:
    fields: dict[str, Any] = {"result_type": "receipt", "model": Receipt, "resolve": redeem, **overrides}
    return ResultClaim(**fields)


def capability_echo_server() -> MCPServer:
    mcp = MCPServer("echo")

    @mcp.tool()
    def shop(ctx: Context) -> Any:
        return Receipt(receipt_token="t-9")

    @mcp.tool()
    def declared(ctx: Context) -> dict[str, Any]:
        caps = ctx.session.client_capabilities
        return {"extensions": (caps.extensions if caps is not None else None) or {}}

    return mcp


def test_result_claim_is_generic_and_keyword_only() -> None:
    claim: ResultClaim[Receipt] = ResultClaim[Receipt](result_type="receipt", model=Receipt, resolve=redeem)
    assert claim.method == "tools/call" and claim.protocol_versions is None
    assert ResultClaim[Any] is not None
    with pytest.raises(TypeError):
        ResultClaim("receipt", Receipt, redeem)  # type: ignore[misc]


@pytest.mark.parametrize(("overrides", "message"), [
    ({"result_type": "complete"}, "resultType 'complete' is core protocol vocabulary"),
    ({"result_type": "voucher"}, r"Receipt.result_type must be Literal\['voucher'\]"),
    ({"model": dict}, "dict must subclass mcp_types.Result"),
    ({"model": CallToolResult}, "claim models must not subclass core result types"),
    ({"method": "prompts/get"}, r"claims attach to \['tools/call'\] only; got method 'prompts/get'"),
    ({"protocol_versions": frozenset()}, "empty protocol_versions could never activate"),
    ({"protocol_versions": frozenset({"2025-11-25"})}, r"protocol_versions \['2025-11-25'\] are not modern"),
])
def test_a_result_claim_refuses_what_could_never_be_delivered(overrides: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        receipt_claim(**overrides)


def test_client_refuses_the_mapping_form_of_extensions_with_the_official_message() -> None:
    with pytest.raises(TypeError, match=r"extensions= takes a sequence of ClientExtension instances\. The mapping "
                                        r"form was replaced: use advertise\(identifier, settings\)"):
        Client(MCPServer("x"), extensions={"com.example/x": {}})


def test_client_refuses_extensions_that_are_not_extensions_or_are_passed_twice() -> None:
    with pytest.raises(ValueError, match="str has no `identifier`; a ClientExtension must set the `identifier`"):
        Client(MCPServer("x"), extensions=["com.example/x"])
    with pytest.raises(ValueError, match=r"extension identifier 'com\.example/x' is passed more than once"):
        Client(MCPServer("x"), extensions=[advertise("com.example/x"), advertise("com.example/x")])

    class One(ClientExtension):
        identifier = "com.example/one"

        def claims(self) -> list[ResultClaim[Any]]:
            return [receipt_claim()]

    class Two(One):
        identifier = "com.example/two"

    with pytest.raises(ValueError, match=r"extensions 'com\.example/one' and 'com\.example/two' both claim resultType"):
        Client(MCPServer("x"), extensions=[One(), Two()])


async def test_an_extension_may_set_its_identifier_per_instance() -> None:
    class Tenant(ClientExtension):
        def __init__(self, name: str) -> None:
            self.identifier = f"com.example/{name}"

        def settings(self) -> dict[str, Any]:
            return {"tier": "gold"}

    async with Client(capability_echo_server(), mode="legacy", extensions=[Tenant("acme")]) as client:
        result = await client.call_tool("declared", {})
    assert result.structured_content == {"extensions": {"com.example/acme": {"tier": "gold"}}}


async def test_a_client_session_takes_extensions_as_a_mapping_of_identifier_to_settings() -> None:
    mcp = capability_echo_server()
    async with (
        in_memory(mcp._lowlevel_server) as (read, write),
        ClientSession(read, write, extensions={"com.example/flags": {"beta": True}}) as session,
    ):
        await session.initialize()
        result = await session.call_tool("declared", {})
    assert result.structured_content == {"extensions": {"com.example/flags": {"beta": True}}}


def test_a_client_session_refuses_claims_filed_under_no_declared_extension() -> None:
    with pytest.raises(ValueError, match=r"result_claims key 'com\.example/shop' has no extensions entry"):
        ClientSession(None, None, result_claims={"com.example/shop": [receipt_claim()]})  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"result_claims\['com.example/shop'\] is empty"):
        ClientSession(None, None, extensions={"com.example/shop": {}},  # type: ignore[arg-type]
                      result_claims={"com.example/shop": []})


@pytest.mark.wire_invalid_ok({"result": {"resultType": "receipt"}},
                              reason="a claimed extension result shape is by design not a core CallToolResult")
async def test_a_claimed_shape_raises_unexpected_claimed_result_carrying_it_unless_allowed() -> None:
    mcp = capability_echo_server()
    async with (
        in_memory(mcp._lowlevel_server) as (read, write),
        ClientSession(read, write, extensions={"com.example/shop": {}},
                      result_claims={"com.example/shop": [receipt_claim()]}) as session,
    ):
        await session.discover()
        assert session.capabilities(modern=True).extensions == {"com.example/shop": {}}
        assert session.capabilities(modern=False).extensions is None  # claims never arrive on a legacy wire
        with pytest.raises(UnexpectedClaimedResult, match=r"Server returned a claimed result \(Receipt\)") as info:
            await session.call_tool("shop", {})
        assert isinstance(info.value.result, Receipt) and info.value.result.receipt_token == "t-9"
        allowed = await session.call_tool("shop", {}, allow_claimed=True)
        assert isinstance(allowed, Receipt) and allowed.receipt_token == "t-9"
