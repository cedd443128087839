"""Server-Sent Events: encoding events, and an incremental parser for the client."""

from __future__ import annotations

import codecs
from dataclasses import dataclass


def encode_event(data: str | bytes, *, event: str | None = "message", event_id: str | None = None,
                 retry: int | None = None) -> bytes:
    """One event; `data` as text or as UTF-8 bytes (e.g. `codec.encode_bytes` output, which
    never fails on lone surrogates). Newlines in `data` become several `data:` lines."""
    head: list[str] = []
    if event_id is not None:
        head.append(f"id: {event_id}\n")
    if retry is not None:
        head.append(f"retry: {retry}\n")
    if event is not None:
        head.append(f"event: {event}\n")
    raw = data if isinstance(data, bytes) else data.encode()
    lines = raw.split(b"\n")
    body = b"data: " + lines[0] + b"\n" if len(lines) == 1 else b"".join(b"data: " + line + b"\n" for line in lines)
    return "".join(head).encode() + body + b"\n"


@dataclass(slots=True)
class Event:
    event: str = "message"
    data: str = ""
    id: str | None = None
    retry: int | None = None


class SSEParser:
    """Feed bytes, get complete events (per the WHATWG event-stream rules, minus BOM handling)."""

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        """Incremental: a character split across two chunks is decoded once both have arrived."""
        self._buffer = ""
        self._data: list[str] = []
        self._event: str | None = None
        self._id: str | None = None
        self._retry: int | None = None
        self.last_event_id: str | None = None

    def feed(self, chunk: bytes | str) -> list[Event]:
        self._buffer += self._decoder.decode(chunk) if isinstance(chunk, bytes) else chunk
        events: list[Event] = []
        while True:
            cut = _line_end(self._buffer)
            if cut is None:
                return events
            line, self._buffer = self._buffer[: cut[0]], self._buffer[cut[1]:]
            if line == "":
                if self._data or self._event is not None or self._retry is not None:
                    events.append(Event(self._event or "message", "\n".join(self._data), self._id, self._retry))
                self._data, self._event, self._retry = [], None, None
                continue
            if line.startswith(":"):
                continue
            name, _, value = line.partition(":")
            if value.startswith(" "):
                value = value[1:]
            if name == "data":
                self._data.append(value)
            elif name == "event":
                self._event = value
            elif name == "id" and "\0" not in value:
                self._id = value
                self.last_event_id = value
            elif name == "retry" and value.isdigit():
                self._retry = int(value)


def _line_end(buffer: str) -> tuple[int, int] | None:
    for index, char in enumerate(buffer):
        if char == "\n":
            return index, index + 1
        if char == "\r":
            if index + 1 < len(buffer):
                return index, index + 2 if buffer[index + 1] == "\n" else index + 1
            return None
    return None
