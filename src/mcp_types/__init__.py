"""`mcp_types`: the protocol's data types as a top-level package, for code that only
(de)serializes MCP traffic.

A mirror of `mcp.types` (one home, two import paths): every name is the same object, looked up
there on first access (PEP 562), so `mcp_types.CallToolResult is mcp.types.CallToolResult` and
`import mcp_types` costs what `import mcp.types` costs, never the transport stack. The
`mcp_types.jsonrpc`, `.methods` and `.version` submodules mirror the `mcp.types` submodules of the
same names the same way (distinct module objects, identical names, as in the official SDK).
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import mcp.types as _types
import mcp.types.jsonrpc as _jsonrpc_home
import mcp.types.version as _version_home
from mcp.types import __all__ as __all__
from mcp_types import jsonrpc as jsonrpc
from mcp_types import version as version

# The protocol's constants (error codes, meta keys, versions) are bound up front, as in the official
# package: libraries read them with `vars(mcp_types)[...]` (the OpenAI Agents SDK does), which a lazy
# lookup cannot answer. Only those of the two modules the imports above have loaded already.
_CONSTANT_HOMES: tuple[Mapping[str, Any], ...] = (vars(_jsonrpc_home), vars(_version_home))
globals().update({name: value for home in _CONSTANT_HOMES for name, value in home.items()
                  if name.isupper() and name in __all__})


def __getattr__(name: str) -> Any:
    if name == "methods":  # not bound up front, as officially; `import mcp_types.methods` binds it
        return importlib.import_module("mcp_types.methods")
    try:
        value = getattr(_types, name)
    except AttributeError:
        raise AttributeError(f"module 'mcp_types' has no attribute {name!r}") from None
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*__all__, "jsonrpc", "version"})


if TYPE_CHECKING:
    from mcp.types import *  # noqa: F403
