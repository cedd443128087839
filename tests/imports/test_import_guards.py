"""Fresh-interpreter guards on what an import loads (module sets, never milliseconds)."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

HTTP_STACK = ("starlette", "uvicorn", "httpx", "httpcore", "httpx2", "httpcore2", "h11", "sse_starlette")


def _modules_after(statement: str) -> set[str]:
    code = f"import sys, json\n{statement}\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def _loaded(modules: set[str], roots: tuple[str, ...]) -> list[str]:
    return sorted(m for m in modules if m.split(".")[0] in roots)


def test_importing_mcp_types_loads_no_pydantic_anyio_or_http_stack() -> None:
    modules = _modules_after("import mcp.types")
    assert _loaded(modules, (*HTTP_STACK, "anyio", "pydantic", "jsonschema")) == []
    assert not [m for m in modules if m.startswith("mcp.types._")], "no feature module may load up front"


def test_using_one_type_builds_only_its_module() -> None:
    modules = _modules_after("from mcp.types import TextContent")
    assert "mcp.types._content" in modules
    assert "mcp.types._tools" not in modules


def test_importing_mcpserver_loads_no_http_stack_or_json_schema_validator() -> None:
    modules = _modules_after("from mcp.server import MCPServer")
    assert _loaded(modules, (*HTTP_STACK, "jsonschema")) == []
    assert "mcp.client" not in modules


def test_importing_mcpserver_loads_no_event_loop_until_it_runs() -> None:
    """asyncio (and anyio's asyncio backend) cost ~30 ms to import: `run()` brings them in."""
    modules = _modules_after("from mcp.server import MCPServer, Server")
    assert _loaded(modules, ("asyncio", "trio", "uvloop")) == []
    assert "anyio._backends._asyncio" not in modules


def test_registering_and_listing_tools_loads_no_http_stack() -> None:
    modules = _modules_after(
        "from mcp.server import MCPServer\nm = MCPServer('x')\n@m.tool()\ndef add(a: int, b: int) -> int:\n    return a + b\n"
    )
    assert _loaded(modules, (*HTTP_STACK, "jsonschema")) == []


def test_importing_the_stdio_client_loads_no_server_code() -> None:
    modules = _modules_after("import mcp.client.stdio")
    assert not [m for m in modules if m.startswith("mcp.server")]
    assert _loaded(modules, HTTP_STACK) == []


def test_importing_client_loads_no_server_or_http_stack() -> None:
    modules = _modules_after("from mcp import Client")
    assert not [m for m in modules if m.startswith("mcp.server")]
    assert _loaded(modules, (*HTTP_STACK, "jsonschema")) == []


def test_there_is_no_mcpserver_at_the_top_level_and_mcp_types_is_bound() -> None:
    import mcp

    assert mcp.types.__name__ == "mcp.types"
    with pytest.raises(AttributeError):
        _ = mcp.MCPServer  # type: ignore[attr-defined]


def test_a_server_and_a_client_load_no_opentelemetry_until_the_application_does() -> None:
    """Tracing is on by default, yet costs no import: it waits for an application-installed SDK."""
    modules = _modules_after(
        "from mcp.server import MCPServer, Server\nfrom mcp import Client\nm = MCPServer('x')\ns = Server('y')\n"
        "@m.tool()\ndef add(a: int, b: int) -> int:\n    return a + b\n"
    )
    assert _loaded(modules, ("opentelemetry",)) == []
    assert "mcp._telemetry.runtime" not in modules


def test_the_token_verifiers_load_no_jose_library_or_http_client_until_they_verify() -> None:
    modules = _modules_after(
        "from mcp.server.auth.verifiers import JWTVerifier, IntrospectionVerifier, StaticTokenVerifier\n"
        "JWTVerifier(issuer='https://as.example', jwks_uri='https://as.example/jwks')\n"
        "IntrospectionVerifier(introspection_endpoint='https://as.example/i', client_id='c', client_secret='s')\n"
    )
    assert _loaded(modules, ("jwt", "cryptography", "httpx", "httpcore")) == []


def test_dpop_loads_no_jose_library_until_it_signs_and_scoped_tools_load_no_http_stack() -> None:
    modules = _modules_after("import mcp.client.auth.extensions.dpop")
    assert _loaded(modules, ("jwt", "cryptography")) == []
    modules = _modules_after(
        "from mcp.server import MCPServer\nm = MCPServer('x')\n"
        "@m.tool(required_scopes=['notes:write'])\ndef delete() -> str:\n    return 'x'\n"
    )
    assert _loaded(modules, (*HTTP_STACK, "jwt")) == []


def test_the_redis_stores_load_the_redis_client_only_once_they_talk_to_redis() -> None:
    modules = _modules_after(
        "from mcp.redis import RedisState\nfrom mcp.server.mcpserver import MCPServer\n"
        "state = RedisState.from_url('redis://127.0.0.1:1/0')\n"
        "MCPServer('x', state=state).streamable_http_app()\nstate.task_store(); state.event_store()"
    )
    assert "mcp.redis._state" in modules
    assert _loaded(modules, ("redis",)) == []


def test_importing_mcpserver_loads_no_redis_integration() -> None:
    modules = _modules_after("from mcp.server import MCPServer\nimport mcp.server.streamable_http")
    assert not [m for m in modules if m.startswith("mcp.redis")]
    assert _loaded(modules, ("redis",)) == []


def test_the_http_client_transports_load_httpx2_and_never_httpx() -> None:
    """httpx2 is the library the transports create clients with; httpx is only for users who
    pass an httpx client of their own, and then they have imported it already."""
    modules = _modules_after("import mcp.client.streamable_http, mcp.client.sse, mcp.client.session_group")
    assert "httpx2" in modules
    assert _loaded(modules, ("httpx", "httpcore")) == []


def test_importing_the_client_loads_no_http_library() -> None:
    modules = _modules_after("from mcp import Client\nfrom mcp.client import ClientSession")
    assert _loaded(modules, HTTP_STACK) == []


def test_serving_stdio_initialize_and_tools_list_loads_no_http_auth_telemetry_or_protocol_models() -> None:
    """The stdio cold start (bench row "above the floor") pays for no HTTP stack, no JSON Schema
    validator, no settings or telemetry library, and no protocol model: the handshake and a bare
    tools/list are answered in wire form. Nor does it build what only features it does not use
    need: the method table (unserved methods), cache hints, the listen-stream event classes, the
    resolver (dependency) machinery."""
    server = (
        "import atexit, json, sys\n"
        "atexit.register(lambda: print(json.dumps(sorted(sys.modules)), file=sys.stderr))\n"
        "from pydantic import BaseModel\nfrom mcp.server import MCPServer\n"
        "class Weather(BaseModel):\n    city: str\n"
        "m = MCPServer('x')\n"
        "@m.tool()\ndef add(a: int, b: int) -> int:\n    return a + b\n"
        "@m.tool()\ndef forecast(n: int) -> list[Weather]:\n    return []\n"
        "m.run()\n"
    )
    requests = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]
    out = subprocess.run([sys.executable, "-c", server], input="".join(json.dumps(r) + "\n" for r in requests),
                         capture_output=True, text=True, timeout=60, check=True)
    answers = [json.loads(line) for line in out.stdout.splitlines()]
    assert [a["id"] for a in answers] == [1, 2] and len(answers[1]["result"]["tools"]) == 2
    modules = set(json.loads(out.stderr.strip().splitlines()[-1]))
    assert _loaded(modules, (*HTTP_STACK, "jsonschema", "pydantic_settings", "opentelemetry", "jwt")) == []
    assert not [m for m in modules if m.startswith(("mcp.client", "mcp.server.auth", "mcp.server.streamable_http"))]
    assert not [m for m in modules if m.startswith("mcp.types._") and m != "mcp.types._base"]
    assert not modules & {"mcp.types.methods", "mcp.server.caching", "mcp.shared.subscriptions",
                          "mcp.server.mcpserver.dependencies", "mcp.server.validation"}


