"""Portable schemas (`portable_schemas=True`): the schemas a tool publishes have no `$ref` (but for
a recursive model, named at registration), accept exactly what the generated ones accept, and reach
real clients on both protocol eras; with the switch off the output is the generated one."""

from __future__ import annotations

import json
import os
import runpy
import sys
import warnings
from pathlib import Path
from typing import Any

import anyio
import pytest
from jsonschema import Draft202012Validator
from pydantic import BaseModel, create_model

import mcp
from mcp import Client, StdioServerParameters
from mcp.server import MCPServer
from mcp.server.mcpserver.tools.portable_schema import (
    MAX_PORTABLE_NODES,
    SchemaPortabilityError,
    SchemaPortabilityWarning,
    make_portable,
    recursive_definitions,
)

pytestmark = pytest.mark.anyio

SERVER = Path(__file__).parent / "servers" / "portable_tools.py"
TOOLS = runpy.run_path(str(SERVER))
ERAS = ["legacy", "2026-07-28"]

GOOD: list[dict[str, Any]] = [
    {
        "order": {
            "customer": {
                "name": "Ada",
                "home": {"street": "1 rue", "postcode": "75001"},
                "pet": {"kind": "cat"},
            }
        }
    },
    {
        "order": {
            "customer": {
                "name": "Bo",
                "home": {"street": "x", "postcode": "10115", "country": "DE"},
                "work": None,
                "favourite": "green",
                "pet": {"kind": "dog", "good": False},
                "tags": ["a", "b"],
            },
            "priority": 2,
            "quantity": "three",
            "notes": {"n": 1},
        },
        "express": True,
        "mode": 1,
    },
]
BAD: list[dict[str, Any]] = [
    {},
    {
        "order": {
            "customer": {"name": "Ada", "home": {"street": "", "postcode": "75001"}, "pet": {"kind": "cat"}}
        }
    },
    {
        "order": {
            "customer": {"name": "Ada", "home": {"street": "a", "postcode": "7500"}, "pet": {"kind": "cat"}}
        }
    },
    {
        "order": {
            "customer": {
                "name": "A",
                "home": {"street": "a", "postcode": "75001", "country": "IT"},
                "pet": {},
            }
        }
    },
    {
        "order": {
            "customer": {"name": "A", "home": {"street": "a", "postcode": "75001"}, "pet": {"kind": "cow"}}
        }
    },
    {
        "order": {
            "customer": {
                "name": "A",
                "home": {"street": "a", "postcode": "75001"},
                "pet": {"kind": "cat", "lives": 10},
            }
        }
    },
    {
        "order": {
            "customer": {
                "name": "A",
                "home": {"street": "a", "postcode": "75001"},
                "pet": {"kind": "cat"},
                "favourite": "blue",
            }
        }
    },
    {
        "order": {
            "customer": {"name": "A", "home": {"street": "a", "postcode": "75001"}, "pet": {"kind": "cat"}},
            "priority": 3,
        }
    },
    {
        "order": {
            "customer": {"name": "A", "home": {"street": "a", "postcode": "75001"}, "pet": {"kind": "cat"}},
            "notes": {"n": "x"},
        }
    },
    {
        "order": {
            "customer": {
                "name": "A",
                "home": {"street": "a", "postcode": "75001"},
                "pet": {"kind": "cat"},
                "tags": list("abcdef"),
            }
        }
    },
    {
        "order": {
            "customer": {"name": "A", "home": {"street": "a", "postcode": "75001"}, "pet": {"kind": "cat"}}
        },
        "mode": 2,
    },
]


def refs_in(schema: Any) -> list[str]:
    text = json.dumps(schema)
    return [part.split('"')[0] for part in text.split('"$ref": "')[1:]]


def generated(server: MCPServer, name: str) -> dict[str, Any]:
    return server._tools[name].wire()  # pyright: ignore[reportPrivateUsage]


def validator(schema: dict[str, Any]) -> Any:
    """A Draft 2020-12 validator of `schema` (typed loosely: jsonschema's stubs leave parts unknown)."""
    return Draft202012Validator(schema)


