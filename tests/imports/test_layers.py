"""The import-layer contract of the architecture guide: imports point down only.

Every module under `src/mcp` is parsed with `ast` (nothing is imported) and given its layer:

    L0 foundation   exception tree, protocol-version registry, URI templates, stdlib-only checks
    L1 schema       mcp.types (the wire models)
    L2 protocol     mcp._protocol, and the `shared/` facades of its records and rules
    L3 engine       mcp._engine, and the `shared/` dispatcher vocabulary over it
    L4 transports   stdio, Streamable HTTP, legacy SSE, in-memory, their limits and stores
    L5 peers        low-level Server and its session/context, ClientSession, Client
    L6 framework    MCPServer (mcp.server.mcpserver), and the extensions built on it
    L7 integrations cli, auth, telemetry, Redis, request-state sealing

A `shared/` module that is an official path is classified by what it is (the facade of the
engine's dispatcher is L3, the OAuth models are auth: L7), not by its folder. So are a few
stdlib-only modules: the JSON-RPC error codes (`mcp.types.jsonrpc`) and the telemetry gate
(`mcp._telemetry`, whose spans live in `runtime`) are L0, the x-mcp-header rule
(`mcp.client.header_params`) is L2.

An import executed when the module is imported (module level, class bodies, `try`/`if` blocks;
not `if TYPE_CHECKING:`) that points to a higher layer fails the test, and so does a peer (L5)
importing a transport (L4) at module level (the guide lets peers load transports lazily only),
unless the arrow is in `MODULE_LEVEL_UP_ARROWS`: the arrows that existed when the contract was
written. That list only shrinks: the test also fails when a listed arrow no longer exists, so the
list stays exact (delete the line when you remove the import).

Imports inside functions are lazy: the guide allows them (peers load transports lazily, the
integrations are loaded on use). The upward ones are kept in `FUNCTION_LEVEL_UP_ARROWS`, also
exact, so that a new one is a decision someone made, not an accident.

When written: 215 modules, 1310 imports of our own modules, 3 upward arrows at module level,
14 upward lazy imports (the two arrow counts are asserted, so update them with the lists).
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path
from typing import cast

SRC = Path(__file__).resolve().parents[2] / "src"

L0, L1, L2, L3, L4, L5, L6, L7 = range(8)
LAYER_NAMES = ("L0 foundation", "L1 schema", "L2 protocol", "L3 engine", "L4 transports", "L5 peers",
               "L6 framework", "L7 integrations")

# Longest dotted prefix wins; every module must fall under one.
LAYERS: dict[str, int] = {
    "mcp": L7,  # the top-level lazy facade only (a new top-level package must be given its layer)
    # L0 foundation
    "mcp.shared": L0,
    "mcp.shared.exceptions": L0,
    "mcp.types.version": L0,
    "mcp.types.jsonrpc": L0,  # the error codes: plain constants (the models are re-exported lazily)
    "mcp._telemetry": L0,  # the gate only (`enabled()`, stdlib); the spans are `runtime`, L7
    "mcp.shared.uri_template": L0,
    "mcp.shared._uri_matcher": L0,
    "mcp.shared.path_security": L0,
    "mcp.shared.tool_name_validation": L0,
    # L1 schema
    "mcp.types": L1,
    "mcp.shared.metadata_utils": L1,
    # L2 protocol (sans-IO)
    "mcp._protocol": L2,
    "mcp.shared.message": L2,
    "mcp.shared.extension": L2,
    "mcp.shared.inbound": L2,
    "mcp.shared.subscriptions": L2,
    "mcp.shared.transport_context": L2,
    "mcp.client.header_params": L2,  # the x-mcp-header rule, pure (stdlib only)
    # L3 engine
    "mcp._engine": L3,
    "mcp.shared.dispatcher": L3,
    "mcp.shared.jsonrpc_dispatcher": L3,
    "mcp.shared.direct_dispatcher": L3,
    "mcp.shared.context": L3,
    "mcp.shared.peer": L3,
    "mcp.shared.json_schema_check": L3,  # JSON Schema checks bounded by size; large values on the engine's workers
    "mcp.server.connection": L3,  # a connection's own state (official path): under the transports and the session
    # L4 transports
    "mcp.os": L4,
    "mcp.shared.memory": L4,
    "mcp.shared._httpx_utils": L4,
    "mcp.server.stdio": L4,
    "mcp.server.sse": L4,
    "mcp.server.streamable_http": L4,
    "mcp.server.streamable_http_app": L4,
    "mcp.server.streamable_http_manager": L4,
    "mcp.server._http": L4,  # the Streamable HTTP front door (the official paths above re-export it)
    "mcp.server.transport_security": L4,
    "mcp.server._host_check": L4,
    "mcp.server.http_limits": L4,
    "mcp.server.connection_cap": L4,
    "mcp.server.param_headers": L4,  # the Streamable HTTP server's Mcp-Param-* check
    "mcp.server.event_store": L4,
    "mcp.server.session_store": L4,
    "mcp.client.stdio": L4,
    "mcp.client.sse": L4,
    "mcp.client.streamable_http": L4,  # the package: wire, headers, reading, resumption, lifecycle, posting
    "mcp.client._http_library": L4,
    "mcp.client.transports": L4,
    "mcp.client._memory": L4,  # the in-memory transport the Client builds for a server object
    "mcp.client._transport": L4,  # the Transport protocol every client transport satisfies
    # L5 peers
    "mcp.server": L5,
    "mcp.client": L5,
    # L6 framework
    "mcp.server.mcpserver": L6,
    "mcp.server.tasks": L6,  # the tasks extension: its tools get the framework's Context
    # L7 integrations
    "mcp.cli": L7,
    "mcp.stand_ins": L7,  # the `mcp`/`mcp-types` stand-in distributions (stdlib only: wheels, pins, installers)
    "mcp.server.auth": L7,
    "mcp.client.auth": L7,
    "mcp.shared.auth": L7,
    "mcp.shared.auth_utils": L7,
    "mcp._telemetry.runtime": L7,
    "mcp.shared._otel": L7,
    "mcp.server._otel": L7,
    "mcp.redis": L7,
    "mcp.server.request_state": L7,
}

# Module-level imports against the layering, as "importer -> imported". THIS LIST ONLY SHRINKS.
MODULE_LEVEL_UP_ARROWS: set[str] = {
    "mcp.client.session_group -> mcp.client.stdio",  # L5 -> L4 at module level (official module layout)
    "mcp.client.session_group -> mcp.client.streamable_http",  # L5 -> L4 at module level
    "mcp.server._http.request_path -> mcp.server.session",  # L4 -> L5: the transport makes ServerSessions
}

# Lazy (function-level) imports pointing up, as "importer -> imported". Kept exact: a new one is a
# deliberate choice (loaded on use, so the lower layer's import stays cheap).
FUNCTION_LEVEL_UP_ARROWS: set[str] = {
    "mcp._engine.outgoing -> mcp._telemetry.runtime",
    "mcp.client.transports -> mcp.server.lowlevel.server",
    "mcp.server.apps -> mcp.server.mcpserver.resources",
    "mcp.server.lowlevel.server -> mcp.server._otel",
    "mcp.server.mcpserver.handlers -> mcp.server.auth.scopes",
    "mcp.server.mcpserver.server -> mcp.server.auth.provider",  # a verifier for auth_server_provider=, on use
    "mcp.server.mcpserver._registration -> mcp.server.auth.scopes",
    "mcp.server.mcpserver.server -> mcp.server.request_state",
    "mcp.server.sse -> mcp.server.auth.app",
    "mcp.server._http.sessions -> mcp.server.auth.middleware.bearer_auth",  # a session's principal, with a token
    "mcp.server.streamable_http_app -> mcp.server.auth.app",
    "mcp.server.tasks._extension -> mcp.server.request_state",
    "mcp.shared.exceptions -> mcp.types",
    "mcp.types._method_maps -> mcp._protocol.revisions",  # serialize_server_result: the era's shape, on use
}


@cache
def modules() -> dict[str, tuple[Path, bool]]:
    """Dotted name -> (file, is a package)."""
    found: dict[str, tuple[Path, bool]] = {}
    for path in sorted((SRC / "mcp").rglob("*.py")):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        package = parts[-1] == "__init__"
        found[".".join(parts[:-1] if package else parts)] = (path, package)
    return found


def layer_of(module: str) -> int:
    name = module
    while name not in LAYERS:
        name, _, _ = name.rpartition(".")
    assert name != "mcp" or module == "mcp", f"{module} has no layer: add it (or its package) to LAYERS"
    return LAYERS[name]


def _resolve(name: str) -> str | None:
    """The module `name` loads (a name imported from a module is that module)."""
    known = modules()
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


@cache
def imports_of(module: str) -> list[tuple[str, bool]]:
    """`(imported mcp module, lazily)` for each import of one of our modules in `module`."""
    path, package = modules()[module]
    here = module if package else module.rpartition(".")[0]
    found: list[tuple[str, bool]] = []

    def record(name: str, lazy: bool) -> None:
        if name == "mcp" or name.startswith("mcp."):
            target = _resolve(name)
            if target is not None and target != module:
                found.append((target, lazy))

    def visit(nodes: list[ast.stmt], lazy: bool) -> None:
        for node in nodes:
            if isinstance(node, ast.If) and _is_type_checking(node.test):
                visit(node.orelse, lazy)  # the body runs for the type checker only
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                visit(node.body, True)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    record(alias.name, lazy)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = here.split(".")[: len(here.split(".")) - (node.level - 1)]
                    source = ".".join([*base, *([node.module] if node.module else [])])
                else:
                    source = node.module or ""
                for alias in node.names:
                    submodule = f"{source}.{alias.name}"
                    record(submodule if submodule in modules() else source, lazy)
            else:
                for block in _blocks(node):
                    visit(block, lazy)  # class bodies, try/with/for/while/if/match blocks

    visit(ast.parse(path.read_text(encoding="utf-8"), str(path)).body, False)
    return found


def _blocks(node: ast.stmt) -> list[list[ast.stmt]]:
    """The statement blocks nested in `node` that run when it runs (or at class creation)."""
    blocks: list[list[ast.stmt]] = []
    for field in ("body", "orelse", "finalbody"):
        block: object = getattr(node, field, None)
        if isinstance(block, list):
            blocks.append(cast("list[ast.stmt]", block))
    handlers: object = getattr(node, "handlers", None)  # try, and try/except* on 3.11+
    if isinstance(handlers, list):
        blocks.extend(handler.body for handler in cast("list[ast.ExceptHandler]", handlers))
    if isinstance(node, ast.Match):
        blocks.extend(case.body for case in node.cases)
    return blocks


def against_the_layering(module: str, target: str, *, lazy: bool) -> bool:
    source_layer, target_layer = layer_of(module), layer_of(target)
    if target_layer > source_layer:
        return True
    return not lazy and source_layer == L5 and target_layer == L4  # peers load transports lazily


def up_arrows(*, lazy: bool) -> set[str]:
    arrows: set[str] = set()
    for module in modules():
        for target, is_lazy in imports_of(module):
            if is_lazy == lazy and against_the_layering(module, target, lazy=lazy):
                arrows.add(f"{module} -> {target}")
    return arrows


def _describe(arrows: set[str]) -> str:
    lines: list[str] = []
    for arrow in sorted(arrows):
        source, _, target = arrow.partition(" -> ")
        lines.append(f"  {arrow}   ({LAYER_NAMES[layer_of(source)]} -> {LAYER_NAMES[layer_of(target)]})")
    return "\n".join(lines)


def test_every_module_has_a_layer() -> None:
    for module in modules():
        layer_of(module)


def test_no_module_level_import_points_up_beyond_the_listed_ones() -> None:
    arrows = up_arrows(lazy=False)
    new = arrows - MODULE_LEVEL_UP_ARROWS
    assert not new, "module-level imports pointing to a higher layer (move the import down, make it lazy, " \
        "or move the concept to its layer):\n" + _describe(new)
    gone = MODULE_LEVEL_UP_ARROWS - arrows
    assert not gone, "listed arrows that no longer exist: delete them from MODULE_LEVEL_UP_ARROWS:\n" + "\n".join(sorted(gone))


def test_the_lazy_imports_pointing_up_are_the_listed_ones() -> None:
    arrows = up_arrows(lazy=True)
    assert arrows == FUNCTION_LEVEL_UP_ARROWS, (
        "new lazy upward imports (list them in FUNCTION_LEVEL_UP_ARROWS if deliberate):\n"
        + _describe(arrows - FUNCTION_LEVEL_UP_ARROWS)
        + "\nlisted but gone:\n" + "\n".join(sorted(FUNCTION_LEVEL_UP_ARROWS - arrows)))


def test_the_arrow_counts_in_the_docstring_are_current() -> None:
    counts = f"{len(MODULE_LEVEL_UP_ARROWS)} upward arrows at module level, " \
        f"{len(FUNCTION_LEVEL_UP_ARROWS)} upward lazy imports"
    assert counts in " ".join((__doc__ or "").split()), counts


def test_shared_imports_neither_the_engine_nor_the_client_nor_the_server_at_module_level() -> None:
    """`mcp.shared` holds official paths over lower-layer homes: an official name whose home is the
    engine, the client or the server is re-exported lazily (PEP 562), never imported up front."""
    above = ("mcp._engine", "mcp.client", "mcp.server")
    arrows = sorted(f"{module} -> {target}" for module in modules() if module.startswith("mcp.shared")
                    for target, lazy in imports_of(module)
                    if not lazy and (target.startswith(above)))
    assert not arrows, "\n".join(arrows)