ANYIO_MACHINERY = ("anyio._backends._asyncio", "anyio._core._synchronization", "anyio._core._tasks",
                   "anyio.streams.memory", "anyio.abc")
"""anyio's event-loop backend, its primitives (events, locks, cancel scopes, task groups) and memory
streams: what `import anyio` defers, about 20 ms of a stdio cold start when something touches them."""


def test_a_stdio_server_answers_its_first_requests_and_an_async_tool_without_anyios_backend() -> None:
    """`MCPServer.run()` over stdio runs on asyncio's own runner and serves on plain asyncio: up to
    an async tool's call (which reports what is loaded at that point) nothing has loaded anyio's
    backend, primitives or memory streams. A handler that uses anyio, a sync tool (its worker is an
    anyio worker thread, for `anyio.from_thread`) or the drain at end of input load them then."""
    server = (
        "import sys\nfrom mcp.server import MCPServer\n"
        "m = MCPServer('x')\n"
        "@m.tool()\nasync def modules() -> list[str]:\n    return sorted(sys.modules)\n"
        "m.run()\n"
    )
    requests: list[dict[str, Any]] = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "modules", "arguments": {}}},
    ]
    with subprocess.Popen([sys.executable, "-c", server], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, text=True) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        try:
            proc.stdin.write("".join(json.dumps(r) + "\n" for r in requests))
            proc.stdin.flush()  # stdin stays open: the server is still serving when it reports
            answers = [json.loads(proc.stdout.readline()) for _ in range(3)]
        finally:
            proc.stdin.close()
            proc.wait(timeout=60)
    assert [a["id"] for a in answers] == [1, 2, 3]
    modules = set(answers[2]["result"]["structuredContent"]["result"])
    assert "mcp.server.stdio" in modules and "asyncio" in modules
    assert sorted(modules & set(ANYIO_MACHINERY)) == []
    assert "mcp.shared.dispatcher" not in modules


