"""`ReadStream` / `WriteStream`: the shapes of the two streams between a session and its transport
(the official SDK's names). Anything with these methods will do; anyio's memory streams and the
streams our transports hand out have them. What travels on them: see `mcp._engine.seam`."""

from __future__ import annotations

from types import TracebackType
from typing import Protocol, TypeVar

from typing_extensions import Self

__all__ = ["ReadStream", "WriteStream"]

T_co = TypeVar("T_co", covariant=True)
T_contra = TypeVar("T_contra", contravariant=True)


class ReadStream(Protocol[T_co]):
    """Items are read with `receive()` (or `async for`); `anyio.EndOfStream` ends it."""

    async def receive(self) -> T_co: ...
    async def aclose(self) -> None: ...
    def __aiter__(self) -> ReadStream[T_co]: ...
    async def __anext__(self) -> T_co: ...
    async def __aenter__(self) -> Self: ...
    async def __aexit__(self, exc_type: type[BaseException] | None, exc_val: BaseException | None,
                        exc_tb: TracebackType | None) -> bool | None: ...


class WriteStream(Protocol[T_contra]):
    """Items are written with `send()`; `aclose()` ends the stream for its reader."""

    async def send(self, item: T_contra, /) -> None: ...
    async def aclose(self) -> None: ...
    async def __aenter__(self) -> Self: ...
    async def __aexit__(self, exc_type: type[BaseException] | None, exc_val: BaseException | None,
                        exc_tb: TracebackType | None) -> bool | None: ...
