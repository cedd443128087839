"""The documentation site's examples (docs_src/, included into docs/*.md by mkdocs.yml): each one
is run for real, in memory, as a subprocess, or served over HTTP, and what the page says it
prints or answers is checked here. A file under docs_src/ that no test here runs fails
`test_every_example_file_is_run_by_a_test`, so a page cannot show code that was never run."""

from __future__ import annotations

import importlib.util
import json
import os
import secrets
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest
from docskit import serve_http

from mcp import Client
from mcp.server.mcpserver.exceptions import InvalidSignature

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "docs_src"
DOCS = ROOT / "docs"
RUN_TIMEOUT = 60

# Every file of docs_src/, with the test below that runs it.
COVERED = {
    "getting_started/server.py", "getting_started/client.py", "getting_started/test_server.py",
    "structured_output/model.py", "structured_output/shapes.py", "structured_output/wrapped.py",
    "structured_output/validation.py", "structured_output/opt_out.py", "structured_output/bare_class.py",
    "structured_output/forced.py",
    "servers/library.py", "servers/library_client.py", "servers/lowlevel.py", "servers/timeouts.py",
    "servers/portable.py",
    "clients/stdio_client.py", "clients/http_client.py",
    "transports/http_server.py", "transports/mounted.py",
    "deployment/shared_state.py", "deployment/Dockerfile", "deployment/nginx.conf",
    "security/static_tokens.py", "security/jwt_verifier.py", "security/oauth_proxy.py",
    "observability/traced_server.py", "observability/what_is_recorded.py",
    "cli/units.py",
}


def load(relative: str) -> ModuleType:
    """Import a docs_src file by path, under a name of its own (several are called `server`)."""
    return load_path(SRC / relative, "docs_src_" + relative.removesuffix(".py").replace("/", "_"))


def load_path(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_script(relative: str, *args: str) -> str:
    """Run a docs_src script as `python FILE ARGS` from its own folder, as a reader would; its stdout."""
    path = SRC / relative
    done = subprocess.run([sys.executable, path.name, *args], cwd=path.parent, capture_output=True, text=True,
                          timeout=RUN_TIMEOUT, env=os.environ.copy())
    assert done.returncode == 0, done.stderr
    return done.stdout


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def background(command: list[str], cwd: Path, port: int, env: dict[str, str] | None = None) -> Iterator[None]:
    """A server process listening on `port` for the duration of the block; stopped after it."""
    process = subprocess.Popen(command, cwd=cwd, env={**os.environ, **(env or {})},
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        while True:
            assert process.poll() is None, process.stderr.read().decode() if process.stderr else ""
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "the server did not start listening"
                time.sleep(0.05)
        yield
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)
        if process.stderr:
            process.stderr.close()


# -- the guard -----------------------------------------------------------------------------------


def test_every_example_file_is_run_by_a_test_and_shown_on_a_page() -> None:
    files = {p.relative_to(SRC).as_posix() for p in SRC.rglob("*") if p.is_file() and "__pycache__" not in p.parts}
    assert files == COVERED
    pages = "\n".join(p.read_text() for p in DOCS.glob("*.md"))
    included = {line.split('"')[1] for line in pages.splitlines() if line.startswith('--8<-- "')}
    assert included == COVERED


# -- getting started -------------------------------------------------------------------------------


def test_getting_started_client_prints_the_schema_the_text_and_the_structured_result() -> None:
    lines = run_script("getting_started/client.py").splitlines()
    assert lines == [
        "{'properties': {'result': {'title': 'Result', 'type': 'integer'}}, 'required': ['result'], "
        "'title': 'get_temperatureOutput', 'type': 'object'}",
        "[TextContent(type='text', text='17', annotations=None, meta=None)]",
        "{'result': 17}",
    ]


def test_getting_started_test_passes_under_pytest() -> None:
    folder = SRC / "getting_started"
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "anyio",
                           "--rootdir", str(folder), "-c", os.devnull, "test_server.py"],
                          cwd=folder, capture_output=True, text=True, timeout=RUN_TIMEOUT,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(
                              [str(folder), os.environ.get("PYTHONPATH", "")])})
    assert done.returncode == 0, done.stdout + done.stderr
    assert " passed" in done.stdout and "failed" not in done.stdout


