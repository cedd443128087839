"""`mcp tools|resources|prompts|call|read|get-prompt TARGET ...`: the real command, in a
subprocess, against the bookshop server as a file, as a stdio command (`-- python bookshop.py`)
and over Streamable HTTP (a real uvicorn on 127.0.0.1)."""

from __future__ import annotations

import base64
import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from clikit import BOOKSHOP, bookshop_over_http, mcp

FILE = str(BOOKSHOP)
STDIO = ["--", sys.executable, FILE]


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with bookshop_over_http() as address:
        yield address


def test_tools_prints_a_table_of_the_files_tools() -> None:
    out = mcp("tools", FILE)
    assert out.returncode == 0, out.stderr
    assert "5 tools" in out.stdout
    for name in ("find_book", "restock", "greet_customer", "out_of_stock"):
        assert name in out.stdout
    assert "slug: string*, copies: integer" in out.stdout


def test_tools_json_over_a_stdio_command_lists_every_tool_with_its_schema() -> None:
    out = mcp("tools", "--json", *STDIO)
    assert out.returncode == 0, out.stderr
    tools = {tool["name"]: tool for tool in json.loads(out.stdout)["tools"]}
    assert set(tools) == {"find_book", "echo_text", "restock", "greet_customer", "out_of_stock"}
    assert tools["find_book"]["inputSchema"]["required"] == ["slug"]


def test_call_parses_values_as_json_and_prints_the_structured_result_over_http(url: str) -> None:
    out = mcp("call", url, "find_book", "slug=dune", "copies=3", "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["structuredContent"] == {"slug": "dune", "title": "Dune", "copies": 3}


def test_call_over_stdio_prints_the_tool_text() -> None:
    out = mcp("call", "echo_text", "text=hello world", *STDIO)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "hello world"


def test_a_value_for_a_string_property_stays_text_even_when_it_parses_as_json() -> None:
    out = mcp("call", FILE, "echo_text", "text=123")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "123"


def test_call_takes_the_whole_argument_object_as_json() -> None:
    out = mcp("call", FILE, "find_book", "--json", '{"slug": "emma", "copies": 2}')
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["structuredContent"]["title"] == "Emma"
    out = mcp("call", FILE, "find_book", "--arguments", '{"slug": "emma"}', "copies=5", "--json")
    assert json.loads(out.stdout)["structuredContent"]["copies"] == 5


def test_a_tool_error_exits_non_zero_with_the_error_on_stderr() -> None:
    out = mcp("call", FILE, "out_of_stock", "slug=dune")
    assert out.returncode == 1
    assert out.stdout == ""
    assert out.stderr.strip().splitlines() == [
        "mcp: tool 'out_of_stock' returned an error: Error executing tool out_of_stock: dune is out of stock"]


def test_arguments_that_fail_validation_are_one_line_on_stderr(url: str) -> None:
    out = mcp("call", url, "find_book", "copies=2")
    assert out.returncode == 1
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mcp: tool 'find_book' returned an error:")
    assert "slug" in lines[0] and "Traceback" not in out.stderr


def test_calling_a_tool_that_does_not_exist_names_the_tools_there_are() -> None:
    out = mcp("call", FILE, "find_bok", "slug=dune")
    assert out.returncode == 1
    assert "has no tool named 'find_bok' (tools: echo_text, find_book" in out.stderr


def test_progress_shows_as_a_bar_and_logs_on_stderr_while_the_result_goes_to_stdout() -> None:
    out = mcp("call", FILE, "restock", "count=3", "--log-level", "info")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "restocked 3"
    assert "[info] restocked 3 boxes" in out.stderr
    assert "box 3" in out.stderr and "3/3" in out.stderr


def test_an_elicitation_is_asked_on_the_terminal() -> None:
    out = mcp("call", FILE, "greet_customer", stdin="y\nAlice\n")
    assert out.returncode == 0, out.stderr
    assert "Who is buying?" in out.stderr
    assert out.stdout.strip() == "hello Alice"


def test_no_input_declines_an_elicitation_without_asking() -> None:
    out = mcp("call", "greet_customer", "--no-input", *STDIO)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "no name (decline)"
    assert "declined (--no-input): Who is buying?" in out.stderr


def test_resources_lists_resources_and_templates_over_http(url: str) -> None:
    out = mcp("resources", url)
    assert out.returncode == 0, out.stderr
    for text in ("shop://catalog", "shop://cover.png", "shop://books/{slug}", "1 resource template"):
        assert text in out.stdout
    listed = json.loads(mcp("resources", url, "--json").stdout)
    assert [r["uri"] for r in listed["resources"]] == ["shop://catalog", "shop://cover.png"]
    assert listed["resourceTemplates"][0]["uriTemplate"] == "shop://books/{slug}"


def test_read_prints_text_contents_and_writes_binary_to_a_file(url: str, tmp_path: Path) -> None:
    out = mcp("read", url, "shop://books/emma")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "Emma (emma)"
    target = tmp_path / "cover.png"
    out = mcp("read", FILE, "shop://cover.png", "-o", str(target))
    assert out.returncode == 0, out.stderr
    assert target.read_bytes() == b"\x89PNG\r\n\x1a\nfake"
    blob = json.loads(mcp("read", FILE, "shop://cover.png", "--json").stdout)["contents"][0]["blob"]
    assert base64.b64decode(blob) == b"\x89PNG\r\n\x1a\nfake"


def test_reading_an_unknown_resource_is_a_protocol_error_on_stderr() -> None:
    out = mcp("read", FILE, "shop://nothing")
    assert out.returncode == 1
    assert out.stderr.strip().splitlines()[-1] == (
        "mcp: resources/read shop://nothing failed: Unknown resource: shop://nothing (error -32602)")


def test_prompts_and_get_prompt_over_http(url: str) -> None:
    out = mcp("prompts", url)
    assert out.returncode == 0, out.stderr
    assert "recommend" in out.stdout and "genre*, mood" in out.stdout
    out = mcp("get-prompt", url, "recommend", "genre=scifi", "mood=gloomy")
    assert out.returncode == 0, out.stderr
    assert "user: Recommend a gloomy scifi book." in out.stdout
    rendered = json.loads(mcp("get-prompt", FILE, "recommend", "genre=poetry", "--json").stdout)
    assert rendered["messages"][0]["content"]["text"] == "Recommend a cheerful poetry book."


def test_a_url_ending_in_sse_speaks_the_legacy_http_sse_transport() -> None:
    with bookshop_over_http("sse") as sse_url:
        out = mcp("call", sse_url, "find_book", "slug=emma", "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["structuredContent"]["title"] == "Emma"


def test_headers_go_to_a_url_target_and_are_refused_for_others(url: str) -> None:
    out = mcp("tools", url, "-H", "Authorization: Bearer t0k", "--json")
    assert out.returncode == 0, out.stderr
    assert len(json.loads(out.stdout)["tools"]) == 5
    refused = mcp("tools", FILE, "-H", "Authorization: Bearer t0k")
    assert refused.returncode == 2
    assert refused.stderr.strip() == "mcp: --header applies to an http(s):// target only"
