"""The restricted JSON Schema an elicitation form may ask for: flat primitive properties only.

`ElicitRequestFormParams.requested_schema` stays a plain dict (it is handed to JSON Schema
validators as is); these models describe and validate its `properties` values when wanted.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, cast

from pydantic import Discriminator, Tag

from mcp.types._base import MCPModel

__all__ = [
    "BooleanSchema",
    "EnumOption",
    "EnumSchema",
    "LegacyTitledEnumSchema",
    "MultiSelectEnumSchema",
    "NumberSchema",
    "PrimitiveSchemaDefinition",
    "SingleSelectEnumSchema",
    "StringSchema",
    "TitledEnumItems",
    "TitledMultiSelectEnumSchema",
    "TitledSingleSelectEnumSchema",
    "UntitledEnumItems",
    "UntitledMultiSelectEnumSchema",
    "UntitledSingleSelectEnumSchema",
]


class StringSchema(MCPModel):
    type: Literal["string"] = "string"
    title: str | None = None
    description: str | None = None
    min_length: int | None = None
    max_length: int | None = None
    format: Literal["email", "uri", "date", "date-time"] | None = None
    default: str | None = None


class NumberSchema(MCPModel):
    type: Literal["number", "integer"] = "number"
    title: str | None = None
    description: str | None = None
    minimum: int | float | None = None
    maximum: int | float | None = None
    default: int | float | None = None


class BooleanSchema(MCPModel):
    type: Literal["boolean"] = "boolean"
    title: str | None = None
    description: str | None = None
    default: bool | None = None


class EnumOption(MCPModel):
    """One titled choice: the value (`const`) and its display title."""

    const: str
    title: str


class UntitledSingleSelectEnumSchema(MCPModel):
    type: Literal["string"] = "string"
    title: str | None = None
    description: str | None = None
    enum: list[str]
    default: str | None = None


class TitledSingleSelectEnumSchema(MCPModel):
    type: Literal["string"] = "string"
    title: str | None = None
    description: str | None = None
    one_of: list[EnumOption]
    default: str | None = None


class LegacyTitledEnumSchema(MCPModel):
    """2025-06-18's enum schema: display names in a parallel `enumNames` list (deprecated)."""

    type: Literal["string"] = "string"
    title: str | None = None
    description: str | None = None
    enum: list[str]
    enum_names: list[str] | None = None
    default: str | None = None


class UntitledEnumItems(MCPModel):
    type: Literal["string"] = "string"
    enum: list[str]


class TitledEnumItems(MCPModel):
    any_of: list[EnumOption]


class UntitledMultiSelectEnumSchema(MCPModel):
    type: Literal["array"] = "array"
    title: str | None = None
    description: str | None = None
    min_items: int | None = None
    max_items: int | None = None
    items: UntitledEnumItems
    default: list[str] | None = None


class TitledMultiSelectEnumSchema(MCPModel):
    type: Literal["array"] = "array"
    title: str | None = None
    description: str | None = None
    min_items: int | None = None
    max_items: int | None = None
    items: TitledEnumItems
    default: list[str] | None = None


SingleSelectEnumSchema = UntitledSingleSelectEnumSchema | TitledSingleSelectEnumSchema
MultiSelectEnumSchema = UntitledMultiSelectEnumSchema | TitledMultiSelectEnumSchema
EnumSchema = (
    UntitledSingleSelectEnumSchema
    | TitledSingleSelectEnumSchema
    | UntitledMultiSelectEnumSchema
    | TitledMultiSelectEnumSchema
    | LegacyTitledEnumSchema
)


def _schema_kind(raw: Any) -> str | None:
    if not isinstance(raw, dict):
        return _KIND_OF_CLASS.get(type(cast(object, raw)))
    value = cast("dict[str, Any]", raw)
    kind = value.get("type")
    if kind == "string":
        if "oneOf" in value or "one_of" in value:
            return "titled-single"
        if "enum" in value:
            return "legacy" if "enumNames" in value or "enum_names" in value else "untitled-single"
        return "string"
    if kind == "array":
        items: Any = value.get("items")
        titled = isinstance(items, TitledEnumItems) or (
            isinstance(items, dict) and ("anyOf" in items or "any_of" in items)
        )
        return "titled-multi" if titled else "untitled-multi"
    if kind in ("number", "integer"):
        return "number"
    return "boolean" if kind == "boolean" else None


PrimitiveSchemaDefinition = Annotated[
    Annotated[StringSchema, Tag("string")]
    | Annotated[NumberSchema, Tag("number")]
    | Annotated[BooleanSchema, Tag("boolean")]
    | Annotated[UntitledSingleSelectEnumSchema, Tag("untitled-single")]
    | Annotated[TitledSingleSelectEnumSchema, Tag("titled-single")]
    | Annotated[UntitledMultiSelectEnumSchema, Tag("untitled-multi")]
    | Annotated[TitledMultiSelectEnumSchema, Tag("titled-multi")]
    | Annotated[LegacyTitledEnumSchema, Tag("legacy")],
    Discriminator(_schema_kind),
]
"""One property of a form schema, told apart by `type` and its enum keys."""

_KIND_OF_CLASS: dict[type[Any], str] = {
    StringSchema: "string",
    NumberSchema: "number",
    BooleanSchema: "boolean",
    UntitledSingleSelectEnumSchema: "untitled-single",
    TitledSingleSelectEnumSchema: "titled-single",
    UntitledMultiSelectEnumSchema: "untitled-multi",
    TitledMultiSelectEnumSchema: "titled-multi",
    LegacyTitledEnumSchema: "legacy",
}