# -- structured output -----------------------------------------------------------------------------

async def listed_and_called(module: ModuleType, tool: str, arguments: dict[str, Any]) -> tuple[Any, Any]:
    async with Client(module.mcp) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        return tools[tool].output_schema, await client.call_tool(tool, arguments)


@pytest.mark.anyio
async def test_a_model_is_the_schema_and_the_structured_content_as_is() -> None:
    schema, result = await listed_and_called(load("structured_output/model.py"), "get_tide", {"port": "Brest"})
    assert schema == {
        "properties": {
            "height": {"description": "Metres above chart datum.", "title": "Height", "type": "number"},
            "rising": {"title": "Rising", "type": "boolean"},
            "next_high": {"title": "Next High", "type": "string"},
        },
        "required": ["height", "rising", "next_high"],
        "title": "Tide",
        "type": "object",
    }
    assert result.structured_content == {"height": 3.4, "rising": True, "next_high": "14:05"}
    assert [c.text for c in result.content] == ['{\n  "height": 3.4,\n  "rising": true,\n  "next_high": "14:05"\n}']


@pytest.mark.anyio
@pytest.mark.parametrize(("tool", "title"), [("as_typed_dict", "TideDict"), ("as_dataclass", "TideData"),
                                             ("as_annotated_class", "TideAnnotated")])
async def test_typed_dicts_dataclasses_and_annotated_classes_are_objects_not_wrapped(tool: str, title: str) -> None:
    schema, result = await listed_and_called(load("structured_output/shapes.py"), tool, {"port": "Brest"})
    assert schema == {"properties": {"height": {"title": "Height", "type": "number"},
                                     "rising": {"title": "Rising", "type": "boolean"}},
                      "required": ["height", "rising"], "title": title, "type": "object"}
    assert result.structured_content == {"height": 3.4, "rising": True}
    if tool == "as_annotated_class":  # the page warns: its text is the repr
        assert result.content[0].text.startswith('"<')


@pytest.mark.anyio
async def test_a_list_is_wrapped_with_its_items_under_defs_and_one_text_block_each() -> None:
    schema, result = await listed_and_called(load("structured_output/wrapped.py"), "get_forecast",
                                             {"port": "Brest", "hours": 2})
    tide = {"properties": {"height": {"title": "Height", "type": "number"},
                           "rising": {"title": "Rising", "type": "boolean"}},
            "required": ["height", "rising"], "title": "Tide", "type": "object"}
    assert schema == {"$defs": {"Tide": tide},
                      "properties": {"result": {"items": {"$ref": "#/$defs/Tide"}, "title": "Result", "type": "array"}},
                      "required": ["result"], "title": "get_forecastOutput", "type": "object"}
    assert result.structured_content == {"result": [{"height": 3.4, "rising": False}, {"height": 2.9, "rising": False}]}
    assert len(result.content) == 2


@pytest.mark.anyio
async def test_a_str_keyed_dict_is_not_wrapped_and_an_optional_is() -> None:
    module = load("structured_output/wrapped.py")
    schema, result = await listed_and_called(module, "get_heights", {"ports": ["Brest", "Cork"]})
    assert schema == {"additionalProperties": {"type": "number"}, "title": "get_heightsDictOutput", "type": "object"}
    assert result.structured_content == {"Brest": 3.4, "Cork": 3.4}
    schema, result = await listed_and_called(module, "get_best_port", {"ports": ["Brest"]})
    assert schema["properties"]["result"]["anyOf"] == [{"type": "string"}, {"type": "null"}]
    assert result.structured_content == {"result": "Brest"}


@pytest.mark.anyio
async def test_a_result_that_fails_its_schema_is_a_tool_error_naming_the_field() -> None:
    _, result = await listed_and_called(load("structured_output/validation.py"), "get_tide", {"port": "Brest"})
    assert result.is_error is True
    assert result.structured_content is None
    assert result.content[0].text.splitlines()[:3] == [
        "Error executing tool get_tide: 1 validation error for Tide",
        "rising",
        "  Field required [type=missing, input_value={'height': 3.4, 'next_high': '14:05'}, input_type=dict]",
    ]


@pytest.mark.anyio
async def test_structured_output_false_sends_text_only() -> None:
    schema, result = await listed_and_called(load("structured_output/opt_out.py"), "tide_report", {"port": "Brest"})
    assert schema is None
    assert result.structured_content is None
    assert result.content[0].text == "Brest: 3.4 m and rising, high water at 14:05."


