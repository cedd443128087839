"""Newline-delimited framing for stdio, with a hard cap on line length.

`LineFramer` is fed raw bytes and hands back complete lines. A line longer than `max_line` is
never accumulated: the framer reports it once as `OVERSIZED` and skips bytes up to its newline, so
a hostile peer cannot make it hold more than `max_line` bytes between calls, nor grow its buffer
past that within one. A line of exactly `max_line` bytes (newline excluded) is accepted.
"""

from __future__ import annotations

from typing import Final

DEFAULT_MAX_LINE: Final = 16 * 1024 * 1024


class _Oversized:
    __slots__ = ()

    def __repr__(self) -> str:
        return "OVERSIZED"


OVERSIZED: Final = _Oversized()


class LineFramer:
    __slots__ = ("_buffer", "_discarding", "max_line")

    def __init__(self, max_line: int = DEFAULT_MAX_LINE) -> None:
        self.max_line = max_line
        self._buffer = bytearray()
        self._discarding = False

    def feed(self, data: bytes) -> list[bytes | _Oversized]:
        """Add bytes; return the complete frames now available (blank lines are skipped)."""
        out: list[bytes | _Oversized] = []
        start = 0
        while True:
            newline = data.find(b"\n", start)
            if newline < 0:
                break
            chunk = data[start:newline]
            start = newline + 1
            if self._discarding:
                self._discarding = False
                self._buffer.clear()
                continue
            if self._buffer:
                if len(self._buffer) + len(chunk) > self.max_line:
                    # Decided without joining the two: the buffer never exceeds max_line.
                    self._buffer.clear()
                    out.append(OVERSIZED)
                    continue
                self._buffer += chunk
                line = bytes(self._buffer)
                self._buffer.clear()
            else:
                line = chunk
            if len(line) > self.max_line:
                out.append(OVERSIZED)
            elif line.strip():
                out.append(line)
        rest = data[start:]
        if rest and not self._discarding:
            if len(self._buffer) + len(rest) > self.max_line:
                self._buffer.clear()
                self._discarding = True
                out.append(OVERSIZED)
            else:
                self._buffer += rest
        return out

    def flush(self) -> bytes | None:
        """At end of input: the unterminated last line, if any."""
        if self._discarding or not self._buffer.strip():
            return None
        line = bytes(self._buffer)
        self._buffer.clear()
        return line
