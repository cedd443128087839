"""MCP Apps (`io.modelcontextprotocol/ui`): tools with an HTML face served as `ui://` resources.

`Apps` is an `Extension`: tools it holds are stamped with `_meta.ui.resourceUri`, resources are
served as `text/html;profile=mcp-app`, and misconfigurations fail at construction.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal, cast

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

from mcp.server.extension import Extension, ResourceBinding, ToolBinding

EXTENSION_ID = "io.modelcontextprotocol/ui"
APP_MIME_TYPE = "text/html;profile=mcp-app"


class ResourceCsp(BaseModel):
    """Content-Security-Policy domains a `ui://` resource needs (`_meta.ui.csp`)."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)

    connect_domains: list[str] | None = None
    resource_domains: list[str] | None = None
    frame_domains: list[str] | None = None
    base_uri_domains: list[str] | None = None

    def to_wire(self) -> dict[str, Any]:
        return self.model_dump(by_alias=True, exclude_none=True)


class ResourcePermissions(BaseModel):
    """Iframe permissions a `ui://` resource requests (`_meta.ui.permissions`): each one an object
    (`{}` asks for it; `True` is accepted as shorthand)."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)

    camera: dict[str, Any] | bool | None = None
    microphone: dict[str, Any] | bool | None = None
    geolocation: dict[str, Any] | bool | None = None
    clipboard_write: dict[str, Any] | bool | None = None

    def to_wire(self) -> dict[str, Any]:
        wire = self.model_dump(by_alias=True, exclude_none=True)
        return {key: ({} if value is True else value) for key, value in wire.items() if value is not False}


def _check_ui_uri(uri: str) -> None:
    if not str(uri).startswith("ui://"):
        raise ValueError(f"MCP Apps URIs must use the ui:// scheme, got {uri!r}")


class Apps(Extension):
    """Holds UI-bound tools and their `ui://` HTML resources; pass it in `extensions=[...]`."""

    identifier = EXTENSION_ID

    def __init__(self) -> None:
        self._tools: list[ToolBinding] = []
        self._resources: list[Any] = []

    def tool(self, resource_uri: str, visibility: Sequence[Literal["model", "app"]] | None = None,
             meta: dict[str, Any] | None = None, **tool_kwargs: Any) -> Callable[[Any], Any]:
        """Register a tool whose result a host renders with the app at `resource_uri`."""
        _check_ui_uri(resource_uri)
        if meta is not None and "ui" in meta:
            raise ValueError("Apps.tool() owns _meta['ui']; pass resource_uri=/visibility= instead of a 'ui' meta key")
        ui: dict[str, Any] = {"resourceUri": resource_uri}
        if visibility is not None:
            ui["visibility"] = list(visibility)

        def decorator(fn: Any) -> Any:
            self._tools.append(ToolBinding(fn, meta={**(meta or {}), "ui": ui}, kwargs=dict(tool_kwargs)))
            return fn

        return decorator

    def add_html_resource(self, uri: str, html: str, *, name: str | None = None, title: str | None = None,
                          description: str | None = None, csp: ResourceCsp | None = None,
                          permissions: ResourcePermissions | None = None, domain: str | None = None,
                          prefers_border: bool | None = None) -> None:
        from mcp.server.mcpserver.resources import TextResource

        _check_ui_uri(uri)
        ui: dict[str, Any] = {}
        if csp is not None:
            ui["csp"] = csp.to_wire()
        if permissions is not None:
            ui["permissions"] = permissions.to_wire()
        if domain is not None:
            ui["domain"] = domain
        if prefers_border is not None:
            ui["prefersBorder"] = prefers_border
        self._resources.append(TextResource(uri=uri, name=name or uri, title=title, description=description,
                                            mime_type=APP_MIME_TYPE, text=html, meta={"ui": ui} if ui else None))

    def add_resource(self, resource: Any) -> None:
        _check_ui_uri(str(resource.uri))
        fields_set: set[str] = getattr(resource, "model_fields_set", set[str]())
        if "mime_type" not in fields_set:
            resource.mime_type = APP_MIME_TYPE
        elif resource.mime_type != APP_MIME_TYPE:
            raise ValueError(f"MCP Apps resources are served as {APP_MIME_TYPE!r}, got {resource.mime_type!r}")
        self._resources.append(resource)

    def tools(self) -> Sequence[ToolBinding]:
        registered = {str(r.uri) for r in self._resources}
        for binding in self._tools:
            uri = binding.meta["ui"]["resourceUri"] if binding.meta else None
            if uri not in registered:
                raise ValueError(f"Apps tool {binding.kwargs.get('name') or getattr(binding.fn, '__name__', binding.fn)!r} binds "
                                 f"resource_uri {uri!r}, but no such resource is registered; add it with "
                                 "add_html_resource() or add_resource()")
        return list(self._tools)

    def resources(self) -> Sequence[ResourceBinding]:
        return [ResourceBinding(resource) for resource in self._resources]


def client_supports_apps(ctx: Any) -> bool:
    """True when the client declared the UI extension and listed the app MIME type."""
    caps = ctx.client_capabilities
    extensions: dict[str, Any] = getattr(caps, "extensions", None) or {}
    settings = extensions.get(EXTENSION_ID)
    return isinstance(settings, dict) and APP_MIME_TYPE in (cast("dict[str, Any]", settings).get("mimeTypes") or [])
