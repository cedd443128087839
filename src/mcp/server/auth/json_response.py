"""`PydanticJSONResponse`: a Starlette JSON response whose content is a pydantic model.

The stock `JSONResponse` uses `json.dumps`, which cannot write URL types; this one uses the model's
own JSON serializer and leaves out unset (`None`) members, as OAuth documents omit absent fields.
"""

from __future__ import annotations

from typing import Any

from starlette.responses import JSONResponse


class PydanticJSONResponse(JSONResponse):
    """A JSON response rendered with `content.model_dump_json(exclude_none=True)`."""

    def render(self, content: Any) -> bytes:
        return content.model_dump_json(exclude_none=True).encode("utf-8")


__all__ = ["PydanticJSONResponse"]
