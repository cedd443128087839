"""Concrete resources: one URI, content produced on read.

`Resource` is the base (a pydantic model that rejects unknown fields); the ready-made kinds are
`TextResource`, `BinaryResource`, `FunctionResource` (what `@mcp.resource("static://uri")`
builds), `FileResource`, `HttpResource` and `DirectoryResource`. Content is `str` (sent as
text) or `bytes` (sent base64-encoded as a blob). The MIME type is whatever was declared,
`text/plain` by default; content is never inspected to guess it.
"""

from __future__ import annotations

import abc
import functools
import inspect
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import pydantic_core
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator, model_validator

from mcp._engine.workers import run_sync
from mcp.server.lowlevel.helper_types import ReadResourceContents
from mcp.server.mcpserver.hints import is_async_callable
from mcp.types import Annotations, Icon
from mcp.types import Resource as WireResource

__all__ = [
    "BinaryResource",
    "DirectoryResource",
    "FileResource",
    "FunctionResource",
    "HttpResource",
    "ReadResourceContents",
    "Resource",
    "TextResource",
    "content_from_value",
]

_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")
_TEXTUAL_APPLICATION = re.compile(r"application/(?:json|xml|javascript|ecmascript|x-yaml|yaml|toml|sql|graphql|x-sh)\b|.*\+(?:json|xml)\b")


def content_from_value(value: Any) -> str | bytes:
    """What a resource function's return value is sent as: `str` as text, `bytes` (and
    `bytearray`/`memoryview`) as a blob, anything else as JSON text (indent 2)."""
    if isinstance(value, str):
        return value
    if isinstance(value, bytes):
        return value
    if isinstance(value, (bytearray, memoryview)):
        return bytes(cast("bytearray", value))
    return pydantic_core.to_json(value, fallback=str, indent=2).decode()


def is_text_mime_type(mime_type: str | None) -> bool:
    """Whether content of this declared type is text (`text/*`, JSON, XML, YAML, ...)."""
    if not mime_type:
        return True
    lowered = mime_type.lower()
    return lowered.startswith("text/") or _TEXTUAL_APPLICATION.match(lowered) is not None


class Resource(BaseModel, abc.ABC):
    """A resource with a fixed URI. Subclasses implement `read()`."""

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True, validate_default=True)

    uri: str = Field(description="The resource's URI")
    name: str | None = Field(default=None, description="Programmatic name; defaults to the URI")
    title: str | None = Field(default=None, description="Human-readable name for display")
    description: str | None = Field(default=None, description="What the resource contains")
    mime_type: str = Field(default="text/plain", description="Declared MIME type of the content")
    icons: list[Icon] | None = Field(default=None, description="Icons for display")
    annotations: Annotations | None = Field(default=None, description="Audience, priority, last modified")
    meta: dict[str, Any] | None = Field(default=None, description="`_meta` sent with the listing and the contents")

    @field_validator("uri", mode="before")
    @classmethod
    def _uri_is_a_uri(cls, value: Any) -> Any:
        text = str(value) if value is not None and not isinstance(value, str) else value
        if isinstance(text, str) and not _SCHEME.match(text):
            raise ValueError(f"Resource URI must start with a scheme (e.g. 'file://', 'data://'): {text!r}")
        return text

    @field_validator("mime_type", mode="before")
    @classmethod
    def _default_mime_type(cls, value: Any) -> Any:
        return cls.model_fields["mime_type"].default if value is None else value

    @model_validator(mode="after")
    def _default_name(self) -> Resource:
        if self.name is None:
            self.name = self.uri
        return self

    @abc.abstractmethod
    async def read(self) -> str | bytes:
        """The content: `str` for text, `bytes` for binary."""

    def to_wire(self) -> WireResource:
        """The `Resource` listed by `resources/list`."""
        return WireResource(
            uri=self.uri,
            name=self.name or self.uri,
            title=self.title,
            description=self.description,
            mime_type=self.mime_type,
            icons=self.icons,
            annotations=self.annotations,
            meta=self.meta,
        )


class TextResource(Resource):
    """Fixed text."""

    text: str = Field(description="The text content")

    async def read(self) -> str:
        return self.text


class BinaryResource(Resource):
    """Fixed bytes, sent base64-encoded."""

    data: bytes = Field(description="The binary content")

    async def read(self) -> bytes:
        return self.data


