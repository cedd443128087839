"""Fit outgoing messages to the peer's protocol revision (sans-IO, stdlib only).

Results and params are built in the newest shape; a peer on another revision must not see fields its
revision lacks (`title`, `icons`, `structuredContent`, `resultType`, ...). `prune_result` and `prune_params`
drop, recursively, every key that some revision defines for an object but the target revision does not.
Keys that no revision defines (vendor extensions, which every schema permits) pass through, `_meta` is never
touched, and free-form values (`inputSchema`, `structuredContent`, `arguments`, ...) are never looked into.

The shapes come from the generated `_revision_shapes` module, imported on first use (with `KNOWN`, what
`known_keys` makes of them, computed when it is generated). Each revision is
compiled once into closures; objects that can never need pruning compile to nothing, so for most methods
the call is two dict lookups, and nothing is copied unless a key is actually removed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from types import ModuleType

__all__ = ["known_keys", "prune_params", "prune_result"]

_Prune = Callable[[Any], Any]
"""Returns its argument itself when nothing was removed, else a pruned shallow copy."""

_FREE = "*"
_META = "_meta"


class _Tables:
    """The compiled pruners of one revision, by method (only methods that can need pruning)."""

    __slots__ = ("params", "results")

    def __init__(self, results: dict[str, _Prune], params: dict[str, _Prune]) -> None:
        self.results = results
        self.params = params


_EMPTY = _Tables({}, {})
_tables: dict[str, _Tables] = {}
_known: dict[str, frozenset[str]] = {}


def prune_result(method: str, result: dict[str, Any], version: str) -> dict[str, Any]:
    """`result` of `method` without the fields `version` lacks; `result` itself if there are none."""
    prune = (_tables.get(version) or _load(version)).results.get(method)
    return result if prune is None else prune(result)


def prune_params(method: str, params: dict[str, Any], version: str) -> dict[str, Any]:
    """Params of an outgoing request or notification without the fields `version` lacks."""
    prune = (_tables.get(version) or _load(version)).params.get(method)
    return params if prune is None else prune(params)


# -- compiling ------------------------------------------------------------------------------------


def _shapes() -> ModuleType:
    from mcp._protocol import _revision_shapes

    return _revision_shapes


def _load(version: str) -> _Tables:
    """Compile (once) the pruners of a known revision; unknown revisions prune nothing."""
    shapes = _shapes()
    if version not in shapes.OBJECTS:
        return _EMPTY
    if not _known:  # computed by the generator (`known_keys`), which takes a while at run time
        _known.update({name: frozenset(keys.split()) for name, keys in shapes.KNOWN.items()})
    compiler = _Compiler(shapes, version)
    results: dict[str, _Prune] = {}
    alternatives: dict[str, list[str]] = shapes.RESULT_ALTERNATIVES[version]
    for table in (shapes.SERVER_RESULTS[version], shapes.CLIENT_RESULTS[version]):
        for method, name in cast("dict[str, str]", table).items():
            prune = compiler.result(name, alternatives.get(method, []))
            if prune is not None:
                results[method] = prune
    params: dict[str, _Prune] = {}
    for method, spec in cast("dict[str, Any]", shapes.PARAMS[version]).items():
        prune = compiler.spec(spec)
        if prune is not None:
            params[method] = prune
    tables = _tables[version] = _Tables(results, params)
    return tables


def _names(spec: Any) -> list[str]:
    """The OBJECTS/UNIONS names a spec refers to (through arrays)."""
    while isinstance(spec, list):
        spec = cast("list[Any]", spec)[0]
    return [] if spec == _FREE else [cast(str, spec)]


def known_keys(shapes: Any) -> dict[str, frozenset[str]]:
    """Every key any revision defines for each shape name.

    A named definition collects its own keys across revisions. An inline object (a dotted name such as
    `CallToolRequest.params`) is also matched with whatever sits at the same place in other revisions (there
    it may be `CallToolRequestParams`), so older inline shapes learn the keys newer revisions added.
    """
    revisions: list[str] = list(shapes.OBJECTS)
    own: dict[str, set[str]] = {}
    for version in revisions:
        objects: dict[str, tuple[str, dict[str, Any]]] = shapes.OBJECTS[version]
        for name, (keys, _) in objects.items():
            own.setdefault(name, set()).update(keys.split())
        for name, union in cast("dict[str, dict[str, Any]]", shapes.UNIONS[version]).items():
            for member in cast("list[str]", union["members"]):
                own.setdefault(name, set()).update(objects[member][0].split())

    parent: dict[str, str] = {}

    def find(name: str) -> str:
        while parent.get(name, name) != name:
            name = parent[name]
        return name

    def join(a: str, b: str) -> bool:
        root_a, root_b = find(a), find(b)
        if root_a == root_b:
            return False
        parent[root_b] = root_a
        return True

    for table in ("PARAMS", "SERVER_RESULTS", "CLIENT_RESULTS"):
        by_method: dict[str, list[str]] = {}
        for version in revisions:
            for method, spec in cast("dict[str, Any]", getattr(shapes, table)[version]).items():
                by_method.setdefault(method, []).extend(_names(spec))
        for names in by_method.values():
            for name in names[1:]:
                join(names[0], name)
    changed = True
    while changed:  # places correspond when their parents do: propagate down to a fixed point
        changed = False
        at: dict[tuple[str, str], str] = {}
        for version in revisions:
            for owner, (_, subs) in cast(
                "dict[str, tuple[str, dict[str, Any]]]", shapes.OBJECTS[version]
            ).items():
                for prop, spec in subs.items():
                    for name in _names(spec):
                        place = (find(owner), prop)
                        if place in at:
                            changed = join(at[place], name) or changed
                        else:
                            at[place] = name
    classes: dict[str, set[str]] = {}
    for name in own:
        classes.setdefault(find(name), set()).update(own[name])
    known = {name: set(classes[find(name)] if "." in name else keys) for name, keys in own.items()}
    base = own.get("Result", set())  # every result extends Result (`resultType` since 2026-07-28)
    for version in revisions:
        for table in (shapes.SERVER_RESULTS, shapes.CLIENT_RESULTS):
            for name in cast("dict[str, str]", table[version]).values():
                known[name] |= base
        for names in cast("dict[str, list[str]]", shapes.RESULT_ALTERNATIVES[version]).values():
            for name in names:
                known[name] |= base
    return {name: frozenset(keys) for name, keys in known.items()}


class _Compiler:
    """Turns one revision's shapes into pruning closures (None where nothing can ever be pruned)."""

    def __init__(self, shapes: ModuleType, version: str) -> None:
        self.objects: dict[str, tuple[str, dict[str, Any]]] = shapes.OBJECTS[version]
        self.unions: dict[str, dict[str, Any]] = shapes.UNIONS[version]
        self.done: dict[str, _Prune | None] = {}

    def spec(self, spec: Any) -> _Prune | None:
        if isinstance(spec, list):
            item = self.spec(cast("list[Any]", spec)[0])
            return None if item is None else _array(item)
        return None if spec == _FREE else self.named(cast(str, spec))

    def named(self, name: str) -> _Prune | None:
        if name in self.done:
            return self.done[name]
        done = self.done
        done[name] = lambda value: (done[name] or _same)(value)  # stands in while compiling a cycle
        if name in self.unions:
            union = self.unions[name]
            arr = union.get("arr")
            prune = self.union(union["members"], union.get("on"), union.get("by", {}), arr)
        elif name in self.objects:
            keys, subs = self.objects[name]
            drop = _known.get(name, frozenset()) - set(keys.split()) - {_META}
            children: list[tuple[str, _Prune]] = []
            for prop, sub in subs.items():
                child = None if prop == _META else self.spec(sub)
                if child is not None:
                    children.append((prop, child))
            prune = _object(frozenset(drop), tuple(children)) if drop or children else None
        else:
            prune = None
        done[name] = prune
        return prune

    def union(self, members: list[str], on: str | None, by: dict[str, str], arr: Any = None) -> _Prune | None:
        pruners = {member: self.named(member) for member in members}
        array = None if arr is None else self.spec(arr)
        if array is None and all(prune is None for prune in pruners.values()):
            return None
        tagged = {tag: pruners[member] for tag, member in by.items()}
        keys = [frozenset(self.objects[member][0].split()) - {_META} for member in members]
        shapes: list[tuple[frozenset[str], frozenset[str], _Prune | None]] = []
        for index, member in enumerate(members):
            others = frozenset[str]().union(*(k for i, k in enumerate(keys) if i != index))
            shapes.append((keys[index] - others, keys[index], pruners[member]))
        return _union(on, tagged, tuple(shapes), array)

    def result(self, name: str, alternatives: list[str]) -> _Prune | None:
        """The pruner of a method's result, which may instead be one of `alternatives` (told apart by keys)."""
        if not alternatives:
            return self.named(name)
        return self.union([name, *alternatives], None, {})


