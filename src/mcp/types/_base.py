"""The base of every wire model: snake_case attributes, the spec's camelCase names on the wire.

Models are built lazily (`defer_build`): importing a types module defines classes but builds no
validator or serializer until the first use, which keeps `import mcp.types` cheap.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

Meta = dict[str, Any]

DEFERRED = ConfigDict(defer_build=True)
"""Config for module-level `TypeAdapter`s: like the models, they build on first use."""


class MCPModel(BaseModel):
    """Base of the protocol's data types.

    Construction accepts either spelling (`structured_content=` or `structuredContent=`);
    unknown fields are ignored; `model_dump()` prints snake_case keys while `to_wire()` prints the
    spec's names and drops unset optional fields.
    """

    model_config = ConfigDict(
        alias_generator=to_camel,
        validate_by_name=True,
        validate_by_alias=True,
        extra="ignore",
        defer_build=True,
    )

    def to_wire(self) -> dict[str, Any]:
        """The JSON object this model is on the wire."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)


class OpenMCPModel(MCPModel):
    """A model whose unknown fields are kept and passed through (the subscription filter, which
    extensions extend)."""

    model_config = ConfigDict(extra="allow")


def meta_field() -> Any:
    """The `_meta` member, spelled `meta` in Python."""
    return Field(default=None, alias="_meta")


class _ModelDump:
    """Stands in for the serializer of a model class that overrides `model_dump`."""

    @staticmethod
    def to_python(value: Any, **options: Any) -> Any:
        return value.model_dump(**options)


def model_serializer(cls: type[BaseModel]) -> Any:
    """What dumps instances of `cls` (`.to_python(value, **model_dump options)`): its pydantic
    serializer, called directly (`model_dump`'s Python wrapper costs more than the dump of a small
    model), or the class's own `model_dump` when it overrides it."""
    if cls.model_dump is not BaseModel.model_dump:  # an override is honoured
        return _ModelDump()
    return cls.__pydantic_serializer__
