"""Where `MCPServer.run()` takes its transport and HTTP options from: its arguments first, then
`MCP_*` environment variables, then the server's own defaults (stdio; 127.0.0.1:8000, `/mcp`);
and the one server option a deployment may set the same way, the tool timeout.

The variables (one prefix, `MCP_`), so that a deployment (a container, AgentCore, Lambda) can
choose how an unedited server file is served:

- `MCP_TRANSPORT`: `stdio`, `streamable-http` or `sse`. It replaces stdio only: `run()` with no
  transport (or `transport="stdio"`, which the signature cannot tell apart) follows it, while a
  `run()` that names an HTTP transport, or passes stdio options, keeps its own.
- `MCP_HOST`, `MCP_PORT`: where the HTTP transports listen.
- `MCP_PATH`: the Streamable HTTP endpoint (`streamable_http_path`) or the SSE one (`sse_path`).
- `MCP_STATELESS_HTTP`, `MCP_JSON_RESPONSE`: Streamable HTTP's `stateless_http` / `json_response`
  (`1`/`true`/`yes`/`on` or `0`/`false`/`no`/`off`).
- `MCP_TOOL_TIMEOUT`: seconds a tool call may run (`MCPServer(tool_timeout=...)`, which wins, as
  does a tool's own `timeout=`); read when the server is built, not by `run()`.

The HTTP variables are ignored over stdio (they may be set for the whole machine). An unset or
empty variable means "not given". The official SDK reads none of them, so a server that sets none
behaves exactly as officially.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

TRANSPORTS = ("stdio", "streamable-http", "sse")
_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off"})

# variable -> (the run() option it sets, per transport; how its text is read)
_PATH_OPTION = {"streamable-http": "streamable_http_path", "sse": "sse_path"}
_HTTP_ONLY = {"MCP_STATELESS_HTTP": "stateless_http", "MCP_JSON_RESPONSE": "json_response"}


def env_transport(environ: Mapping[str, str]) -> str | None:
    """`MCP_TRANSPORT`, checked; None when unset or empty."""
    value = environ.get("MCP_TRANSPORT", "").strip()
    if not value:
        return None
    if value not in TRANSPORTS:
        raise ValueError(f"MCP_TRANSPORT={value!r}: expected one of {', '.join(TRANSPORTS)}")
    return value


def env_flag(environ: Mapping[str, str], name: str) -> bool | None:
    """A boolean variable, checked; None when unset or empty."""
    value = environ.get(name, "").strip().lower()
    if not value:
        return None
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ValueError(f"{name}={environ[name]!r}: expected 1/true/yes/on or 0/false/no/off")


def env_tool_timeout(environ: Mapping[str, str]) -> float | None:
    """`MCP_TOOL_TIMEOUT`, checked (a positive number of seconds); None when unset or empty."""
    value = environ.get("MCP_TOOL_TIMEOUT", "").strip()
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        seconds = math.nan
    if math.isnan(seconds) or seconds <= 0:
        raise ValueError(f"MCP_TOOL_TIMEOUT={value!r}: expected a positive number of seconds")
    return seconds


def env_options(transport: str, environ: Mapping[str, str]) -> dict[str, Any]:
    """The `run()` options the environment gives for `transport` (none for stdio)."""
    if transport == "stdio":
        return {}
    found: dict[str, Any] = {}
    if host := environ.get("MCP_HOST", "").strip():
        found["host"] = host
    if port := environ.get("MCP_PORT", "").strip():
        if not port.isdigit() or not 0 <= int(port) <= 65535:
            raise ValueError(f"MCP_PORT={port!r}: expected a port number (0-65535)")
        found["port"] = int(port)
    if path := environ.get("MCP_PATH", "").strip():
        found[_PATH_OPTION[transport]] = path
    if transport == "streamable-http":
        for name, option in _HTTP_ONLY.items():
            flag = env_flag(environ, name)
            if flag is not None:
                found[option] = flag
    return found


def resolve_run(transport: str, options: Mapping[str, Any], environ: Mapping[str, str]) -> tuple[str, dict[str, Any]]:
    """The transport and options `run(transport, **options)` serves with: `MCP_TRANSPORT` when
    the transport is stdio, then the environment's options under the explicit ones."""
    if transport == "stdio" and not options:  # a run() given stdio options stays on stdio
        transport = env_transport(environ) or "stdio"
    return transport, {**env_options(transport, environ), **options}