@pytest.mark.anyio
async def test_a_class_without_annotations_warns_at_registration_and_sends_text() -> None:
    with pytest.warns(UserWarning) as caught:
        module = load("structured_output/bare_class.py")
    assert str(caught[0].message) == (
        "Tool 'get_berth' returns Berth, a class with no annotated fields, so it gets no output schema and its "
        "result is sent as text only. Annotate the class's fields (or make it a dataclass or BaseModel), or pass "
        "structured_output=False to opt out explicitly.")
    schema, result = await listed_and_called(module, "get_berth", {"number": 7})
    assert schema is None
    assert result.structured_content is None


def test_structured_output_true_refuses_such_a_class_at_import() -> None:
    with pytest.raises(InvalidSignature) as raised:
        load("structured_output/forced.py")
    assert str(raised.value) == ("Function get_berth: return type <class 'docs_src_structured_output_forced.Berth'> "
                                 "is not serializable for structured output")


# -- servers ---------------------------------------------------------------------------------------


def test_the_library_client_reads_resources_a_template_a_prompt_and_calls_the_tool() -> None:
    assert run_script("servers/library_client.py").splitlines() == [
        "Dune, Frank Herbert, 1965", "Emma, Jane Austen, 1815",
        "Emma, Jane Austen, 1815",
        "Write a three-sentence review of Dune, Frank Herbert, 1965.",
        "{'result': 5}",
    ]


def test_the_timeouts_example_stops_an_async_and_a_sync_tool_and_serves_the_next_call() -> None:
    assert run_script("servers/timeouts.py").splitlines() == [
        "True Error executing tool build_report: timed out after 0.5 seconds",
        "True Error executing tool crunch: timed out after 0.5 seconds",
        "False pong",
    ]


@pytest.mark.anyio
async def test_the_low_level_server_sends_its_own_meta_and_structured_content() -> None:
    async with Client(load("servers/lowlevel.py").server) as client:
        assert [t.name for t in (await client.list_tools()).tools] == ["add"]
        result = await client.call_tool("add", {"a": 2, "b": 3})
    assert result.structured_content == {"result": 5}
    assert result.meta is not None and result.meta["computed_by"] == "lowlevel"


def test_the_portable_example_prints_what_the_servers_page_shows_with_no_ref_left() -> None:
    page = (DOCS / "servers.md").read_text()
    shown = page.split("$ python portable.py\n", 1)[1].split("\n```", 1)[0]
    printed = run_script("servers/portable.py")
    assert printed.rstrip("\n") == shown
    assert "$ref" not in printed and "$defs" not in printed


@pytest.mark.anyio
async def test_the_portable_example_still_validates_arguments_by_its_signature() -> None:
    async with Client(load("servers/portable.py").mcp) as client:
        ok = await client.call_tool("forecast", {"place": {"city": "Lyon"}, "unit": "imperial"})
        refused = await client.call_tool("forecast", {"place": {"city": "Lyon"}, "unit": "kelvin"})
    assert ok.structured_content == {"result": "Sunny in Lyon"} and refused.is_error is True


# -- clients and transports ------------------------------------------------------------------------


def test_the_stdio_client_starts_the_getting_started_server_as_a_subprocess() -> None:
    lines = run_script("clients/stdio_client.py").splitlines()
    assert lines[0].startswith("protocol ")
    assert lines[1] == "{'result': 34}"


def test_the_http_client_talks_to_the_http_server_of_the_transports_page() -> None:
    port = free_port()
    with background([sys.executable, "http_server.py", str(port)], SRC / "transports", port):
        lines = run_script("clients/http_client.py", f"http://127.0.0.1:{port}/mcp").splitlines()
    assert lines == ["['get_temperature']", "{'result': 4}"]


@pytest.mark.anyio
async def test_the_mounted_app_serves_mcp_under_its_prefix_beside_other_routes() -> None:
    # Imported on the server's thread, so the app's primitives belong to uvicorn's loop.
    with serve_http(lambda: load("transports/mounted.py").app) as base:
        async with httpx.AsyncClient() as http:
            assert (await http.get(f"{base}/health")).text == "ok"
        async with Client(f"{base}/weather/mcp") as client:
            result = await client.call_tool("get_temperature", {"city": "London"})
    assert result.structured_content == {"result": 17}


