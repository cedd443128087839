"""Content blocks: what tools return, prompts carry, and sampling exchanges."""

from __future__ import annotations

from typing import Annotated, Any, Literal, cast

from pydantic import Discriminator, Field, Tag

from mcp.types._base import MCPModel, Meta, meta_field
from mcp.types._common import Annotations, BaseMetadata, Icon


class TextContent(MCPModel):
    type: Literal["text"] = "text"
    text: str
    annotations: Annotations | None = None
    meta: Meta | None = meta_field()


class ImageContent(MCPModel):
    type: Literal["image"] = "image"
    data: str
    mime_type: str
    annotations: Annotations | None = None
    meta: Meta | None = meta_field()


class AudioContent(MCPModel):
    type: Literal["audio"] = "audio"
    data: str
    mime_type: str
    annotations: Annotations | None = None
    meta: Meta | None = meta_field()


class ResourceContents(MCPModel):
    uri: str
    mime_type: str | None = None
    meta: Meta | None = meta_field()


class TextResourceContents(ResourceContents):
    text: str


class BlobResourceContents(ResourceContents):
    blob: str


class EmbeddedResource(MCPModel):
    type: Literal["resource"] = "resource"
    resource: TextResourceContents | BlobResourceContents
    annotations: Annotations | None = None
    meta: Meta | None = meta_field()


class Resource(BaseMetadata):
    """A resource a server can read, as `resources/list` describes it.

    Defined beside the content blocks because a `ResourceLink` block is one (plus its `type`).
    """

    uri: str
    description: str | None = None
    mime_type: str | None = None
    size: int | None = None
    """Bytes of the raw content (before base64), if known."""
    icons: list[Icon] | None = None
    annotations: Annotations | None = None
    meta: Meta | None = meta_field()


class ResourceLink(Resource):
    """A tool result's pointer to a resource (not necessarily one `resources/list` shows)."""

    type: Literal["resource_link"] = "resource_link"


ContentBlock = TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource
"""Any content block a tool result or prompt message may carry.

A plain union, so `isinstance(block, ContentBlock)` works; a block validated without its `type`
is the member it fits (text when it has `text`).
"""

Content = ContentBlock


def _block_kind(value: Any) -> str:
    """The `type` of a content block being validated; for a wire block without one, the member it
    fits as the plain union would pick it (text, an embedded resource, a link, else image data)."""
    if isinstance(value, dict):
        block = cast("dict[str, Any]", value)
        kind = block.get("type")
        if isinstance(kind, str):
            return kind
        for key, fits in _UNTYPED_BLOCK_FITS:
            if key in block:
                return fits
        return "text"
    kind = getattr(value, "type", None)
    return kind if isinstance(kind, str) else "text"


_UNTYPED_BLOCK_FITS = (("text", "text"), ("resource", "resource"), ("uri", "resource_link"), ("data", "image"))

ContentBlockField = Annotated[
    Annotated[TextContent, Tag("text")]
    | Annotated[ImageContent, Tag("image")]
    | Annotated[AudioContent, Tag("audio")]
    | Annotated[ResourceLink, Tag("resource_link")]
    | Annotated[EmbeddedResource, Tag("resource")],
    Discriminator(_block_kind),
]
"""`ContentBlock` as fields declare it: validated by its `type` (one member tried, not five in
turn: wire results parse about twice as fast), with the plain union's pick for a block without one."""


class ToolUseContent(MCPModel):
    type: Literal["tool_use"] = "tool_use"
    id: str
    name: str
    input: dict[str, Any]
    meta: Meta | None = meta_field()


class ToolResultContent(MCPModel):
    type: Literal["tool_result"] = "tool_result"
    tool_use_id: str
    content: list[ContentBlockField] = Field(default_factory=list)  # pyright: ignore[reportUnknownVariableType]
    structured_content: Any = None
    """Any JSON value on 2026-07-28; a JSON object on 2025-11-25."""
    is_error: bool | None = None
    meta: Meta | None = meta_field()
