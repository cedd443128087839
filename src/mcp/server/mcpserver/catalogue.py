"""Catalogue control: which of an `MCPServer`'s registered tools, resources, templates and prompts
its clients see.

Items carry `tags=` (kept here, server-side: they are not put on the wire). `enable()`/`disable()`
add ordered rules (by name, tag and kind; the last rule that matches an item decides) at two
levels: the server's (everyone) and one handshake-era session's (`Context.enable`/`disable`), which
applies on top of the server's. A hidden item is absent from its list and a request for it is
answered exactly as for an unknown one; each change that alters what someone sees is announced
with `notifications/*/list_changed` to whoever it concerns, on both eras.

Nothing here runs on a request while no rule exists: `MCPServer._catalogue` stays None until a
tag or a rule is given, and `Catalogue.filtering` is False while no rule is in force.
"""

from __future__ import annotations

import contextlib
import logging
import sys
import weakref
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Literal, cast

logger = logging.getLogger("mcp.server.catalogue")

Kind = Literal["tool", "resource", "template", "prompt"]
KINDS: tuple[Kind, ...] = ("tool", "resource", "template", "prompt")
LIST_CHANGED: dict[str, str] = {
    "tool": "notifications/tools/list_changed",
    "resource": "notifications/resources/list_changed",
    "template": "notifications/resources/list_changed",
    "prompt": "notifications/prompts/list_changed",
}
"""The notification that tells a client a kind's list changed (templates are listed with resources)."""
CAPABILITY: dict[str, str] = {
    "tool": "tools",
    "resource": "resources",
    "template": "resources",
    "prompt": "prompts",
}

Shown = Callable[[str, "str | None"], bool]
"""Whether an item is visible: (its key (name, URI or URI template), its name for a resource or
template) -> bool."""


def tag_set(tags: Iterable[str] | str | None, what: str = "tags") -> frozenset[str]:
    """`tags` as a frozenset (a bare string is one tag); a clear `TypeError` for anything else."""
    if tags is None:
        return frozenset()
    if isinstance(tags, str):
        return frozenset((tags,))
    try:
        out = frozenset(tags)
    except TypeError:
        raise TypeError(
            f"{what} must be a set of strings, e.g. {{'admin'}}; got {type(tags).__name__}"
        ) from None
    for tag in out:
        if not isinstance(tag, str) or not tag:
            raise TypeError(f"{what} must be non-empty strings; got {tag!r}")
    return out


def _kind_set(kinds: Iterable[str] | str | None) -> frozenset[str] | None:
    if kinds is None:
        return None
    out = tag_set(kinds, "kinds")
    unknown = sorted(out - set(KINDS))
    if unknown:
        raise ValueError(f"unknown kind {unknown[0]!r}: kinds are {', '.join(KINDS)}")
    return out


@dataclass(frozen=True, slots=True)
class Rule:
    """Show or hide the items matching every selector given (None: any)."""

    show: bool
    names: frozenset[str] | None
    tags: frozenset[str] | None
    kinds: frozenset[str] | None

    def matches(self, kind: str, key: str, name: str | None, tags: frozenset[str]) -> bool:
        if self.kinds is not None and kind not in self.kinds:
            return False
        if self.names is not None and key not in self.names and (name is None or name not in self.names):
            return False
        return self.tags is None or not self.tags.isdisjoint(tags)

    @property
    def selects_all(self) -> bool:
        return self.names is None and self.tags is None and self.kinds is None


class Rules:
    """One level's ordered rules; the last that matches an item decides, else the default."""

    __slots__ = ("rules",)

    def __init__(self) -> None:
        self.rules: list[Rule] = []

    def add(self, rule: Rule, only: bool) -> None:
        if only:
            self.rules = [Rule(False, None, None, None)]
        elif rule.selects_all:
            self.rules = []  # every earlier rule is overridden: keep the list bounded
            if rule.show:
                return  # enable() with no selector: back to the level's default
        else:
            self.rules = [
                r for r in self.rules if (r.names, r.tags, r.kinds) != (rule.names, rule.tags, rule.kinds)
            ]
        self.rules.append(rule)

    def decide(self, kind: str, key: str, name: str | None, tags: frozenset[str], default: bool) -> bool:
        for rule in reversed(self.rules):
            if rule.matches(kind, key, name, tags):
                return rule.show
        return default


def make_rule(
    show: bool,
    names: Iterable[str] | str | None,
    tags: Iterable[str] | str | None,
    kinds: Iterable[str] | str | None,
    only: bool,
) -> Rule:
    """A rule from `enable`/`disable` arguments, checked (a bad one raises and changes nothing)."""
    rule = Rule(
        show,
        None if names is None else tag_set(names, "names"),
        None if tags is None else tag_set(tags),
        _kind_set(kinds),
    )
    if only and rule.selects_all:
        raise ValueError("enable(only=True) needs names, tags or kinds: what should stay visible?")
    return rule


