"""`Image` and `Audio`: media helpers a handler can return; they become content blocks, never
structured output."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

_IMAGE_TYPES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
                ".webp": "image/webp", ".svg": "image/svg+xml", ".bmp": "image/bmp"}
_AUDIO_TYPES = {".wav": "audio/wav", ".mp3": "audio/mpeg", ".ogg": "audio/ogg", ".flac": "audio/flac",
                ".m4a": "audio/mp4", ".aac": "audio/aac", ".webm": "audio/webm"}


class _Media:
    _kind = "image"
    _table: dict[str, str] = _IMAGE_TYPES
    _default = "image/png"

    def __init__(self, path: str | Path | None = None, data: bytes | None = None, format: str | None = None) -> None:
        if (path is None) == (data is None):
            raise ValueError("Either path or data must be provided, but not both")
        self.path = Path(path) if path is not None else None
        self.data = data
        self._format = format
        self._mime_type = self._mime()

    def _mime(self) -> str:
        if self._format:
            return f"{self._kind}/{self._format.lower()}"
        if self.path is not None:
            suffix = self.path.suffix.lower()
            # An unknown suffix is not claimed to be a PNG/WAV: the client is told it is opaque.
            return self._table.get(suffix, "application/octet-stream")
        return self._default  # raw bytes without format=: the documented default

    @property
    def mime_type(self) -> str:
        return self._mime_type

    def _b64(self) -> str:
        raw = self.data if self.data is not None else self.path.read_bytes()  # type: ignore[union-attr]
        return base64.b64encode(raw).decode()

    def to_content_block(self) -> Any:
        raise NotImplementedError


class Image(_Media):
    """An image from a file path or raw bytes (+ format, e.g. "png")."""

    def to_image_content(self) -> Any:
        from mcp.types import ImageContent

        return ImageContent(data=self._b64(), mime_type=self._mime_type)

    to_content_block = to_image_content


class Audio(_Media):
    """An audio clip from a file path or raw bytes (+ format, e.g. "wav")."""

    _kind = "audio"
    _table = _AUDIO_TYPES
    _default = "audio/wav"

    def to_audio_content(self) -> Any:
        from mcp.types import AudioContent

        return AudioContent(data=self._b64(), mime_type=self._mime_type)

    to_content_block = to_audio_content