# -- deployment ------------------------------------------------------------------------------------


def sse_answer(response: httpx.Response) -> dict[str, Any]:
    """The JSON-RPC answer of a POST (an SSE stream or a JSON body)."""
    if response.headers.get("content-type", "").startswith("application/json"):
        return response.json()
    data = [line[5:].strip() for line in response.text.splitlines() if line.startswith("data:")]
    answers = [json.loads(d) for d in data if d and ("result" in d or "error" in d)]
    assert answers, response.text
    return answers[-1]


def test_two_workers_on_one_redis_serve_one_session(tmp_path: Path) -> None:
    # The real redis-server the Redis tests start (tests/redis/redis_server.py).
    redis = load_path(ROOT / "tests" / "redis" / "redis_server.py", "docs_redis_server").RedisServer(tmp_path)
    redis.start()
    env = {"REDIS_URL": redis.url, "MCP_STATE_KEY": secrets.token_hex(32)}
    ports = [free_port(), free_port()]
    folder = SRC / "deployment"
    try:
        with background([sys.executable, "-m", "uvicorn", "shared_state:app", "--port", str(ports[0]),
                         "--log-level", "warning"], folder, ports[0], env), \
             background([sys.executable, "-m", "uvicorn", "shared_state:app", "--port", str(ports[1]),
                         "--log-level", "warning"], folder, ports[1], env), \
             httpx.Client(timeout=20) as http:
            headers = {"accept": "application/json, text/event-stream", "content-type": "application/json",
                       "mcp-protocol-version": "2025-11-25"}
            first = http.post(f"http://127.0.0.1:{ports[0]}/mcp", headers=headers, json={
                "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                    "protocolVersion": "2025-11-25", "capabilities": {},
                    "clientInfo": {"name": "docs", "version": "1"}}})
            assert first.status_code == 200, first.text
            headers["mcp-session-id"] = first.headers["mcp-session-id"]
            done = http.post(f"http://127.0.0.1:{ports[1]}/mcp", headers=headers,
                             json={"jsonrpc": "2.0", "method": "notifications/initialized"})
            assert done.status_code == 202, done.text
            # The session opened on the first worker is served by the second.
            call = http.post(f"http://127.0.0.1:{ports[1]}/mcp", headers=headers, json={
                "jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": {"name": "get_temperature", "arguments": {"city": "Cairo"}}})
            assert call.status_code == 200, call.text
            assert sse_answer(call)["result"]["structuredContent"] == {"result": 34}
    finally:
        redis.kill()


def test_the_dockerfile_and_the_proxy_config_name_the_example_and_turn_buffering_off() -> None:
    """Not built here (no image registry in the tests): the Dockerfile installs the stand-ins and
    serves the example that test_two_workers_on_one_redis_serve_one_session runs; the proxy
    balances round robin without buffering, as the page says."""
    dockerfile = (SRC / "deployment" / "Dockerfile").read_text()
    assert "COPY shared_state.py ." in dockerfile and '"shared_state:app"' in dockerfile
    assert "/venv/bin/python -m mcp.stand_ins" in dockerfile and (ROOT / "src" / "mcp" / "stand_ins").is_dir()
    nginx = (SRC / "deployment" / "nginx.conf").read_text()
    assert "proxy_buffering off;" in nginx and "ip_hash" not in nginx.replace("no ip_hash", "")