class FunctionResource(Resource):
    """Content computed by a function with no parameters, called on every read (sync functions on
    a worker thread). `str` → text, `bytes` → blob, anything else → JSON text."""

    fn: Callable[[], Any] = Field(exclude=True)
    _is_async: bool = PrivateAttr(default=False)

    def model_post_init(self, context: Any, /) -> None:
        self._is_async = is_async_callable(self.fn)

    @property
    def plain_sync(self) -> bool:
        """A sync function: a read can run on a worker thread start to finish (`read_sync`)."""
        return not self._is_async

    async def read(self) -> str | bytes:
        if self._is_async:
            value = await self.fn()
        else:
            value = await run_sync(self.fn)
        if inspect.isawaitable(value):
            value = await value
        return content_from_value(value)

    def read_sync(self) -> str | bytes:
        """`read` for a `plain_sync` resource, in the calling (worker) thread."""
        value = self.fn()
        if inspect.isawaitable(value):
            if inspect.iscoroutine(value):
                value.close()
            raise TypeError(f"resource function {self.name!r} is sync but returned an awaitable")
        return content_from_value(value)

    @classmethod
    def from_function(
        cls,
        fn: Callable[[], Any],
        uri: str,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        mime_type: str | None = None,
        icons: list[Icon] | None = None,
        annotations: Annotations | None = None,
        meta: dict[str, Any] | None = None,
    ) -> FunctionResource:
        """Wrap `fn`; the name defaults to the function's name, the description to its docstring."""
        fn_name = name or getattr(fn, "__name__", None) or type(fn).__name__
        if fn_name == "<lambda>":
            raise ValueError("You must provide a name for lambda functions")
        return cls(
            uri=uri,
            name=fn_name,
            title=title,
            description=description if description is not None else (inspect.getdoc(fn) or ""),
            mime_type=mime_type,  # type: ignore[arg-type]  # None -> the default, by the validator
            icons=icons,
            annotations=annotations,
            meta=meta,
            fn=fn,
        )


def _absolute_path(value: Any) -> Path:
    path = Path(value)
    if not path.is_absolute():
        raise ValueError(f"Path must be absolute: {str(path)!r}")
    return path


def default_file_encoding(mime_type: str | None) -> str | None:
    """How a file of this MIME type is decoded by default: the declared `charset`, else
    `utf-8-sig` (UTF-8 tolerating a byte-order mark) for textual types, else None (bytes)."""
    if mime_type is None:
        return "utf-8-sig"
    essence, *params = (part.strip() for part in mime_type.split(";"))
    for param in params:
        key, _, value = param.partition("=")
        if key.strip().lower() == "charset" and value:
            return value.strip().strip('"')
    return "utf-8-sig" if is_text_mime_type(essence) else None


class FileResource(Resource):
    """A file read on every read (on a worker thread). Binary when `is_binary` is set or, if it is
    left unset, when the declared MIME type is not textual."""

    path: Path = Field(description="Absolute path to the file")
    is_binary: bool = Field(default=None, description="Read as bytes instead of text")  # type: ignore[assignment]
    encoding: str | None = Field(
        default_factory=lambda data: default_file_encoding(data.get("mime_type")),
        description="Text encoding the file is decoded with; None serves its bytes as a blob",
    )

    @field_validator("path", mode="before")
    @classmethod
    def _path_is_absolute(cls, value: Any) -> Path:
        return _absolute_path(value)

    @field_validator("is_binary", mode="before")
    @classmethod
    def _binary_from_mime_type(cls, value: Any, info: Any) -> Any:
        if value is None:
            return not is_text_mime_type(info.data.get("mime_type"))
        return value

    @field_validator("encoding")
    @classmethod
    def _encoding_is_a_text_codec(cls, encoding: str | None) -> str | None:
        """An unknown codec (or one that is not a text encoding) fails here, not on the first read."""
        if encoding is not None:
            try:
                b"x".decode(encoding)
            except LookupError as exc:
                raise ValueError(str(exc)) from exc
            except UnicodeError:
                pass
        return encoding

    async def read(self) -> str | bytes:
        if self.encoding is None or (self.is_binary and "is_binary" in self.model_fields_set):
            return await run_sync(self.path.read_bytes)
        return await run_sync(functools.partial(self.path.read_text, encoding=self.encoding))


class HttpResource(Resource):
    """Content fetched from a URL on every read (httpx, imported on first read). Text when the
    declared MIME type is textual, bytes otherwise."""

    url: str = Field(description="The URL to GET")
    mime_type: str = Field(default="application/json", description="Declared MIME type of the content")
    timeout: float = Field(default=30.0, description="Seconds before the fetch is abandoned")

    async def read(self) -> str | bytes:
        import httpx

        async with httpx.AsyncClient(timeout=self.timeout, follow_redirects=True) as client:
            response = await client.get(self.url)
            response.raise_for_status()
        return response.text if is_text_mime_type(self.mime_type) else response.content


class DirectoryResource(Resource):
    """The files of a directory, listed as a JSON array of paths relative to it (sorted)."""

    path: Path = Field(description="Absolute path to the directory")
    recursive: bool = Field(default=False, description="Include files in subdirectories")
    pattern: str | None = Field(default=None, description="Glob pattern filtering the files, e.g. '*.md'")
    mime_type: str = Field(default="application/json", description="Declared MIME type of the listing")

    @field_validator("path", mode="before")
    @classmethod
    def _path_is_absolute(cls, value: Any) -> Path:
        return _absolute_path(value)

    def list_files(self) -> list[Path]:
        """The matching files, sorted; raises `NotADirectoryError` / `FileNotFoundError`."""
        if not self.path.exists():
            raise FileNotFoundError(f"Directory does not exist: {self.path}")
        if not self.path.is_dir():
            raise NotADirectoryError(f"Not a directory: {self.path}")
        pattern = self.pattern or "*"
        found = self.path.rglob(pattern) if self.recursive else self.path.glob(pattern)
        return sorted(p for p in found if p.is_file())

    async def read(self) -> str:
        files = await run_sync(self.list_files)
        return json.dumps([p.relative_to(self.path).as_posix() for p in files], indent=2)
