"""Elicitation results as handlers see them, and the flat-schema rule for form elicitation."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Generic, Literal, cast

from pydantic import BaseModel
from typing_extensions import TypeAliasType, TypeVar

if TYPE_CHECKING:
    from mcp.server.session import ServerSession

ElicitSchemaModelT = TypeVar("ElicitSchemaModelT", bound=BaseModel)

_PRIMITIVES = {"string", "number", "integer", "boolean"}


class AcceptedElicitation(BaseModel, Generic[ElicitSchemaModelT]):
    """The user submitted the form; `data` is validated against the requested schema."""

    action: Literal["accept"] = "accept"
    data: ElicitSchemaModelT


class DeclinedElicitation(BaseModel):
    action: Literal["decline"] = "decline"


class CancelledElicitation(BaseModel):
    action: Literal["cancel"] = "cancel"


ElicitationResult = TypeAliasType(
    "ElicitationResult",
    AcceptedElicitation[ElicitSchemaModelT] | DeclinedElicitation | CancelledElicitation,
    type_params=(ElicitSchemaModelT,),
)
"""`ElicitationResult[Model]`: every outcome of a form elicitation; annotate with it to receive the
decline and cancel outcomes too, and branch on `.action`."""


class AcceptedUrlElicitation(BaseModel):
    """The user agreed to open the URL of a URL-mode elicitation."""

    action: Literal["accept"] = "accept"


UrlElicitationResult = AcceptedUrlElicitation | DeclinedElicitation | CancelledElicitation
"""Every outcome of a URL-mode elicitation."""


def is_elicitation_result(annotation: Any) -> bool:
    """Whether `annotation` is `ElicitationResult[...]` (or the bare alias)."""
    return annotation is ElicitationResult or getattr(annotation, "__origin__", None) is ElicitationResult


def render_elicitation_schema(schema: type[BaseModel]) -> dict[str, Any]:
    """The `requestedSchema` for a model; raises `TypeError` (before anything is sent) unless every
    field is a primitive (string, number, integer, boolean, or an enum/array of strings)."""
    json_schema = schema.model_json_schema()
    defs = json_schema.get("$defs", {})
    properties: dict[str, Any] = {}
    for name, prop in json_schema.get("properties", {}).items():
        resolved = _resolve(prop, defs)
        if not _is_primitive(resolved):
            raise TypeError(
                f"Elicitation schema field {name!r} rendered as {prop!r}, "
                "which is not a valid PrimitiveSchemaDefinition"
            )
        properties[name] = resolved
    out: dict[str, Any] = {"type": "object", "properties": properties}
    if json_schema.get("required"):
        out["required"] = json_schema["required"]
    if "title" in json_schema:
        out["title"] = json_schema["title"]
    return out


form_schema = render_elicitation_schema


def _resolve(prop: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    ref = prop.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        merged = {**defs.get(ref[8:], {}), **{k: v for k, v in prop.items() if k != "$ref"}}
        return merged
    any_of = prop.get("anyOf")
    if isinstance(any_of, list):
        options = cast("list[dict[str, Any]]", any_of)
        non_null = [p for p in options if p.get("type") != "null"]
        if len(non_null) == 1:
            rest = {k: v for k, v in prop.items() if k != "anyOf"}
            return {**_resolve(non_null[0], defs), **rest}
    return prop


def _is_primitive(prop: dict[str, Any]) -> bool:
    kind = prop.get("type")
    if kind in _PRIMITIVES:
        return True
    if kind == "array":
        items = prop.get("items", {})
        if not isinstance(items, dict):
            return False
        spec = cast("dict[str, Any]", items)
        return spec.get("type") == "string" or "anyOf" in spec or "enum" in spec
    return "enum" in prop or "oneOf" in prop


def to_result(schema: type[BaseModel], result: dict[str, Any]) -> Any:
    """Turn an `ElicitResult` wire object into the handler-facing result."""
    action = result.get("action")
    if action == "accept":
        return AcceptedElicitation[schema](data=schema.model_validate(result.get("content") or {}))  # type: ignore[valid-type]
    if action == "decline":
        return DeclinedElicitation()
    return CancelledElicitation()


class InvalidElicitationAnswer(ValueError):
    """An accepted elicitation answer without content, or whose content does not fit the requested
    schema: the client's doing, so a tool that fails on it shows this text (it holds no server data)."""


def validated_result(schema: type[BaseModel], result: dict[str, Any]) -> Any:
    """As `to_result`, for a direct `elicit()` call: an accept without content, or with content that
    does not fit `schema`, is a `ValueError` (the official messages)."""
    if result.get("action") == "accept":
        content = result.get("content")
        if content is None:
            raise InvalidElicitationAnswer("Received an accepted elicitation with no content")
        from pydantic import ValidationError

        try:
            data = schema.model_validate(content)
        except ValidationError as exc:
            raise InvalidElicitationAnswer(
                "Received an accepted elicitation whose content does not match the requested schema"
            ) from exc
        return AcceptedElicitation[schema](data=data)  # type: ignore[valid-type]
    return to_result(schema, result)


async def elicit_with_validation(
    session: ServerSession,
    message: str,
    schema: type[ElicitSchemaModelT],
    related_request_id: Any = None,
) -> Any:
    """Ask the client for form input matching `schema`; the accepted content is validated into it.

    Raises ValueError when the client accepts with no content or content that does not fit."""
    requested = render_elicitation_schema(schema)
    result = await session.elicit_form(message, requested, related_request_id)
    return validated_result(schema, result.model_dump(mode="json"))


async def elicit_url(
    session: ServerSession,
    message: str,
    url: str,
    elicitation_id: str,
    related_request_id: Any = None,
) -> UrlElicitationResult:
    """Send the user to `url` (URL mode, for data that must not pass through the client); the
    result says only whether they agreed to go."""
    result = await session.elicit_url(message, url, elicitation_id, related_request_id)
    if result.action == "accept":
        return AcceptedUrlElicitation()
    if result.action == "decline":
        return DeclinedElicitation()
    return CancelledElicitation()
