"""Elicitation results as handlers see them, and the flat-schema rule for form elicitation."""

from __future__ import annotations

from typing import Any, Generic, Literal, Union, cast

from pydantic import BaseModel
from typing_extensions import TypeVar

T = TypeVar("T", default=Any)

_PRIMITIVES = {"string", "number", "integer", "boolean"}


class AcceptedElicitation(BaseModel, Generic[T]):
    """The user submitted the form; `data` is validated against the requested schema."""

    action: Literal["accept"] = "accept"
    data: T


class DeclinedElicitation(BaseModel):
    action: Literal["decline"] = "decline"


class CancelledElicitation(BaseModel):
    action: Literal["cancel"] = "cancel"


class ElicitationResult:
    """`ElicitationResult[Model]` is `AcceptedElicitation[Model] | DeclinedElicitation |
    CancelledElicitation`: annotate with it to receive every outcome and branch on it."""

    def __class_getitem__(cls, item: Any) -> Any:
        return Union[AcceptedElicitation[item], DeclinedElicitation, CancelledElicitation]  # noqa: UP007  # pyright: ignore


def form_schema(schema: type[BaseModel]) -> dict[str, Any]:
    """The `requestedSchema` for a model; raises `TypeError` (before anything is sent) unless every
    field is a primitive (string, number, integer, boolean, or an enum/array of strings)."""
    json_schema = schema.model_json_schema()
    defs = json_schema.get("$defs", {})
    properties: dict[str, Any] = {}
    for name, prop in json_schema.get("properties", {}).items():
        resolved = _resolve(prop, defs)
        if not _is_primitive(resolved):
            raise TypeError(
                f"Elicitation schema field {name!r} of {schema.__name__} must be a primitive "
                "(str, int, float, bool, an enum or a list of enum strings); nested objects are not allowed"
            )
        properties[name] = resolved
    out: dict[str, Any] = {"type": "object", "properties": properties}
    if json_schema.get("required"):
        out["required"] = json_schema["required"]
    return out


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
