"""Scopes per tool, resource and prompt: `ScopeRequirements`.

    @mcp.tool(required_scopes=["notes:write"])
    def delete_note(note_id: str) -> str: ...

A server records what each item needs here. Two places read it:

- the bearer-token gate, before the request reaches the server: a `tools/call`, `prompts/get`,
  `resources/read` or `resources/subscribe` of an item whose scopes the token lacks (or a
  `subscriptions/listen` naming such a resource) is answered `403` with
  `WWW-Authenticate: Bearer error="insufficient_scope", scope="<what it needs>"` (MCP
  authorization, scope challenge handling), so the client can step up;
- the list handlers: `tools/list`, `prompts/list`, `resources/list` and
  `resources/templates/list` show a caller only what its token's scopes allow, and such a result
  is marked `cacheScope: "private"` (it belongs to one authorization context).

Without an access token (stdio, in memory, no auth configured) nothing is filtered or refused:
scopes are a property of HTTP authorization. Pure Python, no HTTP stack.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Literal, cast

from mcp.shared.uri_template import UriTemplate

Kind = Literal["tool", "prompt", "resource"]

_CALLS: dict[str, tuple[Kind, str]] = {
    "tools/call": ("tool", "name"),
    "prompts/get": ("prompt", "name"),
    "resources/read": ("resource", "uri"),
    "resources/subscribe": ("resource", "uri"),  # what a subscriber is told of is what it could read
}

_LISTEN_URIS = ("resourceSubscriptions", "resource_subscriptions")
"""Where a listen filter names resources (the models accept either spelling)."""


class ScopeRequirements:
    """Which scopes each tool, prompt and resource (URI or URI template) needs."""

    def __init__(self) -> None:
        self._items: dict[Kind, dict[str, tuple[str, ...]]] = {"tool": {}, "prompt": {}, "resource": {}}
        self._templates: list[tuple[UriTemplate, tuple[str, ...]]] = []

    def __bool__(self) -> bool:
        return any(self._items.values())

    def require(self, kind: Kind, name: str, scopes: Sequence[str] | None) -> None:
        """Record (or, with no scopes, clear) what `name` needs."""
        table = self._items[kind]
        if scopes:
            table[name] = tuple(dict.fromkeys(scopes))
        else:
            table.pop(name, None)
        if kind == "resource":
            # matched as the server routes `resources/read` to templates: in time linear in the URI
            self._templates = [(UriTemplate(uri), needed) for uri, needed in table.items() if UriTemplate.is_template(uri)]

    def required(self, kind: Kind, name: str) -> tuple[str, ...]:
        """The scopes `name` needs (a resource URI also matches the templates it expands)."""
        table = self._items[kind]
        needed = table.get(name)
        if needed is not None:
            return needed
        if kind == "resource":
            for template, scopes in self._templates:
                if template.match(name) is not None:
                    return scopes
        return ()

    def missing(self, kind: Kind, name: str, granted: Iterable[str]) -> tuple[str, ...]:
        have = set(granted)
        return tuple(scope for scope in self.required(kind, name) if scope not in have)

    def denied_call(self, message: Any, granted: Iterable[str]) -> tuple[str, str, tuple[str, ...]] | None:
        """For a JSON-RPC request (or batch) calling, or subscribing to, a scoped item the token may not use:
        `(kind, name, the item's scopes)`; `None` when every call is allowed."""
        messages: list[Any] = cast(list[Any], message) if isinstance(message, list) else [message]
        granted = list(granted)
        for item in messages:
            if not isinstance(item, dict):
                continue
            method = cast(dict[str, Any], item).get("method")
            params = cast(dict[str, Any], item).get("params")
            if not isinstance(params, dict):
                continue
            params = cast(dict[str, Any], params)
            if method == "subscriptions/listen":  # (2026-07-28) resource subscriptions in its filter
                wanted: Any = params.get("notifications")
                for key in _LISTEN_URIS if isinstance(wanted, dict) else ():
                    uris: Any = cast(dict[str, Any], wanted).get(key)
                    for uri in cast(list[Any], uris) if isinstance(uris, list) else ():
                        if isinstance(uri, str) and self.missing("resource", uri, granted):
                            return "resource", uri, self.required("resource", uri)
                continue
            entry = _CALLS.get(method) if isinstance(method, str) else None
            if entry is None:
                continue
            kind, field = entry
            name = params.get(field)
            if isinstance(name, str) and self.missing(kind, name, granted):
                return kind, name, self.required(kind, name)
        return None

    def visible(self, kind: Kind, name: str, granted: Iterable[str] | None) -> bool:
        """Whether a list shows `name` to a caller with these scopes (`None`: no token, all shown)."""
        return granted is None or not self.missing(kind, name, granted)


def granted_scopes() -> list[str] | None:
    """The scopes of the current request's access token, `None` outside an authenticated request."""
    from mcp.server.auth.middleware._context import auth_context_var

    user = auth_context_var.get()
    return list(user.access_token.scopes) if user is not None else None


__all__ = ["Kind", "ScopeRequirements", "granted_scopes"]
