"""`mcp check TARGET` as a user runs it: a server file, a stdio command and a Streamable HTTP URL
(a real uvicorn on 127.0.0.1), each a real subprocess. The atlas server's schemas come from
pydantic models with nesting, an enum, a union, recursion and constraints."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from clikit import bookshop_over_http, free_port, mcp

from mcp.cli.client_rules import PORTABLE_FIX, RECURSIVE_FIX

SERVERS = Path(__file__).parent / "servers"
ATLAS = SERVERS / "atlas.py"
PLAIN = SERVERS / "plain.py"
HANDWRITTEN = SERVERS / "handwritten.py"


def findings(stdout: str) -> dict[tuple[str | None, str], dict[str, Any]]:
    report = json.loads(stdout)
    return {(row["tool"], row["rule"]): row for row in report["findings"]}


def test_a_server_file_with_pydantic_models_gets_each_known_rejection_with_source_and_fix() -> None:
    out = mcp("check", str(ATLAS), "--json")
    assert out.returncode == 1, out.stderr
    found = findings(out.stdout)
    # The enum and the nested model go out as $defs/$ref: every client that cannot follow them.
    for client in ("copilot-cli", "codex", "gemini", "cursor", "kimi"):
        row = found[("survey", f"{client}/ref")]
        assert "properties.region.$ref" in row["locations"]
        assert row["fix"] == PORTABLE_FIX and row["portableSchemasFix"] is True
    assert "1876" in found[("survey", "copilot-cli/ref")]["source"]
    assert "3152" in found[("survey", "codex/ref")]["source"]
    # The union: Codex flattens it, Gemini refuses the Literal's const and gt's exclusiveMinimum.
    assert found[("measure", "codex/union")]["locations"] == ["properties.shape.anyOf"]
    gemini = found[("measure", "gemini/unsupported-keyword")]["locations"]
    assert "$defs.Circle.properties.kind.const" in gemini
    assert "$defs.Circle.properties.radius.exclusiveMinimum" in gemini
    # The recursive model cannot be inlined: the fix says so instead of naming the switch.
    outline = found[("outline", "kimi/ref")]
    assert outline["fix"] == RECURSIVE_FIX and outline["portableSchemasFix"] is False
    # Names: a leading digit (Kimi, Gemini), a server + tool name over 60 characters (Cursor).
    assert ("3d_view", "kimi/name-digit") in found and ("3d_view", "gemini/name") in found
    assert "62 characters" in found[("render_topographic_relief_shading_for_the_selected_region",
                                     "cursor/name-length")]["locations"][0]
    # The constrained string passes the default clients (OpenAI strict is opt-in).
    assert not [key for key in found if key[0] == "label"]
    # A plain input with a model as output: Cursor's loader also resolves the output schema.
    assert [rule for tool, rule in found if tool == "locate"] == ["cursor/ref"]
    assert "outputSchema.$defs" in found[("locate", "cursor/ref")]["locations"]


def test_the_json_report_has_a_stable_shape_for_ci() -> None:
    out = mcp("check", str(ATLAS), "--json", "--client", "kimi")
    report = json.loads(out.stdout)
    assert set(report) == {"server", "clients", "tools", "clean", "findings"}
    assert (report["server"], report["clients"], report["tools"], report["clean"]) == ("Atlas", ["kimi"], 7, False)
    for row in report["findings"]:
        assert set(row) == {"tool", "client", "rule", "text", "locations", "source", "fix", "portableSchemasFix",
                            "portableClears"}
        assert isinstance(row["portableClears"], bool)
        assert row["client"] == "kimi" and row["rule"].startswith("kimi/") and row["source"] and row["fix"]


def test_a_stdio_command_target_reports_what_the_file_target_reports() -> None:
    by_file = json.loads(mcp("check", str(ATLAS), "--json").stdout)
    by_command = mcp("check", "--json", "--", sys.executable, str(ATLAS))
    assert by_command.returncode == 1, by_command.stderr
    assert json.loads(by_command.stdout) == by_file


def test_an_http_url_target_is_checked_over_streamable_http() -> None:
    with bookshop_over_http(server=ATLAS) as url:
        out = mcp("check", url, "--json", "-c", "copilot-cli")
    assert out.returncode == 1, out.stderr
    found = findings(out.stdout)
    assert sorted({str(tool) for tool, _ in found}) == ["measure", "outline", "survey"]


def test_a_clean_server_exits_zero_and_says_so() -> None:
    out = mcp("check", str(PLAIN))
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.splitlines()[0] == "Plain: 2 tools, checked for copilot-cli, codex, gemini, claude, cursor, kimi"
    assert out.stdout.splitlines()[-1] == "clean: no known rejection"
    report = json.loads(mcp("check", str(PLAIN), "--json").stdout)
    assert report["clean"] is True and report["findings"] == []


def test_a_server_without_tools_is_clean(tmp_path: Path) -> None:
    server = tmp_path / "empty.py"
    server.write_text("from mcp.server.lowlevel import Server\nserver = Server('empty')\n")
    out = mcp("check", str(server))
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["empty: 0 tools, checked for copilot-cli, codex, gemini, claude, cursor, kimi",
                                       "clean: no known rejection"]


def test_the_client_filter_checks_only_the_named_clients_and_opts_into_openai_strict() -> None:
    only_claude = mcp("check", str(ATLAS), "-c", "claude")
    assert only_claude.returncode == 0, only_claude.stdout
    strict = mcp("check", str(PLAIN), "--client", "openai-strict", "--json")
    assert strict.returncode == 1
    found = findings(strict.stdout)
    assert found[("convert", "openai-strict/all-required")]["locations"] == ["properties.decimals"]
    assert found[("get_temperature", "openai-strict/additional-properties")]["locations"] == ["(root)"]
    label = findings(mcp("check", str(ATLAS), "-c", "openai-strict", "--json").stdout)
    assert sorted(label[("label", "openai-strict/unsupported-keyword")]["locations"]) == [
        "properties.text.maxLength", "properties.text.minLength"]


def test_the_human_report_names_client_rule_source_and_fix_under_each_tool() -> None:
    out = mcp("check", str(ATLAS), "-c", "copilot-cli")
    lines = out.stdout.splitlines()
    at = lines.index("tool survey")
    assert lines[at + 1].startswith("  copilot-cli: $defs/$ref in inputSchema")
    assert lines[at + 2] == "      at: $defs.Region.properties.corner.$ref, $defs.Region.properties.terrain.$ref, " \
                            "properties.region.$ref, $defs"
    assert lines[at + 3].startswith("      source: github/copilot-cli#1876")
    assert lines[at + 4] == f"      fix: {PORTABLE_FIX}"
    assert lines[-1] == "3 findings in 3 of 7 tools"


def test_hand_written_schemas_of_a_low_level_server_meet_the_structural_rules() -> None:
    out = mcp("check", "--json", "-c", "claude", "-c", "copilot-cli", "-c", "kimi", "-c", "gemini",
              "--", sys.executable, str(HANDWRITTEN))
    found = findings(out.stdout)
    assert found[("either", "claude/root-combinator")]["locations"] == ["anyOf"]
    assert found[("either", "kimi/type-beside-union")]["locations"] == ["anyOf"]
    assert found[("ping", "copilot-cli/object-without-properties")]["locations"] == ["(root)"]
    assert found[("anything", "kimi/untyped")]["locations"] == ["properties.value"]
    assert found[("fetch", "gemini/type-list")]["locations"] == ["properties.url.type"]
    assert found[("fetch", "gemini/additional-properties")]["locations"] == ["additionalProperties"]


@pytest.mark.parametrize("target", [
    ["check", "missing_server.py"],
    ["check", "--", sys.executable, "-c", "raise SystemExit(3)"],
    ["check", f"http://127.0.0.1:{free_port()}/mcp", "--timeout", "10"],
], ids=["no-such-file", "command-exits", "nothing-listening"])
def test_a_server_that_fails_to_start_is_one_line_and_a_non_zero_exit(target: list[str], tmp_path: Path) -> None:
    out = mcp(*target, cwd=tmp_path)
    assert out.returncode != 0 and out.stdout == ""
    assert len(out.stderr.strip().splitlines()) == 1 and out.stderr.startswith("mcp: "), out.stderr


def test_a_server_file_that_does_not_import_is_one_line(tmp_path: Path) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text("from mcp.server import MCPServer\nmcp = MCPServer('x'\n")
    out = mcp("check", str(broken))
    assert out.returncode == 1 and out.stderr.startswith("mcp: syntax error in ")
    assert len(out.stderr.strip().splitlines()) == 1


def test_the_help_names_every_client() -> None:
    from mcp.cli.client_rules import client_names

    text = " ".join(mcp("check", "--help").stdout.split())
    assert all(name in text for name in client_names())


def test_an_unknown_client_is_a_usage_error_listing_the_known_ones() -> None:
    out = mcp("check", str(PLAIN), "-c", "clippy")
    assert out.returncode == 2
    assert out.stderr.strip() == ("mcp: --client: unknown client 'clippy' (known: copilot-cli, codex, openai-strict, "
                                  "gemini, claude, cursor, kimi)")