def test_the_check_rules_load_no_cli_toolkit_pydantic_or_event_loop() -> None:
    """`mcp check`'s rule table is plain data and stdlib checkers: a CI script or a server's own
    test can import it without click, rich, pydantic or anyio."""
    modules = _modules_after("import mcp.cli.client_rules")
    assert _loaded(modules, ("click", "rich", "pydantic", "anyio", *HTTP_STACK)) == []


_BLOCK_LEGACY_HTTPX = (
    "import sys\n"
    "class Block:\n"
    "    def find_spec(self, name, path=None, target=None):\n"
    "        if name.split('.')[0] in ('httpx', 'httpcore'):\n"
    "            raise ImportError(f'{name} is blocked')\n"
    "sys.meta_path.insert(0, Block())\n"
)


def test_the_oauth_providers_import_and_serve_httpx2_where_the_legacy_httpx_is_not_installed() -> None:
    """The SDK needs only httpx2 (as the official one): the providers are also `httpx.Auth`s where
    httpx is installed, but an environment without it (FastMCP's clean-install check blocks it)
    still imports them, and their flows build their own requests with httpx2."""
    modules = _modules_after(
        _BLOCK_LEGACY_HTTPX
        + "import httpx2\n"
        "from mcp.client.auth import OAuthClientProvider\n"
        "from mcp.client.auth.extensions.client_credentials import ClientCredentialsOAuthProvider\n"
        "import mcp.client.auth.extensions.identity_assertion, mcp.client.auth.extensions.workload_identity\n"
        "from mcp.client.auth.utils import create_oauth_metadata_request\n"
        "assert issubclass(OAuthClientProvider, httpx2.Auth) and issubclass(ClientCredentialsOAuthProvider, httpx2.Auth)\n"
        "assert isinstance(create_oauth_metadata_request('https://as.example/m'), httpx2.Request)\n"
    )
    assert "mcp.client.auth.oauth2" in modules
    assert _loaded(modules, ("httpx", "httpcore")) == []
