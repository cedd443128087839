"""After one import statement, the subpackages the official SDK binds are reachable as attributes,
and reaching them is what imports them (fresh interpreters; module sets, never time)."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any


def _run(code: str) -> Any:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_import_mcp_binds_client_server_and_shared_without_importing_them_up_front() -> None:
    loaded, present = _run(
        "import json, sys, mcp\n"
        "loaded = [m for m in ('mcp.client', 'mcp.server', 'mcp.shared') if m in sys.modules]\n"
        "print(json.dumps([loaded, [hasattr(mcp, n) for n in ('client', 'server', 'shared')]]))"
    )
    assert loaded == []
    assert present == [True, True, True]


def test_import_mcp_server_binds_lowlevel_and_mcpserver() -> None:
    assert _run("import json, mcp.server\nprint(json.dumps([hasattr(mcp.server, n) for n in ('lowlevel', 'mcpserver')]))") == [
        True,
        True,
    ]


def test_mcp_types_submodules_and_their_mcp_types_mirrors_are_distinct_modules_with_the_same_names() -> None:
    result = _run(
        "import json\n"
        "from mcp_types.jsonrpc import JSONRPCRequest\n"
        "import mcp.types.methods as a, mcp_types.methods as b\n"
        "import mcp.types.jsonrpc as j, mcp_types.jsonrpc as k\n"
        "print(json.dumps([JSONRPCRequest is j.JSONRPCRequest, a is b, a.MONOLITH_RESULTS is b.MONOLITH_RESULTS,"
        " j is k, all(getattr(j, n) is getattr(k, n) for n in j.__all__)]))"
    )
    assert result == [True, False, True, False, True]


def test_importing_mcp_types_jsonrpc_and_version_loads_no_pydantic() -> None:
    assert _run(
        "import json, sys\nimport mcp.types.jsonrpc, mcp.types.version, mcp_types.jsonrpc, mcp_types.version\n"
        "print(json.dumps('pydantic' in sys.modules))"
    ) is False