class Catalogue:
    """The tags of a server's items and its visibility rules (server-wide and per session)."""

    def __init__(self) -> None:
        self.tags: dict[tuple[str, str], frozenset[str]] = {}
        self.server: Rules | None = None
        self.sessions: weakref.WeakKeyDictionary[Any, Rules] = weakref.WeakKeyDictionary()

    @property
    def filtering(self) -> bool:
        """Whether any rule is in force (else every item is visible to everyone)."""
        return self.server is not None or len(self.sessions) > 0

    def set_tags(self, kind: str, key: str, tags: frozenset[str]) -> None:
        if tags:
            self.tags[(kind, key)] = tags
        else:
            self.tags.pop((kind, key), None)

    def shown(self, kind: str, session: Any) -> Shown | None:
        """The visibility test of `kind` for `session` (None: a session-less caller); None when
        no rule applies, i.e. everything is visible."""
        server = self.server
        own = self.sessions.get(session) if session is not None and self.sessions else None
        if server is None and own is None:
            return None
        tags = self.tags
        empty: frozenset[str] = frozenset()

        def visible(key: str, name: str | None = None) -> bool:
            item_tags = tags.get((kind, key), empty)
            seen = True if server is None else server.decide(kind, key, name, item_tags, True)
            return seen if own is None else own.decide(kind, key, name, item_tags, seen)

        return visible

    def change(self, rule: Rule, only: bool, session: Any = None) -> None:
        """Apply `rule` at the server level, or at `session`'s."""
        if session is None:
            rules = self.server if self.server is not None else Rules()
            rules.add(rule, only)
            self.server = rules if rules.rules else None
            return
        rules = self.sessions.get(session) or Rules()
        rules.add(rule, only)
        if rules.rules:
            self.sessions[session] = rules
        else:
            self.sessions.pop(session, None)


def resource_target(manager: Any, uri: str) -> tuple[str, str, str | None] | None:
    """Which registered item would serve a read of `uri`: (kind, key, name), or None."""
    resource = manager.get_static(uri)
    if resource is not None:
        return "resource", uri, resource.name
    for template in manager.templates:
        if template.parsed_template.match(uri) is not None:
            return "template", template.uri_template, template.name
    return None


def changed_methods(before: dict[str, frozenset[str]], after: dict[str, frozenset[str]]) -> list[str]:
    """The list_changed notifications a change from `before` to `after` calls for, in kind order."""
    methods: list[str] = []
    for kind in KINDS:
        method = LIST_CHANGED[kind]
        if before[kind] != after[kind] and method not in methods:
            methods.append(method)
    return methods


def capabilities_setting(value: Any) -> str | dict[str, Any] | None:
    """`MCPServer(capabilities=...)` checked: None, "registered", or an override given as a wire
    dict or a `ServerCapabilities` model (a key set to None withdraws that capability)."""
    if value is None or value == "registered":
        return cast("str | None", value)
    if hasattr(value, "model_dump"):
        value = value.model_dump(by_alias=True, exclude_none=True, mode="json")
    if not isinstance(value, dict):
        raise TypeError(
            "capabilities= must be None, 'registered', a dict such as {'tools': {'listChanged': False}} "
            f"or a ServerCapabilities; got {type(value).__name__}"
        )
    override = cast("dict[str, Any]", value)
    from mcp.types import ServerCapabilities

    try:
        ServerCapabilities.model_validate({key: item for key, item in override.items() if item is not None})
    except ValueError as exc:
        raise ValueError(f"capabilities= is not a valid ServerCapabilities: {exc}") from None
    return dict(override)


def advertised(
    caps: dict[str, Any], setting: str | dict[str, Any], registered: dict[str, list[tuple[str, str | None]]]
) -> dict[str, Any]:
    """The capabilities to declare under `setting`: "registered" drops `tools`, `resources` or
    `prompts` when nothing of that kind is registered; an override replaces each top-level entry
    it names (a dict entry is merged into the derived one; None removes it)."""
    if setting == "registered":
        for key, kinds in (
            ("tools", ("tool",)),
            ("resources", ("resource", "template")),
            ("prompts", ("prompt",)),
        ):
            if not any(registered[kind] for kind in kinds):
                caps.pop(key, None)
        return caps
    for key, value in cast("dict[str, Any]", setting).items():
        derived = caps.get(key)
        if value is None:
            caps.pop(key, None)
        elif isinstance(value, dict) and isinstance(derived, dict):
            caps[key] = {**cast("dict[str, Any]", derived), **cast("dict[str, Any]", value)}
        else:
            caps[key] = value
    return caps


