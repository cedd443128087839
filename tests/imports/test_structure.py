"""The room stays walkable: small modules, no import circle, objects entered through their doors.

Read from the source with `ast` (nothing is imported), as the layer contract is:

- **Module size.** No module under `src/mcp` is over `MAX_LINES` lines, generated data excepted
  (`GENERATED`): a module that grows past it holds more than one concept and is split by concept.
- **Import circles.** The graph of imports executed when a module is imported (module level,
  class bodies, `try`/`if` blocks; not `if TYPE_CHECKING:`, not function bodies) has no cycle.
- **Private reaches.** `obj._name` where `_name` is defined nowhere in the reaching module (not on
  `self`, `cls` or `super()`) enters another object's privates. Each that remains is listed in
  `PRIVATE_REACHES` with why; the list only shrinks: the test fails on a new reach and on a listed
  one that is gone, so the list stays exact.
"""

from __future__ import annotations

import ast
from collections import Counter
from functools import cache
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"
MAX_LINES = 600
GENERATED = {"mcp._protocol._revision_shapes"}  # written by scripts from the spec schemas

# (reaching module, attribute): how many times. Why each stays:
PRIVATE_REACHES: Counter[tuple[str, str]] = Counter({
    ("mcp.shared.auth_utils", "_replace"): 1,  # a NamedTuple's public `_replace` (urllib's SplitResult)
})


@cache
def modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for path in sorted((SRC / "mcp").rglob("*.py")):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


@cache
def tree(module: str) -> ast.Module:
    return ast.parse(modules()[module].read_text(encoding="utf-8"))


def imported_at_load(module: str) -> set[str]:
    """Our modules that `module` imports when it is itself imported."""
    known = modules()
    is_package = known[module].name == "__init__.py"
    found: set[str] = set()

    def own(name: str) -> None:
        while name and name not in known and "." in name:
            name = name.rsplit(".", 1)[0]
        if name in known and name != module:
            found.add(name)

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.split(".")[0] == "mcp":
                        own(alias.name)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = module.split(".")[: None if is_package else -1]
                    base = base[: len(base) - (node.level - 1)]
                    name = ".".join(base + ([node.module] if node.module else []))
                else:
                    name = node.module or ""
                if name.split(".")[0] != "mcp":
                    continue
                for alias in node.names:
                    own(f"{name}.{alias.name}" if f"{name}.{alias.name}" in known else name)
            elif isinstance(node, ast.If):
                test = node.test
                if not ((isinstance(test, ast.Name) and test.id == "TYPE_CHECKING")
                        or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")):
                    visit(node.body)
                    visit(node.orelse)
            elif isinstance(node, ast.Try):
                visit(node.body)
                for handler in node.handlers:
                    visit(handler.body)
                visit(node.orelse)
                visit(node.finalbody)
            elif isinstance(node, (ast.ClassDef, ast.With)):
                visit(node.body)

    visit(tree(module).body)
    return found


def private_reaches(module: str) -> Counter[tuple[str, str]]:
    root = tree(module)
    defined: set[str] = set()
    for node in ast.walk(root):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defined.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            defined.add(node.attr)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            defined.add(node.id)
    found: Counter[tuple[str, str]] = Counter()
    for node in ast.walk(root):
        if not (isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__")):
            continue
        owner = node.value
        if isinstance(owner, ast.Name) and owner.id in ("self", "cls"):
            continue
        if isinstance(owner, ast.Call) and isinstance(owner.func, ast.Name) and owner.func.id == "super":
            continue
        if node.attr not in defined:
            found[(module, node.attr)] += 1
    return found


def test_no_module_is_over_the_size_of_one_concept() -> None:
    too_big = {}
    for module, path in modules().items():
        lines = path.read_text(encoding="utf-8").count("\n")
        if lines > MAX_LINES and module not in GENERATED:
            too_big[module] = lines
    assert too_big == {}, f"split these by concept (at most {MAX_LINES} lines): {too_big}"


def test_modules_import_each_other_without_a_circle() -> None:
    graph = {module: imported_at_load(module) for module in modules()}
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    circles: list[list[str]] = []

    def walk(module: str, path: list[str]) -> None:
        state[module] = 1
        path.append(module)
        for target in sorted(graph[module]):
            if state.get(target) == 1:
                circles.append([*path[path.index(target):], target])
            elif target not in state:
                walk(target, path)
        path.pop()
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            walk(module, [])
    assert circles == [], "import circles: " + "; ".join(" -> ".join(c) for c in circles)


def test_objects_are_entered_through_their_doors() -> None:
    found: Counter[tuple[str, str]] = Counter()
    for module in modules():
        found += private_reaches(module)
    new = found - PRIVATE_REACHES
    gone = PRIVATE_REACHES - found
    assert not new, f"new reaches into another object's privates (give the owner a door): {dict(new)}"
    assert not gone, f"listed reaches no longer made (delete them from PRIVATE_REACHES): {dict(gone)}"
