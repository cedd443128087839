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
    """A model whose unknown fields are kept and passed through (results, capabilities)."""

    model_config = ConfigDict(extra="allow")


def meta_field() -> Any:
    """The `_meta` member, spelled `meta` in Python."""
    return Field(default=None, alias="_meta")
