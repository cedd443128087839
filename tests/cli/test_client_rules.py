"""The rule table of `mcp check`, judged on schemas pydantic really produces (and on the limits'
edges), in process: the table is complete and cited, each limit fires just past its edge, and
the portable-schemas hook says which findings the switch clears."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast

import pytest
from pydantic import AnyUrl, BaseModel, create_model

from mcp.cli import check
from mcp.cli.client_rules import CLIENTS, RULES, ServerFacts, ToolFacts, default_clients, evaluate
from mcp.cli.schema_walk import Schema, is_recursive, object_depth, resolve, walk
from mcp.cli.talk import TalkOptions
from mcp.cli.target import parse_target

ATLAS = Path(__file__).parent / "servers" / "atlas.py"


def rules_broken(schema: Schema, clients: list[str], name: str = "tool", server: str = "s") -> dict[str, list[str]]:
    found = evaluate(ServerFacts(server, [ToolFacts(name, schema, server)]), clients)
    return {finding.rule.id: list(finding.locations) for finding in found}


def nested(levels: int) -> type[BaseModel]:
    """A model `levels` objects deep (the arguments object included)."""
    model: type[BaseModel] = create_model("Leaf", value=(int, ...))
    for level in range(levels - 2):
        model = create_model(f"Level{level}", inner=(model, ...))
    return create_model("Arguments", top=(model, ...))


def test_every_named_client_has_rules_and_every_rule_a_source_a_fix_and_one_checker() -> None:
    assert [c.name for c in CLIENTS] == ["copilot-cli", "codex", "openai-strict", "gemini", "claude", "cursor", "kimi"]
    assert len({rule.id for rule in RULES}) == len(RULES)
    for client in CLIENTS:
        assert [rule for rule in RULES if rule.client == client.name], client.name
    for rule in RULES:
        assert rule.id.startswith(f"{rule.client}/") and rule.text and rule.source and rule.fix
        assert (rule.check is None) != (rule.check_server is None), rule.id
        assert (rule.scope == "server") == (rule.check_server is not None), rule.id
    assert default_clients() == ["copilot-cli", "codex", "gemini", "claude", "cursor", "kimi"]


def test_a_rule_that_is_our_inference_says_so_in_its_text() -> None:
    inferred = {rule.id for rule in RULES if "our inference" in rule.text}
    assert inferred == {"gemini/unsupported-keyword", "gemini/type-list", "cursor/name-length"}


def test_object_nesting_is_counted_as_openai_documents_it_and_fires_past_ten_levels() -> None:
    ten, eleven = nested(10).model_json_schema(), nested(11).model_json_schema()
    assert (object_depth(ten), object_depth(eleven)) == (10, 11)
    assert "openai-strict/depth" not in rules_broken(ten, ["openai-strict"])
    assert rules_broken(eleven, ["openai-strict"])["openai-strict/depth"] == ["(root): 11 object levels"]


def test_a_recursive_model_is_told_apart_from_a_shared_one() -> None:
    class Place(BaseModel):
        name: str
        inside: list[Place] = []

    class Point(BaseModel):
        x: float

    class Segment(BaseModel):
        start: Point
        end: Point

    assert is_recursive(Place.model_json_schema())
    assert not is_recursive(Segment.model_json_schema())
    assert resolve(Segment.model_json_schema(), "#/$defs/Point") == Point.model_json_schema()
    assert object_depth(Place.model_json_schema()) == 1  # the one level spelled out, not an infinite chain


def test_a_url_parameter_breaks_openai_strict_formats_and_a_date_does_not() -> None:
    model = create_model("Arguments", site=(AnyUrl, ...), day=(str, ...))
    schema = model.model_json_schema()
    schema["properties"]["day"]["format"] = "date"
    assert rules_broken(schema, ["openai-strict"])["openai-strict/format"] == ["properties.site.format (uri)"]


def test_cursor_counts_tools_across_the_whole_server() -> None:
    simple: Schema = {"type": "object", "properties": {}}
    forty = ServerFacts("s", [ToolFacts(f"t{i}", simple, "s") for i in range(40)])
    forty_one = ServerFacts("s", [ToolFacts(f"t{i}", simple, "s") for i in range(41)])
    assert not evaluate(forty, ["cursor"])
    [finding] = evaluate(forty_one, ["cursor"])
    assert (finding.rule.id, finding.tool, finding.locations) == ("cursor/tool-count", None, ("41 tools",))


def test_a_server_wide_finding_reads_under_the_server_as_a_whole() -> None:
    server = ServerFacts("big", [ToolFacts(f"t{i}", {"type": "object", "properties": {}}, "big") for i in range(41)])
    found = evaluate(server, ["cursor"])
    lines = check.report_text(server, ["cursor"], found)
    assert lines[:4] == ["big: 41 tools, checked for cursor", "", "the server as a whole",
                         "  cursor: more than 40 tools: Cursor gives the agent at most 40 tools across all servers"]
    assert lines[-1] == "1 finding in the server as a whole"
    assert check.report_json(server, ["cursor"], found)["findings"][0]["tool"] is None


def test_names_at_the_edge_of_each_client_limit() -> None:
    schema: Schema = {"type": "object", "properties": {}}
    assert "claude/name" not in rules_broken(schema, ["claude"], name="a" * 64)
    assert "claude/name" in rules_broken(schema, ["claude"], name="a" * 65)
    assert "claude/name" in rules_broken(schema, ["claude"], name="tools.search")  # dots: not for Claude
    assert "gemini/name" not in rules_broken(schema, ["gemini"], name="tools.search")
    assert "cursor/name-length" not in rules_broken(schema, ["cursor"], name="a" * 55, server="abcde")
    assert "cursor/name-length" in rules_broken(schema, ["cursor"], name="a" * 56, server="abcde")


def test_a_property_called_like_a_keyword_is_not_taken_for_the_keyword() -> None:
    model = create_model("Arguments", format=(str, ...), const=(int, ...), pattern=(str, ...))
    assert rules_broken(model.model_json_schema(), [c.name for c in CLIENTS]).keys() == {
        "openai-strict/additional-properties"}


def test_every_subschema_is_walked_with_its_location() -> None:
    schema: Schema = {"type": "object", "properties": {"a": {"anyOf": [{"type": "string"}, {"items": {"type": "x"}}]}},
                      "$defs": {"D": {"not": {"type": "null"}}}}
    assert [node.location for node in walk(schema)] == [
        "", "properties.a", "properties.a.anyOf[0]", "properties.a.anyOf[1]", "properties.a.anyOf[1].items",
        "$defs.D", "$defs.D.not"]


def _inline(schema: Schema) -> Schema:
    """A stand-in for the portable-schemas rewrite: inline non-recursive local references."""
    if is_recursive(schema):
        return schema

    def expand(node: Any) -> Any:
        if isinstance(node, dict):
            mapping = cast(Schema, node)
            ref = mapping.get("$ref")
            target = resolve(schema, ref) if isinstance(ref, str) else None
            if target is not None:
                return expand(target)
            return {key: expand(value) for key, value in mapping.items() if key != "$defs"}
        if isinstance(node, list):
            return [expand(item) for item in cast(list[Any], node)]
        return node

    return expand(schema)


def test_the_portable_rewrite_hook_says_which_findings_the_switch_clears(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(check, "PORTABLE_REWRITE", _inline)
    code = check.check_target(parse_target(str(ATLAS), None), TalkOptions(json=True), ["kimi"])
    assert code == 1
    rows = {row["tool"]: row for row in json.loads(capsys.readouterr().out)["findings"] if row["rule"] == "kimi/ref"}
    assert (rows["survey"]["portableClears"], rows["measure"]["portableClears"]) == (True, True)
    assert rows["outline"]["portableClears"] is False
