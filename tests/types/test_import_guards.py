"""What importing the types costs, checked in fresh interpreters (counts of modules, never time)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

import mcp.types as types

FEATURE_MODULES = sorted(f"mcp.types.{name}" for name in types._EXPORTS)

_LOADED = """
import json, sys
print(json.dumps({
    "types": sorted(m for m in sys.modules if m.startswith("mcp.types.")),
    "pydantic": "pydantic" in sys.modules,
}))
"""


def _run(*parts: str) -> dict[str, object]:
    code = "\n".join(textwrap.dedent(part) for part in parts)
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_importing_mcp_types_loads_no_feature_module_and_no_pydantic() -> None:
    loaded = _run("import mcp.types\nassert mcp.types.LATEST_PROTOCOL_VERSION", _LOADED)
    assert loaded == {"types": ["mcp.types.jsonrpc", "mcp.types.version"], "pydantic": False}


def test_the_method_table_is_read_without_loading_a_model() -> None:
    loaded = _run(
        """
        from mcp.types import methods
        info = methods.get("tools/call")
        assert info is not None and info.result == "CallToolResult"
        assert methods.is_defined("initialize", "2025-11-25", "client")
        """,
        _LOADED,
    )
    assert loaded == {
        "types": ["mcp.types.jsonrpc", "mcp.types.methods", "mcp.types.version"],
        "pydantic": False,
    }


def test_using_one_name_loads_only_its_module_and_what_it_imports() -> None:
    loaded = _run("from mcp.types import TextContent", _LOADED)
    assert loaded["types"] == [
        "mcp.types._base",
        "mcp.types._common",
        "mcp.types._content",
        "mcp.types.jsonrpc",
        "mcp.types.version",
    ]


def test_importing_every_feature_module_builds_no_concrete_model() -> None:
    built = _run(
        """
        import json
        import mcp.types as t
        from pydantic import BaseModel
        for module in t._EXPORTS:
            __import__(f"mcp.types.{module}")
        def walk(cls):
            for sub in cls.__subclasses__():
                yield sub
                yield from walk(sub)
        print(json.dumps(sorted({c.__name__ for c in walk(BaseModel)
                                 if c.__module__.startswith("mcp.types.") and c.__pydantic_complete__})))
        """
    )
    # Parametrizing a pydantic generic builds its (tiny) unparametrized origin; nothing else is built.
    assert built == ["Notification", "PaginatedRequest", "Request"]


@pytest.mark.parametrize("module", FEATURE_MODULES)
def test_any_feature_module_can_be_imported_first(module: str) -> None:
    """The feature modules import each other: whichever comes first, no import fails and every
    model's field types are resolved when its class is created (so subclasses anywhere work)."""
    unresolved = _run(
        f"""
        import json
        import {module}
        import mcp.types as t
        from pydantic import BaseModel
        for name in t._EXPORTS:
            __import__(f"mcp.types.{{name}}")
        def walk(cls):
            for sub in cls.__subclasses__():
                yield sub
                yield from walk(sub)
        print(json.dumps(sorted(c.__name__ for c in walk(BaseModel)
                                if c.__module__.startswith("mcp.types.") and not c.__pydantic_fields_complete__)))
        """
    )
    assert unresolved == []


def test_a_subclass_defined_before_first_use_inherits_resolved_fields() -> None:
    done = _run(
        """
        import json
        from mcp.types import CallToolRequestParams, CreateMessageRequestParams, ElicitResult
        class Mine(CallToolRequestParams):
            extra_flag: bool = False
        class MySampling(CreateMessageRequestParams):
            pass
        mine = Mine.model_validate({"name": "t", "inputResponses": {"a": {"action": "accept"}}})
        assert isinstance(mine.input_responses["a"], ElicitResult)
        sampling = MySampling.model_validate({"messages": [], "maxTokens": 1, "tools": [{"name": "x", "inputSchema": {}}]})
        print(json.dumps(type(sampling.tools[0]).__module__))
        """
    )
    assert done == "mcp.types._tools"