# -- security --------------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_static_tokens_refuse_no_token_and_filter_tools_by_scope() -> None:
    import httpx2

    from mcp.client.streamable_http import streamable_http_client

    with serve_http(lambda: load("security/static_tokens.py").app) as base:
        async with httpx.AsyncClient() as http:
            refused = await http.post(f"{base}/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                                      headers={"accept": "application/json, text/event-stream"})
        assert refused.status_code == 401
        assert refused.headers["www-authenticate"].startswith("Bearer")
        for token, visible in (("reader-token", ["read_note"]), ("writer-token", ["read_note", "delete_note"])):
            http2 = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"})
            async with http2, Client(streamable_http_client(f"{base}/mcp", http_client=http2)) as client:
                assert sorted(t.name for t in (await client.list_tools()).tools) == sorted(visible)
                if token == "writer-token":
                    result = await client.call_tool("delete_note", {"note_id": "1"})
                    assert result.structured_content == {"result": True}


def test_the_jwt_verifier_example_builds_a_protected_server_without_fetching_anything() -> None:
    module = load("security/jwt_verifier.py")
    assert module.verifier.__class__.__name__ == "JWTVerifier"
    assert module.mcp.name == "Notes"


@pytest.mark.anyio
async def test_the_oauth_proxy_example_registers_a_client_and_shows_the_consent_page(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITHUB_CLIENT_ID", "Iv1.docs")
    monkeypatch.setenv("GITHUB_CLIENT_SECRET", "docs-secret")
    monkeypatch.setenv("MCP_PROXY_SECRET", secrets.token_urlsafe(32))
    monkeypatch.setenv("BASE_URL", "http://127.0.0.1:8000")
    with serve_http(lambda: load("security/oauth_proxy.py").app) as base:
        async with httpx.AsyncClient() as http:
            metadata = (await http.get(f"{base}/.well-known/oauth-authorization-server")).json()
            client = (await http.post(f"{base}/register", json={
                "client_name": "Docs", "redirect_uris": ["http://127.0.0.1:3030/cb"],
                "token_endpoint_auth_method": "none"})).json()
            consent = await http.get(f"{base}/authorize", params={
                "response_type": "code", "client_id": client["client_id"], "code_challenge": "x" * 43,
                "code_challenge_method": "S256", "redirect_uri": "http://127.0.0.1:3030/cb"})
            page = await http.get(consent.headers["location"].replace("http://127.0.0.1:8000", base))
    assert metadata["client_id_metadata_document_supported"] is True and client["scope"] == "notes"
    assert consent.status_code == 302 and "/consent?txn=" in consent.headers["location"]
    assert "Authorize Docs?" in page.text and page.headers["x-frame-options"] == "DENY"


# -- observability ---------------------------------------------------------------------------------


def test_what_is_recorded_prints_client_and_server_spans_and_the_metrics() -> None:
    lines = run_script("observability/what_is_recorded.py").splitlines()
    assert "SERVER tools/call get_temperature" in lines
    assert "CLIENT MCP send tools/call get_temperature" in lines
    assert lines[-1] == str(sorted(["mcp.client.operation.duration", "mcp.server.active_requests",
                                    "mcp.server.active_sessions", "mcp.server.operation.duration"]))
    assert (SRC / "observability" / "traced_server.py").read_text().count("configure(") == 2


# -- the mcp command -------------------------------------------------------------------------------


def mcp_command(*args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "mcp.cli", *args], cwd=SRC / "getting_started",
                          capture_output=True, text=True, timeout=RUN_TIMEOUT)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_cli_page_commands_call_the_getting_started_server() -> None:
    assert mcp_command("call", "server.py", "get_temperature", "city=London").strip() == "17"
    called = json.loads(mcp_command("call", "server.py", "get_temperature", '{"city": "Cairo"}', "--json"))
    assert called["structuredContent"] == {"result": 34}
    listed = json.loads(mcp_command("tools", "--json", "--", sys.executable, "server.py"))
    assert "get_temperature" in json.dumps(listed)


def test_the_cli_page_shows_what_mcp_check_prints_for_its_example_and_names_every_rule() -> None:
    page = (DOCS / "cli.md").read_text()
    command = "$ mcp check units.py --client copilot-cli --client kimi\n"
    shown = page[page.index(command) + len(command):].split("```", 1)[0]
    done = subprocess.run([sys.executable, "-m", "mcp.cli", "check", "units.py", "--client", "copilot-cli",
                           "--client", "kimi"], cwd=SRC / "cli", capture_output=True, text=True,
                          timeout=RUN_TIMEOUT, env={**os.environ, "COLUMNS": "200", "NO_COLOR": "1"})
    assert done.returncode == 1, done.stderr
    assert done.stdout == shown
    from mcp.cli.client_rules import RULES

    table = page[page.index("| Client (`--client`)"):]
    for rule in RULES:
        client, _, name = rule.id.partition("/")
        row = next(line for line in table.splitlines() if f"(`{client}`" in line)
        assert f"`{name}`" in row, rule.id