class Announcement:
    """The delivery of the list_changed notifications of one server-wide change. `enable()` and
    `disable()` return it; awaiting it waits until every connected client has been told (without
    awaiting, delivery still happens, in the background)."""

    def __init__(self, done: Any = None) -> None:
        self._done = done

    def __await__(self) -> Any:
        done = self._done
        if done is None:
            return _nothing().__await__()
        return done.wait().__await__()


async def _nothing() -> None:
    return None


class ServerCatalogue:
    """The catalogue control of `MCPServer` (see the module docstring); its state is set up by
    `MCPServer.__init__`."""

    _catalogue: Catalogue | None
    _capabilities_setting: Any
    _tools: dict[str, Any]
    _tools_result: Any
    _resource_manager: Any
    _prompt_manager: Any
    _lowlevel_server: Any
    _bus: Any
    _background: set[Any]

    # -- registration -----------------------------------------------------------------------------

    def _tag(self, kind: str, key: str, tags: Iterable[str] | str | None) -> None:
        """Record an item's tags (registration); an untagged item leaves nothing behind."""
        found = tag_set(tags)
        catalogue = self._catalogue
        if catalogue is None:
            if not found:
                return
            catalogue = self._catalogue = Catalogue()
        catalogue.set_tags(kind, key, found)

    def _shown(self, kind: str, session: Any) -> Shown | None:
        """Whether `session` (None: a caller without one) sees an item of `kind`; None when
        nothing is hidden from it."""
        catalogue = self._catalogue
        if catalogue is None or not catalogue.filtering:
            return None
        return catalogue.shown(kind, session)

    def _hidden(self, kind: str, key: str, session: Any) -> bool:
        """Whether the item of `kind` under `key` is hidden from `session` (None: no session)."""
        shown = self._shown(kind, session)
        return shown is not None and not shown(key, None)

    def _unplannable(self, kind: str, key: Any) -> bool:
        """Whether a planner, which has no session at hand, must leave a request to the usual
        path: some session has rules of its own, or the item is hidden from everyone."""
        catalogue = self._catalogue
        if catalogue is None or not catalogue.filtering:
            return False
        if len(catalogue.sessions) > 0 or not isinstance(key, str):
            return True
        return self._hidden(kind, key, None)

    def _hidden_resource(self, uri: str, session: Any) -> bool:
        """Whether the item that would serve a read of `uri` is hidden from `session`."""
        catalogue = self._catalogue
        manager = self._resource_manager
        if catalogue is None or not catalogue.filtering or manager is None:
            return False
        target = resource_target(manager, uri)
        if target is None:
            return False
        kind, key, name = target
        shown = catalogue.shown(kind, session)
        return shown is not None and not shown(key, name)

    def _visible_keys(self, session: Any) -> dict[str, frozenset[str]]:
        """What `session` (None: everyone without own rules) sees of each kind, as keys."""
        out: dict[str, frozenset[str]] = {}
        for kind, items in self._registered().items():
            shown = self._shown(kind, session)
            out[kind] = frozenset(key for key, name in items if shown is None or shown(key, name))
        return out

    def _registered(self) -> dict[str, list[tuple[str, str | None]]]:
        """Every registered item by kind, as (key, name)."""
        out: dict[str, list[tuple[str, str | None]]] = {"tool": [(name, None) for name in self._tools]}
        resources = self._resource_manager
        out["resource"] = [] if resources is None else [(str(r.uri), r.name) for r in resources.resources]
        out["template"] = [] if resources is None else [(t.uri_template, t.name) for t in resources.templates]
        prompts = self._prompt_manager
        out["prompt"] = [] if prompts is None else [(p.name, None) for p in prompts.list_prompts()]
        return out

    # -- server-wide control ----------------------------------------------------------------------

    def enable(
        self,
        names: Iterable[str] | str | None = None,
        *,
        tags: Iterable[str] | str | None = None,
        kinds: Iterable[Kind] | Kind | None = None,
        only: bool = False,
    ) -> Announcement:
        """Show the items matching every selector given (`names`: names, URIs or URI templates;
        `tags`: any of these tags; `kinds`: "tool", "resource", "template", "prompt") to every
        client. `only=True` is allowlist mode: everything else is hidden, including items
        registered later. With no selector at all, every rule is dropped: everything is shown.

        Connected clients whose lists changed get `notifications/*/list_changed` (handshake-era
        sessions directly, 2026-07-28 clients on their `subscriptions/listen` streams); await the
        result to wait for that delivery."""
        return self._change(make_rule(True, names, tags, kinds, only), only)

    def disable(
        self,
        names: Iterable[str] | str | None = None,
        *,
        tags: Iterable[str] | str | None = None,
        kinds: Iterable[Kind] | Kind | None = None,
    ) -> Announcement:
        """Hide the items matching every selector given (see `enable`; no selector hides
        everything) from every client: absent from their lists, and a request for one is answered
        as for an unknown item. A later `enable` matching an item overrides this for it."""
        return self._change(make_rule(False, names, tags, kinds, False), False)

    def _change(self, rule: Rule, only: bool) -> Announcement:
        before = self._visible_keys(None)
        catalogue = self._catalogue
        if catalogue is None:
            catalogue = self._catalogue = Catalogue()
        catalogue.change(rule, only)
        self._tools_result = None
        methods = [m for m in changed_methods(before, self._visible_keys(None)) if self._announces(m)]
        if not methods:
            return Announcement()
        return self._deliver(methods)

    def _announces(self, method: str) -> bool:
        """False when the server set that list's `listChanged` to false (`capabilities=`)."""
        setting = self._capabilities_setting
        if not isinstance(setting, dict):
            return True
        key = method.split("/")[1]
        entry: Any = cast("dict[str, Any]", setting).get(key)
        return not (isinstance(entry, dict) and cast("dict[str, Any]", entry).get("listChanged") is False)

    def _deliver(self, methods: list[str]) -> Announcement:
        """Announce `methods` to everyone: in the background on this event loop, or, from a worker
        thread of the server, before returning; with no event loop (setup) there is nobody to tell."""
        library = _running_loop()
        if library is None:
            import anyio.from_thread

            with contextlib.suppress(RuntimeError):  # not a server's worker thread: nobody connected to tell
                anyio.from_thread.run(self._announce_to_all, methods)
            return Announcement()
        import anyio

        done = anyio.Event()

        async def deliver() -> None:
            try:
                await self._announce_to_all(methods)
            finally:
                done.set()

        if library == "trio":
            import trio

            trio.lowlevel.spawn_system_task(deliver, name="mcp-catalogue-announce")
        else:
            import asyncio

            task = asyncio.get_running_loop().create_task(deliver(), name="mcp-catalogue-announce")
            self._background.add(task)
            task.add_done_callback(self._background.discard)
        return Announcement(done)

    async def _announce_to_all(self, methods: list[str]) -> None:
        """Each list_changed to the listen streams (the subscription bus) and to every live
        handshake-era session with a back-channel; a session that went away is skipped."""
        from mcp.shared.subscriptions import event_from_wire

        for method in methods:
            event = event_from_wire(method, None)
            if event is not None:
                await self._bus.publish(event)
        for session in list(self._lowlevel_server.handshake_sessions):
            await _tell(session, methods)

    # -- per session ------------------------------------------------------------------------------

    async def change_session_visibility(
        self,
        session: Any,
        protocol_version: str,
        show: bool,
        names: Iterable[str] | str | None,
        tags: Iterable[str] | str | None,
        kinds: Iterable[Kind] | Kind | None,
        only: bool,
    ) -> None:
        """`Context.enable`/`disable`: apply a rule to `session` alone and tell it (only it) of
        each list that changed for it. Needs a handshake-era session with a back-channel."""
        from mcp.types.version import MODERN_VERSIONS

        if protocol_version in MODERN_VERSIONS or not session.has_back_channel:
            raise RuntimeError(
                "per-session visibility needs a handshake-era session (stdio, in-memory, or stateful "
                "Streamable HTTP with initialize); this request has none (2026-07-28 or stateless HTTP): "
                "use mcp.enable()/mcp.disable() for every client, or required_scopes= per caller"
            )
        rule = make_rule(show, names, tags, kinds, only)
        before = self._visible_keys(session)
        catalogue = self._catalogue
        if catalogue is None:
            catalogue = self._catalogue = Catalogue()
        catalogue.change(rule, only, session)
        methods = [m for m in changed_methods(before, self._visible_keys(session)) if self._announces(m)]
        await _tell(session, methods)


def _running_loop() -> str | None:
    """The event loop running in this thread ("asyncio" or "trio"), or None (a worker thread, or
    no loop at all). Not sniffio: a worker thread inherits its context variable."""
    import asyncio

    try:
        asyncio.get_running_loop()
        return "asyncio"
    except RuntimeError:
        pass
    trio: Any = sys.modules.get("trio")
    if trio is not None:
        try:
            trio.lowlevel.current_task()
            return "trio"
        except RuntimeError:
            pass
    return None


async def _tell(session: Any, methods: list[str]) -> None:
    if not session.has_back_channel:
        return
    for method in methods:
        try:
            await session.relay_list_changed(method)
        except Exception as exc:  # a closed connection: it will re-list when it comes back
            logger.debug("list_changed not delivered to a session: %r", exc)
            return
