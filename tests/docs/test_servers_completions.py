"""docs/servers/completions.md: one async `@mcp.completion()` handler suggests values for prompt
arguments and resource-template parameters; `None` is an empty list; the handler declares the
capability; without one the request is Method not found; `context_arguments` carry what is resolved."""

from __future__ import annotations

import pytest
from docskit import serve_http

from mcp import Client, MCPError
from mcp.server import MCPServer
from mcp.types import (
    Completion,
    CompletionArgument,
    CompletionContext,
    CompletionsCapability,
    PromptReference,
    ResourceTemplateReference,
)

pytestmark = pytest.mark.anyio

SPICES = ["cardamom", "cinnamon", "cumin", "paprika"]
DISHES = {"india": ["dal", "korma"], "spain": ["paella", "tortilla"]}


def pantry(*, with_handler: bool = True) -> MCPServer:
    mcp = MCPServer("Pantry")
    seen: list[tuple[type, str, str]] = []

    @mcp.resource("recipes://{region}/{dish}")
    def recipe(region: str, dish: str) -> str:
        return f"{dish} from {region}"

    @mcp.prompt()
    def season(spice: str, dish: str) -> str:
        return f"Season {dish} with {spice}"

    if with_handler:

        @mcp.completion()
        async def suggest(ref: PromptReference | ResourceTemplateReference, argument: CompletionArgument,
                          context: CompletionContext | None) -> Completion | None:
            seen.append((type(ref), argument.name, argument.value))
            if isinstance(ref, PromptReference) and argument.name == "spice":
                matches = [s for s in SPICES if s.startswith(argument.value)]
                return Completion(values=matches, total=len(SPICES), has_more=False)
            if isinstance(ref, ResourceTemplateReference) and argument.name == "dish":
                if context is None or context.arguments is None:
                    return None
                return Completion(values=[d for d in DISHES.get(context.arguments.get("region", ""), [])
                                          if d.startswith(argument.value)])
            return None

    mcp.seen = seen  # type: ignore[attr-defined]
    return mcp


async def test_the_handler_filters_by_the_typed_prefix_and_gets_the_reference_type() -> None:
    mcp = pantry()
    async with Client(mcp) as client:
        result = await client.complete(ref=PromptReference(type="ref/prompt", name="season"),
                                       argument={"name": "spice", "value": "c"})
        assert result.completion.values == ["cardamom", "cinnamon", "cumin"]
        assert (result.completion.total, result.completion.has_more) == (4, False)
        everything = await client.complete(ref=PromptReference(type="ref/prompt", name="season"),
                                           argument={"name": "spice", "value": ""})
        assert everything.completion.values == SPICES
    assert mcp.seen[0] == (PromptReference, "spice", "c")  # type: ignore[attr-defined]


async def test_none_is_an_empty_list_not_an_error() -> None:
    async with Client(pantry()) as client:
        result = await client.complete(ref=PromptReference(type="ref/prompt", name="season"),
                                       argument={"name": "dish", "value": "pa"})
        assert result.completion.values == []


async def test_registering_the_handler_declares_the_capability_and_without_it_the_method_is_missing() -> None:
    async with Client(pantry()) as client:
        assert client.server_capabilities is not None
        assert client.server_capabilities.completions == CompletionsCapability()
    async with Client(pantry(with_handler=False)) as client:
        assert client.server_capabilities is not None and client.server_capabilities.completions is None
        with pytest.raises(MCPError) as raised:
            await client.complete(ref=PromptReference(type="ref/prompt", name="season"),
                                  argument={"name": "spice", "value": ""})
        assert raised.value.error.code == -32601
        assert raised.value.error.message == "Method not found"


async def test_dependent_parameters_use_the_resolved_context_arguments() -> None:
    ref = ResourceTemplateReference(type="ref/resource", uri="recipes://{region}/{dish}")
    async with Client(pantry()) as client:
        with_region = await client.complete(ref=ref, argument={"name": "dish", "value": ""},
                                            context_arguments={"region": "spain"})
        assert with_region.completion.values == ["paella", "tortilla"]
        narrowed = await client.complete(ref=ref, argument={"name": "dish", "value": "t"},
                                         context_arguments={"region": "spain"})
        assert narrowed.completion.values == ["tortilla"]
        without = await client.complete(ref=ref, argument={"name": "dish", "value": ""})
        assert without.completion.values == []


async def test_completions_over_streamable_http_in_both_eras() -> None:
    with serve_http(lambda: pantry().streamable_http_app()) as base:
        for mode in ("legacy", "auto"):
            async with Client(f"{base}/mcp", mode=mode) as client:  # type: ignore[arg-type]
                result = await client.complete(ref=PromptReference(type="ref/prompt", name="season"),
                                               argument={"name": "spice", "value": "cu"})
                assert result.completion.values == ["cumin"], mode
