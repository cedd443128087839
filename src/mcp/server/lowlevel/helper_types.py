"""`ReadResourceContents`: one piece of a read resource's content, before it becomes wire contents."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(slots=True)
class ReadResourceContents:
    """One piece of a read resource's content (text or bytes), with its MIME type and `_meta`."""

    content: str | bytes
    mime_type: str | None = None
    meta: dict[str, Any] | None = None