# -- pruning closures -----------------------------------------------------------------------------


def _same(value: Any) -> Any:
    return value


def _object(drop: frozenset[str], children: tuple[tuple[str, _Prune], ...]) -> _Prune:
    """Drops `drop` from a dict and prunes the values of `children` recursively."""

    def prune(value: Any) -> Any:
        if not isinstance(value, dict):
            return value
        source = cast("dict[str, Any]", value)
        out: dict[str, Any] | None = None
        if drop and not drop.isdisjoint(source):
            out = {key: item for key, item in source.items() if key not in drop}
        for key, child in children:
            item = source.get(key)
            if item is not None and (new := child(item)) is not item:
                if out is None:
                    out = dict(source)
                out[key] = new
        return source if out is None else out

    return prune


def _array(item: _Prune) -> _Prune:
    """Prunes each element of a list."""

    def prune(value: Any) -> Any:
        if not isinstance(value, list):
            return value
        source = cast("list[Any]", value)
        out: list[Any] | None = None
        for index, element in enumerate(source):
            new = item(element)
            if new is not element:
                if out is None:
                    out = list(source)
                out[index] = new
        return source if out is None else out

    return prune


def _pick(
    source: dict[str, Any], shapes: tuple[tuple[frozenset[str], frozenset[str], _Prune | None], ...]
) -> _Prune | None:
    """The pruner of the union member `source` most likely is, judged by its keys."""
    for distinct, _, member in shapes:
        if not distinct.isdisjoint(source):
            return member
    best, member = -1, None
    for _, keys, candidate in shapes:
        score = len(keys.intersection(source))
        if score > best:
            best, member = score, candidate
    return member


def _union(
    on: str | None,
    tagged: dict[str, _Prune | None],
    shapes: tuple[tuple[frozenset[str], frozenset[str], _Prune | None], ...],
    array: _Prune | None,
) -> _Prune:
    """Prunes a value as the member its discriminator names, else as the first member it has a key only
    that member defines, else as the member sharing most of its keys (the first one on a tie).

    `shapes` holds (keys only this member defines, all its keys, pruner) per member. A discriminator naming
    no member of this revision (say an audio block for 2024-11-05) leaves the value alone: it cannot be
    fitted by dropping keys.
    """

    def prune(value: Any) -> Any:
        if isinstance(value, dict):
            source = cast("dict[str, Any]", value)
            if on is not None and on in source:
                tag = source[on]
                member = tagged.get(tag) if isinstance(tag, str) else None
            else:
                member = _pick(source, shapes)
            return source if member is None else member(source)
        if array is not None and isinstance(value, list):
            return array(value)
        return value

    return prune
