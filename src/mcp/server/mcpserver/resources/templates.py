"""Resource templates: one function serving every URI that matches an RFC 6570 template.

Built once by `ResourceTemplate.from_function`: the template is parsed, its variables are
checked against the function's parameters (a `Context` parameter aside), and an arguments model
converts the extracted strings to the parameter types. On read, the URI is matched, the values
pass the path-safety policy, and the function runs (sync functions on a worker thread).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator

from mcp._engine.workers import run_sync
from mcp.server.mcpserver.resources.base import BinaryResource, TextResource, content_from_value
from mcp.server.mcpserver.resources.security import (
    DEFAULT_RESOURCE_SECURITY,
    ResourceSecurity,
    ResourceSecurityError,
)
from mcp.server.mcpserver.signature import Signature, inspect_function
from mcp.shared.exceptions import MCPError, ResourceError, ResourceNotFoundError, UnexpectedResourceError
from mcp.shared.uri_template import UriTemplate
from mcp.types import Annotations, Icon
from mcp.types import ResourceTemplate as WireResourceTemplate

__all__ = ["DEFAULT_RESOURCE_SECURITY", "ResourceSecurity", "ResourceSecurityError", "ResourceTemplate"]


class ResourceTemplate(BaseModel):
    """A templated resource: its listing (`to_wire`) and its compiled read plan."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    uri_template: str = Field(description="URI template with parameters (e.g. weather://{city}/current)")
    name: str = Field(description="Name of the resource")
    title: str | None = Field(default=None, description="Human-readable title of the resource")
    description: str | None = Field(default=None, description="Description of what the resource does")
    mime_type: str = Field(default="text/plain", description="MIME type of the resource content")
    icons: list[Icon] | None = Field(default=None, description="Optional list of icons for the resource template")
    annotations: Annotations | None = Field(default=None, description="Optional annotations for the resource template")
    meta: dict[str, Any] | None = Field(default=None, description="Optional metadata for this resource template")
    fn: Callable[..., Any] = Field(exclude=True)
    parameters: dict[str, Any] = Field(default_factory=dict[str, Any],
                                       description="JSON schema for function parameters")
    context_kwarg: str | None = Field(None, description="Name of the kwarg that should receive context")
    parsed_template: UriTemplate = Field(exclude=True, description="Parsed RFC 6570 template")
    security: ResourceSecurity | None = Field(
        default=None, exclude=True,
        description="Path-safety policy for extracted parameters; None means the manager's (server-wide) one")
    _signature: Signature | None = PrivateAttr(default=None)
    _validate: Callable[[Any], Any] | None = PrivateAttr(default=None)

    @field_validator("mime_type", mode="before")
    @classmethod
    def _default_mime_type(cls, value: Any) -> Any:
        return "text/plain" if value is None else value

    @property
    def signature(self) -> Signature:
        """The compiled signature of `fn` (inspected on first use when built from fields)."""
        sig = self._signature
        if sig is None:
            sig = self._signature = inspect_function(self.fn, self.name)
        return sig

    @property
    def template(self) -> UriTemplate:
        """The parsed template (`parsed_template`)."""
        return self.parsed_template

    @classmethod
    def from_function(
        cls,
        fn: Callable[..., Any],
        uri_template: str,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        mime_type: str | None = None,
        icons: list[Icon] | None = None,
        annotations: Annotations | None = None,
        meta: dict[str, Any] | None = None,
        context_kwarg: str | None = None,
        security: ResourceSecurity | None = DEFAULT_RESOURCE_SECURITY,
    ) -> ResourceTemplate:
        """Build a template from `fn` (`context_kwarg` names its Context parameter when the
        annotation does not; `security=None` defers to the manager's policy). Raises `InvalidUriTemplate` for a malformed template and
        `ValueError` when the URI variables and the function parameters (Context excluded) differ,
        or when a parameter bound to an optional query variable has no default."""
        template = UriTemplate(uri_template)
        fn_name = name or getattr(fn, "__name__", None) or type(fn).__name__
        signature = inspect_function(fn, fn_name, skip=frozenset((context_kwarg,)) if context_kwarg else frozenset())
        uri_params = set(template.variable_names)
        fn_params = set(_parameter_names(signature))
        if uri_params != fn_params:
            raise ValueError(f"Mismatch between URI parameters {uri_params} and function parameters {fn_params}")
        fields = signature.arguments_model.model_fields
        aliases = {param: field for field, param in signature.renamed}
        missing_defaults = sorted(
            variable for variable in template.query_variable_names if fields[aliases.get(variable, variable)].is_required()
        )
        if missing_defaults:  # the official wording, which users match on
            raise ValueError(
                f"Resource {uri_template!r}: query parameter(s) {missing_defaults} have no default value. "
                "A client may omit a {?...}/{&...} query parameter, so the matching handler parameter "
                "must declare a default."
            )
        if fn_name == "<lambda>":
            raise ValueError("You must provide a name for lambda functions")
        built = cls(
            fn=fn,
            uri_template=uri_template,
            name=fn_name,
            parsed_template=template,
            parameters=signature.input_schema(),
            context_kwarg=context_kwarg or signature.context_param,
            title=title,
            description=description if description is not None else (inspect.getdoc(fn) or ""),
            mime_type=mime_type or "text/plain",
            icons=icons,
            annotations=annotations,
            meta=meta,
            security=security,
        )
        built._signature = signature
        return built

    def match(self, uri: str) -> dict[str, str | list[str]] | None:
        """The raw (decoded, unconverted, unchecked) variable values, or `None`."""
        return self.parsed_template.match(uri)

    def matches(self, uri: str, security: ResourceSecurity | None = None) -> dict[str, str | list[str]] | None:
        """The variable values if `uri` matches and every value passes the security policy (this
        template's own, else `security`, else the default), else `None`."""
        params = self.parsed_template.match(uri)
        if params is None:
            return None
        return params if self.policy(security).is_safe(params) else None

    def policy(self, default: ResourceSecurity | None = None) -> ResourceSecurity:
        """The security policy in force: this template's own, else `default`, else the default one."""
        return self.security or default or DEFAULT_RESOURCE_SECURITY

    async def read(self, uri: str, context: Any = None, *, security: ResourceSecurity | None = None) -> Any:
        """Read `uri`: `str` or `bytes` content (or the `InputRequiredResult` the function returned).
        Raises `ResourceNotFoundError` if `uri` does not match or a value is rejected."""
        params = self.matches(uri, security)
        if params is None:
            raise ResourceNotFoundError(f"Unknown resource: {uri}")
        return await self.call(params, context)

    async def call(self, params: dict[str, str | list[str]], context: Any) -> Any:
        """Convert `params` through the arguments model (raising pydantic's `ValidationError`),
        call the function, and map its return value to content."""
        validate = self._validate
        if validate is None:
            validate = self._validate = self.signature.arguments_model.__pydantic_validator__.validate_python
        validated = validate(params)
        kwargs = dict(validated.__dict__)
        signature = self.signature
        for field_name, param_name in signature.renamed:
            kwargs[param_name] = kwargs.pop(field_name)
        if self.context_kwarg is not None:
            kwargs[self.context_kwarg] = context
        if signature.is_async:
            value = await self.fn(**kwargs)
        else:
            value = await run_sync(functools.partial(self.fn, **kwargs))
            if inspect.isawaitable(value):
                value = await value
        if _is_input_required(value):
            return value
        return content_from_value(value)

    async def create_resource(self, uri: str, params: dict[str, Any], context: Any) -> Any:
        """The resource `uri` names, made by calling the function with `params`: a `TextResource`
        or `BinaryResource` holding what it returned (or the `InputRequiredResult` it answered
        with). Its `ResourceError`s and `MCPError`s propagate; anything else it raises becomes
        `UnexpectedResourceError` naming only the URI (the original is the cause)."""
        try:
            value = await self.call(params, context)
        except (ResourceError, MCPError):
            raise
        except Exception as exc:
            raise UnexpectedResourceError(f"Error creating resource from template {uri}") from exc
        if not isinstance(value, (str, bytes)):
            return value  # InputRequiredResult
        common: dict[str, Any] = {
            "uri": uri, "name": self.name, "title": self.title, "description": self.description,
            "mime_type": self.mime_type, "icons": self.icons, "annotations": self.annotations, "meta": self.meta,
        }
        if isinstance(value, str):
            return TextResource(text=value, **common)
        return BinaryResource(data=value, **common)

    def to_wire(self) -> WireResourceTemplate:
        """The `ResourceTemplate` listed by `resources/templates/list`."""
        return WireResourceTemplate(
            uri_template=self.uri_template,
            name=self.name,
            title=self.title,
            description=self.description,
            mime_type=self.mime_type,
            icons=self.icons,
            annotations=self.annotations,
            meta=self.meta,
        )

    def __repr__(self) -> str:
        return f"ResourceTemplate(uri_template={self.uri_template!r}, name={self.name!r})"


def _parameter_names(signature: Signature) -> list[str]:
    renamed = dict(signature.renamed)
    fields: dict[str, Any] = signature.arguments_model.model_fields
    return [renamed.get(field, field) for field in fields]


def _is_input_required(value: Any) -> bool:
    from mcp.types import InputRequiredResult

    return isinstance(value, InputRequiredResult)