def test_the_portable_input_schema_has_no_ref_and_accepts_exactly_what_the_generated_one_accepts() -> None:
    official = generated(TOOLS["build"](), "place_order")["inputSchema"]
    portable = make_portable(official)
    assert "$defs" in official and refs_in(official)
    assert refs_in(portable) == [] and "$defs" not in portable and "discriminator" not in json.dumps(portable)
    before, after = validator(official), validator(portable)
    Draft202012Validator.check_schema(portable)
    for sample in GOOD:
        assert before.is_valid(sample) and after.is_valid(sample), sample
    for sample in BAD:
        assert not before.is_valid(sample) and not after.is_valid(sample), sample


def test_every_rewrite_is_the_documented_one() -> None:
    portable = make_portable(generated(TOOLS["build"](), "place_order")["inputSchema"])
    customer = portable["properties"]["order"]["properties"]["customer"]
    # the model's own description travels with its inlined body
    assert customer["properties"]["home"]["description"] == "A postal address."
    # Optional[Address]: anyOf kept, each branch typed (Kimi wants the type in the branches)
    assert [branch.get("type") for branch in customer["properties"]["work"]["anyOf"]] == ["object", "null"]
    # a discriminated union: oneOf + discriminator -> anyOf; Literal tags: const -> enum
    pet = customer["properties"]["pet"]
    assert "oneOf" not in pet and len(pet["anyOf"]) == 2
    assert pet["anyOf"][0]["properties"]["kind"]["enum"] == ["cat"]
    assert "const" not in json.dumps(portable)
    # an enum keeps its values and type; Literal["auto", 1] becomes typed branches
    assert portable["properties"]["order"]["properties"]["priority"]["enum"] == [1, 2]
    assert portable["properties"]["mode"]["anyOf"] == [
        {"type": "string", "enum": ["auto"]},
        {"type": "integer", "enum": [1]},
    ]
    # `limit: int = None`: the null default that its own schema rejects is dropped
    assert portable["properties"]["limit"] == {"type": "integer"}
    # titles pydantic derives from the property name go; constraints and additionalProperties stay
    assert "title" not in portable["properties"]["express"]
    home = customer["properties"]["home"]
    assert (
        home["properties"]["postcode"]["pattern"] == "^[0-9]{5}$"
        and home["properties"]["street"]["minLength"] == 1
    )
    assert portable["properties"]["order"]["properties"]["notes"]["additionalProperties"] == {
        "type": "integer"
    }


def test_a_sibling_description_wins_and_a_conflicting_assertion_keeps_the_body_in_all_of() -> None:
    schema: dict[str, Any] = {
        "$defs": {"Size": {"type": "integer", "description": "a size", "maximum": 10}},
        "type": "object",
        "properties": {
            "a": {"$ref": "#/$defs/Size", "description": "the width"},
            "b": {"$ref": "#/$defs/Size", "maximum": 5},
        },
    }
    portable = make_portable(schema)
    assert portable["properties"]["a"] == {"type": "integer", "description": "the width", "maximum": 10}
    assert portable["properties"]["b"] == {
        "allOf": [{"type": "integer", "description": "a size", "maximum": 10}],
        "maximum": 5,
    }
    assert schema["properties"]["a"] == {
        "$ref": "#/$defs/Size",
        "description": "the width",
    }  # input untouched


def test_a_recursive_model_keeps_only_its_own_definition_and_is_named_with_its_cycle() -> None:
    class Leaf(BaseModel):
        label: str

    class Branch(BaseModel):
        leaf: Leaf
        trunk: Trunk | None = None

    class Trunk(BaseModel):
        branches: list[Branch]

    Branch.model_rebuild()
    schema = create_model("growArguments", trunk=(Trunk, ...)).model_json_schema()
    assert recursive_definitions(schema) == {
        "Branch": ("Branch", "Trunk", "Branch"),
        "Trunk": ("Trunk", "Branch", "Trunk"),
    }
    portable = make_portable(schema)
    assert sorted(portable["$defs"]) == ["Branch", "Trunk"]  # Leaf, not recursive, is inlined
    assert portable["$defs"]["Branch"]["properties"]["leaf"]["properties"]["label"] == {"type": "string"}
    valid: dict[str, Any] = {"trunk": {"branches": [{"leaf": {"label": "x"}, "trunk": {"branches": []}}]}}
    assert validator(portable).is_valid(valid)
    assert not validator(portable).is_valid({"trunk": {"branches": [{"leaf": {}}]}})


