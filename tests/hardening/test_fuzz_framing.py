"""`LineFramer` under random bytes and random split points.

Properties: the frames equal a reference split of the whole input (however it is chunked), an
oversized line is reported exactly once and never accumulated, and the buffer never holds more
than `max_line` bytes, not even for a moment inside one `feed` call.
"""

from __future__ import annotations

import itertools
from typing import Any

from hardening_support import CASES, fuzz_settings
from hypothesis import given
from hypothesis import strategies as st

from mcp._protocol.framing import OVERSIZED, LineFramer


def reference(data: bytes, max_line: int) -> list[Any]:
    """What the framer must report for `data` fed whole and then flushed."""
    *complete, tail = data.split(b"\n")
    out: list[Any] = []
    for line in complete:
        if len(line) > max_line:
            out.append(OVERSIZED)
        elif line.strip():
            out.append(line)
    if len(tail) > max_line:
        out.append(OVERSIZED)
    elif tail.strip():
        out.append(tail)
    return out


class BoundedBuffer(bytearray):
    """Fails the test the moment the framer grows its buffer past `limit`."""

    limit = 0

    def __iadd__(self, other: Any) -> BoundedBuffer:  # type: ignore[override,misc]
        assert len(self) + len(other) <= self.limit, f"buffer grew to {len(self) + len(other)} > {self.limit}"
        return super().__iadd__(other)  # type: ignore[return-value]


def bounded_framer(max_line: int) -> LineFramer:
    framer = LineFramer(max_line)
    buffer = BoundedBuffer()
    buffer.limit = max_line
    framer._buffer = buffer
    return framer


segment = st.one_of(
    st.binary(max_size=24),
    st.sampled_from([b"\n", b"\r\n", b"\n\n", b" ", b"\t \n", b'{"jsonrpc":"2.0","id":1,"method":"ping"}']),
    st.integers(min_value=0, max_value=300).map(lambda n: b"x" * n),
)


@st.composite
def chunked(draw: st.DrawFn) -> tuple[bytes, list[bytes], int]:
    data = b"".join(draw(st.lists(segment, max_size=30)))
    cuts = sorted(draw(st.lists(st.integers(min_value=0, max_value=len(data)), max_size=12)))
    bounds = [0, *cuts, len(data)]
    chunks = [data[a:b] for a, b in itertools.pairwise(bounds)]
    max_line = draw(st.integers(min_value=1, max_value=120))
    return data, chunks, max_line


@fuzz_settings(600)
@given(chunked())
def test_frames_equal_a_reference_split_however_the_input_is_chunked(case: tuple[bytes, list[bytes], int]) -> None:
    CASES["framing: random chunks"] += 1
    data, chunks, max_line = case
    framer = bounded_framer(max_line)
    frames: list[Any] = []
    for chunk in chunks:
        frames.extend(framer.feed(chunk))
        assert len(framer._buffer) <= max_line
    tail = framer.flush()
    if tail is not None:
        frames.append(tail)
    assert frames == reference(data, max_line)


@fuzz_settings(200)
@given(st.integers(min_value=1, max_value=64), st.integers(min_value=0, max_value=5000),
       st.integers(min_value=1, max_value=4096))
def test_an_oversized_line_is_reported_once_and_never_held(max_line: int, length: int, chunk: int) -> None:
    CASES["framing: oversized lines"] += 1
    framer = bounded_framer(max_line)
    data = b"a" * length + b"\n" + b'{"ok":1}\n'
    frames: list[Any] = []
    for start in range(0, len(data), chunk):
        frames.extend(framer.feed(data[start:start + chunk]))
        assert len(framer._buffer) <= max_line
    expected_first = [OVERSIZED] if length > max_line else ([b"a" * length] if length else [])
    expected_last = [b'{"ok":1}'] if len(b'{"ok":1}') <= max_line else [OVERSIZED]
    assert frames == expected_first + expected_last
    assert framer.flush() is None


def test_a_line_of_exactly_max_line_bytes_is_accepted_and_one_more_is_not() -> None:
    for max_line in (1, 2, 100, 65536):
        for pieces in (1, 2, 3):
            line = b"z" * max_line
            framer = bounded_framer(max_line)
            frames: list[Any] = []
            step = max(1, len(line) // pieces)
            for start in range(0, len(line), step):
                frames.extend(framer.feed(line[start:start + step]))
            frames.extend(framer.feed(b"\n"))
            assert frames == [line]
            framer = bounded_framer(max_line)
            frames = []
            for start in range(0, len(line) + 1, step):
                frames.extend(framer.feed((line + b"z")[start:start + step]))
            frames.extend(framer.feed(b"\nk\n"))
            assert frames == [OVERSIZED, b"k"]


def test_a_huge_completion_of_a_buffered_line_is_refused_without_joining_it() -> None:
    framer = bounded_framer(1000)
    assert framer.feed(b"x" * 999) == []
    assert framer.feed(b"y" * 1_000_000 + b"\nnext\n") == [OVERSIZED, b"next"]
    assert len(framer._buffer) == 0
