"""The registry behind `@mcp.resource(...)`, `mcp.add_resource(...)` and the `resources/*` handlers.

Reading tries the static resources first (exact URI), then the templates in registration order.
The first template whose pattern matches decides: if a value fails the path-safety policy the
read fails exactly like an unknown URI, and no later template is tried.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable
from typing import Any, TypeVar

from mcp.server.mcpserver.hints import is_context_annotation, resolve_hints
from mcp.server.mcpserver.resources.base import FunctionResource, ReadResourceContents, Resource
from mcp.server.mcpserver.resources.security import (
    DEFAULT_RESOURCE_SECURITY,
    ResourceSecurity,
    ResourceSecurityError,
)
from mcp.server.mcpserver.resources.templates import ResourceTemplate
from mcp.shared.exceptions import MCPError, ResourceError, ResourceNotFoundError, UnexpectedResourceError
from mcp.shared.uri_template import UriTemplate
from mcp.types import Annotations, Icon
from mcp.types import Resource as WireResource
from mcp.types import ResourceTemplate as WireResourceTemplate

__all__ = ["ResourceManager"]

logger = logging.getLogger("mcp.server.resources")
_duplicates_logger = logging.getLogger("mcp.server.mcpserver.resources.resource_manager")  # the official name, quoted by the docs

_F = TypeVar("_F", bound=Callable[..., Any])


class ResourceManager:
    """Static resources (by URI) and resource templates (by template string), in registration order."""

    def __init__(
        self,
        warn_on_duplicate_resources: bool = True,
        resource_security: ResourceSecurity = DEFAULT_RESOURCE_SECURITY,
        *,
        resources: list[Resource] | None = None,
    ) -> None:
        self.warn_on_duplicate_resources = warn_on_duplicate_resources
        self.resource_security = resource_security
        self._resources: dict[str, Resource] = {}
        self._templates: dict[str, ResourceTemplate] = {}
        for resource in resources or ():
            self.add_resource(resource)

    # -- registration ----------------------------------------------------------------------------

    def add_resource(self, resource: Resource) -> Resource:
        """Register a static resource. A second one with the same URI is ignored (the first wins,
        with a warning unless disabled); returns the registered resource."""
        existing = self._resources.get(resource.uri)
        if existing is not None:
            if self.warn_on_duplicate_resources:
                _duplicates_logger.warning("Resource already exists: %s", resource.uri)
            return existing
        self._resources[resource.uri] = resource
        return resource

    def add_template(
        self,
        fn: Callable[..., Any] | ResourceTemplate,
        uri_template: str | None = None,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        mime_type: str | None = None,
        icons: list[Icon] | None = None,
        annotations: Annotations | None = None,
        meta: dict[str, Any] | None = None,
        security: ResourceSecurity | None = DEFAULT_RESOURCE_SECURITY,
    ) -> ResourceTemplate:
        """Register a resource template: a built `ResourceTemplate`, or a function and its URI
        template (as `ResourceTemplate.from_function`). A second one with the same template string
        is ignored (the first wins, with a warning unless disabled); returns the registered one."""
        if isinstance(fn, ResourceTemplate):
            template = fn
        else:
            if uri_template is None:
                raise TypeError("add_template(fn, uri_template, ...) needs the URI template")
            template = ResourceTemplate.from_function(
                fn, uri_template, name=name, title=title, description=description, mime_type=mime_type,
                icons=icons, annotations=annotations, meta=meta, security=security,
            )
        existing = self._templates.get(template.uri_template)
        if existing is not None:
            if self.warn_on_duplicate_resources:
                _duplicates_logger.warning("Resource already exists: %s", template.uri_template)
            return existing
        self._templates[template.uri_template] = template
        return template

    def resource_decorator_target(
        self,
        fn: _F,
        uri: str,
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        mime_type: str | None = None,
        icons: list[Icon] | None = None,
        annotations: Annotations | None = None,
        meta: dict[str, Any] | None = None,
        security: ResourceSecurity | None = None,
    ) -> _F:
        """What `@mcp.resource(uri, ...)` does to `fn`; returns `fn` unchanged.

        A URI without variables registers a static `FunctionResource` (the function may take no
        parameters, not even a Context); a URI with variables registers a `ResourceTemplate`
        (variables must equal the parameters, Context aside; `security=None` means the manager's
        policy). Raises `InvalidUriTemplate` for a malformed URI and `ValueError` for a mismatch.
        """
        template = UriTemplate(uri)
        if template.variable_names:
            self.add_template(
                ResourceTemplate.from_function(
                    fn, uri, name=name, title=title, description=description, mime_type=mime_type,
                    icons=icons, annotations=annotations, meta=meta, security=security,
                )
            )
            return fn
        _check_static_signature(fn, uri)
        self.add_resource(
            FunctionResource.from_function(
                fn, uri, name=name, title=title, description=description, mime_type=mime_type,
                icons=icons, annotations=annotations, meta=meta,
            )
        )
        return fn

    def remove_resource(self, uri: str) -> None:
        """Unregister the static resource with this URI, or else the template with this template
        string; `ValueError` if there is neither."""
        if self._resources.pop(uri, None) is None and self._templates.pop(uri, None) is None:
            raise ValueError(f"Unknown resource: {uri}")

    # -- lookup ------------------------------------------------------------------------------------

    def list_resources(self) -> list[WireResource]:
        """The static resources as listed by `resources/list`, in registration order."""
        return [resource.to_wire() for resource in self._resources.values()]

    def list_templates(self) -> list[WireResourceTemplate]:
        """The templates as listed by `resources/templates/list`, in registration order."""
        return [template.to_wire() for template in self._templates.values()]

    async def get_resource(self, uri: Any, context: Any = None) -> Any:
        """The resource at `uri`: the static one registered under it, else one made by the first
        matching template (a `TextResource` or `BinaryResource` holding what the function
        returned, or the `InputRequiredResult` it answered with). Raises `ResourceNotFoundError`."""
        uri = str(uri)
        resource = self._resources.get(uri)
        if resource is not None:
            return resource
        for template in self._templates.values():
            params = template.parsed_template.match(uri)
            if params is None:
                continue
            try:
                template.policy(self.resource_security).validate(params, template.uri_template)
            except ResourceSecurityError:
                raise ResourceNotFoundError(f"Unknown resource: {uri}") from None
            return await template.create_resource(uri, params, context)
        raise ResourceNotFoundError(f"Unknown resource: {uri}")

    def get_static(self, uri: str) -> Resource | None:
        """The static resource registered under `uri`, if any (no template is tried)."""
        return self._resources.get(uri)

    def get_template(self, uri_template: str) -> ResourceTemplate | None:
        """The template registered under this template string, if any."""
        return self._templates.get(uri_template)

    @property
    def resources(self) -> list[Resource]:
        """The registered static resources, in order."""
        return list(self._resources.values())

    @property
    def templates(self) -> list[ResourceTemplate]:
        """The registered templates, in order."""
        return list(self._templates.values())

    def plain_sync_reader(self, uri: str) -> Callable[[], list[ReadResourceContents]] | None:
        """`read` as one synchronous job, for a static resource whose function is `plain_sync`
        (else None); raises as `read` does."""
        resource = self._resources.get(uri)
        if not isinstance(resource, FunctionResource) or not resource.plain_sync:
            return None
        return lambda: [ReadResourceContents(_guarded_sync(uri, resource.read_sync), resource.mime_type, resource.meta)]

    async def read(self, uri: str, context: Any = None) -> Any:
        """Read `uri` for `resources/read`: `list[ReadResourceContents]` (or, when a template
        function returns one, its `InputRequiredResult` unchanged).

        Raises `ResourceNotFoundError("Unknown resource: <uri>")` when nothing matches or a value
        fails the security policy; the resource's own `ResourceError`s and `MCPError`s unchanged;
        `UnexpectedResourceError` ("Error reading resource <uri>" for a static resource, "Error
        creating resource from template <uri>" for a template) for anything else it raised.
        """
        uri = str(uri)
        resource = self._resources.get(uri)
        if resource is not None:
            content = await _guarded(resource.read(), f"Error reading resource {uri}")
            return [ReadResourceContents(content, resource.mime_type, resource.meta)]
        for template in self._templates.values():
            params = template.parsed_template.match(uri)
            if params is None:
                continue
            try:
                template.policy(self.resource_security).validate(params, template.uri_template)
            except ResourceSecurityError as exc:
                logger.info("Rejected resource URI %r (template %r): %s", uri, template.uri_template, exc)
                raise ResourceNotFoundError(f"Unknown resource: {uri}") from None
            value = await _guarded(template.call(params, context), f"Error creating resource from template {uri}")
            if not isinstance(value, (str, bytes)):
                return value  # InputRequiredResult
            return [ReadResourceContents(value, template.mime_type, template.meta)]
        raise ResourceNotFoundError(f"Unknown resource: {uri}")


def _guarded_sync(uri: str, read: Callable[[], Any]) -> Any:
    """`_guarded` for a static resource read in the calling thread."""
    try:
        return read()
    except (ResourceError, MCPError):
        raise
    except Exception as exc:
        raise UnexpectedResourceError(f"Error reading resource {uri}") from exc


async def _guarded(reading: Any, failure: str) -> Any:
    """Await a read; its own `ResourceError`s and `MCPError`s pass through, anything else (pydantic's
    ValidationError for an unconvertible value included) becomes `UnexpectedResourceError(failure)`
    naming only the URI, the original kept as its cause."""
    try:
        return await reading
    except (ResourceError, MCPError):
        raise
    except Exception as exc:
        raise UnexpectedResourceError(failure) from exc


def _check_static_signature(fn: Callable[..., Any], uri: str) -> None:
    try:
        parameters = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return
    if not parameters:
        return
    hints = resolve_hints(fn)
    others = {p for p in parameters if not is_context_annotation(hints.get(p))}
    if others:  # the official wording, as for the Context case below
        raise ValueError(
            f"Resource {uri!r} has no URI template variables, but the handler declares parameters {others}. "
            "Add matching {...} variables to the URI or remove the parameters."
        )
    raise ValueError(
        f"Resource {uri!r} has no URI template variables, but the handler declares a Context parameter. "
        "Context injection for static resources is not supported. "
        "Add a template variable to the URI or remove the Context parameter."
    )