def test_registering_a_recursive_model_under_the_switch_warns_naming_the_tool_model_and_reason() -> None:
    server = MCPServer("t", portable_schemas=True)
    with pytest.warns(
        SchemaPortabilityWarning, match=r"Tool 'tree_sum': model 'Node' .* recursive \(Node -> Node\)"
    ):
        server.add_tool(TOOLS["tree_sum"])
    schema = generated(server, "tree_sum")["inputSchema"]
    assert list(schema["$defs"]) == ["Node"] and schema["properties"]["root"] == {"$ref": "#/$defs/Node"}


def test_an_inlining_that_would_explode_is_refused_by_name_and_the_tool_keeps_its_generated_schema() -> None:
    fields: dict[str, Any] = {}
    level: Any = int
    for depth in range(14):  # each level uses the one below twice: 2**14 copies once inlined
        level = create_model(f"Level{depth}", left=(level, ...), right=(level, ...))
    schema = create_model("deepArguments", top=(level, ...), **fields).model_json_schema()
    with pytest.raises(
        SchemaPortabilityError, match=rf"more than {MAX_PORTABLE_NODES} schema objects while inlining 'Level"
    ):
        make_portable(schema)
    assert isinstance(SchemaPortabilityError("x"), ValueError)

    def deep(top: level) -> int:  # type: ignore[valid-type]
        return 0

    server = MCPServer("t")
    with pytest.warns(
        SchemaPortabilityWarning, match="Tool 'deep': its input schema is published as generated"
    ):
        server.add_tool(deep, portable_schemas=True)  # pyright: ignore[reportUnknownArgumentType]
    assert generated(server, "deep")["inputSchema"] == schema


def test_a_reference_that_is_not_local_is_refused_with_the_reason() -> None:
    with pytest.raises(SchemaPortabilityError, match=r"\$ref 'https://example.com/s.json' cannot be inlined"):
        make_portable({"type": "object", "properties": {"x": {"$ref": "https://example.com/s.json"}}})
    with pytest.raises(SchemaPortabilityError, match="must be a JSON object"):
        make_portable([])  # type: ignore[arg-type]


def test_with_the_switch_off_tools_list_is_the_generated_output_byte_for_byte() -> None:
    plain = TOOLS["build"]()
    off = TOOLS["build"](portable_schemas=False, parameter_docs=False)
    assert json.dumps(generated(plain, "place_order")) == json.dumps(generated(off, "place_order"))
    assert "$defs" in generated(plain, "place_order")["inputSchema"]
    assert plain.settings.portable_schemas is False and plain.settings.parameter_docs is False


def test_the_per_tool_switch_overrides_the_server_one_both_ways() -> None:
    on = MCPServer("on", portable_schemas=True)
    on.add_tool(TOOLS["place_order"], name="kept", portable_schemas=False)
    on.add_tool(TOOLS["place_order"], name="portable")
    off = MCPServer("off")
    off.add_tool(TOOLS["place_order"], name="portable", portable_schemas=True)
    plain = MCPServer("plain")
    plain.add_tool(TOOLS["place_order"], name="kept")
    assert json.dumps(generated(on, "kept")) == json.dumps(generated(plain, "kept"))
    assert refs_in(generated(on, "portable")) == [] and generated(on, "portable") == generated(
        off, "portable"
    )
    assert on.settings.portable_schemas is True


def test_the_output_schema_is_made_portable_too_and_results_still_validate() -> None:
    server = TOOLS["build"](portable_schemas=True)
    wire = generated(server, "place_order")
    assert refs_in(wire["outputSchema"]) == [] and "$defs" not in wire["outputSchema"]
    assert wire["outputSchema"]["properties"]["pet"]["anyOf"][1]["properties"]["kind"]["enum"] == ["dog"]
    assert validator(wire["outputSchema"]).is_valid(GOOD[1]["order"]["customer"])


