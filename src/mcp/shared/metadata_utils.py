"""Display names for tools, resources, prompts and implementations."""

from __future__ import annotations

from typing import Any


def get_display_name(obj: Any) -> str:
    """`title`, else (for tools) `annotations.title`, else `name`."""
    title = getattr(obj, "title", None)
    if title:
        return title
    annotations = getattr(obj, "annotations", None)
    annotated = getattr(annotations, "title", None) if annotations is not None else None
    if annotated:
        return annotated
    return getattr(obj, "name", "")