def test_the_portable_schemas_are_computed_once_at_registration() -> None:
    server = TOOLS["build"](portable_schemas=True)
    tool = server._tools["place_order"]  # pyright: ignore[reportPrivateUsage]
    assert tool.parameters is tool.parameters and tool.output_schema is tool.output_schema


async def test_a_verbatim_input_schema_is_published_portable_and_arguments_are_checked_against_the_original() -> (
    None
):
    verbatim = {
        "type": "object",
        "$defs": {"Unit": {"enum": ["m", "ft"]}},
        "properties": {"unit": {"$ref": "#/$defs/Unit"}},
        "required": ["unit"],
    }
    server = MCPServer("t", portable_schemas=True)

    def measure(**kwargs: Any) -> str:
        return str(kwargs)

    server.add_tool(measure, input_schema=verbatim)
    assert generated(server, "measure")["inputSchema"]["properties"]["unit"] == {
        "enum": ["m", "ft"],
        "type": "string",
    }
    assert verbatim["properties"] == {"unit": {"$ref": "#/$defs/Unit"}}
    async with Client(server) as client:
        assert (await client.call_tool("measure", {"unit": "m"})).is_error is False
        assert (await client.call_tool("measure", {"unit": "km"})).is_error is True


@pytest.mark.parametrize("mode", ERAS)
async def test_a_real_client_lists_the_portable_schemas_and_calls_the_tool_on_both_eras(mode: str) -> None:
    server = TOOLS["build"](portable_schemas=True)
    expected = generated(server, "place_order")
    async with Client(server, mode=mode) as client:
        assert client.protocol_version == ("2025-11-25" if mode == "legacy" else "2026-07-28")
        listed = (await client.list_tools()).tools
        assert (
            listed[0].input_schema == expected["inputSchema"]
            and listed[0].output_schema == expected["outputSchema"]
        )
        assert refs_in(listed[0].input_schema) == []
        result = await client.call_tool("place_order", GOOD[1])
        assert result.is_error is False and result.structured_content == {
            **GOOD[1]["order"]["customer"],
            "home": {"street": "x", "postcode": "10115", "country": "DE"},
        }
        refused = await client.call_tool("place_order", BAD[2])
        assert refused.is_error is True


async def test_a_stdio_server_with_the_switch_publishes_the_same_portable_schema() -> None:
    expected = generated(TOOLS["build"](portable_schemas=True), "place_order")
    src = str(Path(mcp.__file__).parents[1])  # the package under test, for the child too
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([src, os.environ.get("PYTHONPATH", "")])}
    params = StdioServerParameters(command=sys.executable, args=[str(SERVER)], env=env)
    with anyio.fail_after(30):
        async with Client(params) as client:
            listed = (await client.list_tools()).tools
            assert listed[0].input_schema == expected["inputSchema"]
            assert (await client.call_tool("place_order", GOOD[0])).is_error is False


def test_the_warning_can_be_made_fatal_by_the_server_author() -> None:
    server = MCPServer("t", portable_schemas=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error", SchemaPortabilityWarning)
        with pytest.raises(SchemaPortabilityWarning):
            server.add_tool(TOOLS["tree_sum"])


def test_draft_07_definitions_and_escaped_names_are_inlined_too() -> None:
    schema = {
        "type": "object",
        "definitions": {"a/b": {"type": "string", "const": "x"}, "Flag": True},
        "properties": {
            "p": {"$ref": "#/definitions/a~1b"},
            "q": {"$ref": "#/definitions/Flag", "description": "any"},
        },
    }
    portable = make_portable(schema)
    assert portable == {
        "type": "object",
        "properties": {"p": {"type": "string", "enum": ["x"]}, "q": {"allOf": [True], "description": "any"}},
    }


def test_an_official_style_tool_model_given_to_the_constructor_follows_the_server_switch() -> None:
    from mcp.server.mcpserver.tools import Tool

    server = MCPServer("t", tools=[Tool.from_function(TOOLS["place_order"])], portable_schemas=True)
    assert refs_in(generated(server, "place_order")) == []
