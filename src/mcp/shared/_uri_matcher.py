"""The matcher behind `UriTemplate.match`: linear in the URI's length, no backtracking regex.

A template's path part compiles to a sequence of steps: a literal, a run of value characters
(`{x}`, `{+x}`, a strict `{&x}` value), a path parameter (`;x` or `;x=value`), or a repeated
group (`{/x*}`, `{.x*}`, `{;x*}`). The results are those of a regular expression that lets
every value be as long as possible, leftmost first: of all the ways the URI splits into steps,
the one whose step ends, read left to right, are largest. Every step's possible ends from a
given start form a set that is tried from its largest member down, so the scan is a depth-first
search over (step, position) states that

- tries only ends where what follows can begin (the next literal is found with `str.rfind`),
- remembers every state that failed, so no state is explored twice, and
- lets every run of one step that ends at the same stop character share one cursor, so the
  candidate ends of a value are counted down once however often the step is entered, and
- (for URIs of `PRUNE_FROM` characters or more) first bounds, right to left, the earliest
  position each step can start at, so a hostile URI that cannot fit is usually refused after a
  few C-level scans and the search never tries ends the rest could not follow.

That bounds the work by O(n·s) for a URI of n characters and a template of s steps (plus the
literal comparisons `str.rfind` does), where a backtracking regex needs O(n²) or worse for
`{a}-{b}` and friends. Standard library only (layer L0).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass

LITERAL = 0
"""Exactly `text`."""
RUN = 1
"""At least `min_len` characters, none of them in `stops`."""
PARAM = 2
"""`text` (`;name`), then optionally `=` and characters not in `stops`."""
SEGMENTS = 3
"""Zero or more of: `text` (the separator) then one or more characters not in `stops`."""
PARAMS = 4
"""Zero or more `PARAM`s of the same name."""

_REPEATED = (SEGMENTS, PARAMS)

PRUNE_FROM = 256
"""URIs at least this long get lower bounds on where each step may start before the search (it
cuts the work of a hostile URI to a few C-level scans; a short URI is quicker without)."""


@dataclass(frozen=True, slots=True)
class Step:
    """One piece of a template's path part, as the matcher walks it."""

    kind: int
    text: str = ""
    stops: str = ""
    """The characters a value cannot contain (empty: any character)."""
    min_len: int = 1
    name: str = ""
    """The variable the step captures ("" for a literal)."""


@dataclass(frozen=True, slots=True)
class Matcher:
    """A compiled template path. `tail` is the character that introduces the leniently matched
    query tail (`?`, or `&` after a literal query), "" when the template has none."""

    steps: tuple[Step, ...]
    tail: str

    def scan(self, uri: str, work: list[int] | None = None) -> tuple[list[int], int] | None:
        """Where each step starts and where the path part ends, or None if `uri` does not fit.
        `work`, when given, gets the number of states, candidates and characters scanned added
        to its first item (a deterministic cost measure for tests)."""
        steps = self.steps
        if steps and steps[0].kind == LITERAL and not uri.startswith(steps[0].text):
            return None  # the common miss (another scheme or prefix), without setting up a scan
        return _Scan(self, uri).run(work)


_CLASS_PATTERNS: dict[str, re.Pattern[str]] = {}
_NEARBY = 64
"""How far `stop` searches before it lists every stop of the URI (once, then bisects)."""


def _class_pattern(stops: str) -> re.Pattern[str]:
    pattern = _CLASS_PATTERNS.get(stops)
    if pattern is None:
        pattern = _CLASS_PATTERNS[stops] = re.compile("[" + re.escape(stops) + "]")
    return pattern


class _Scan:
    """One run of the search. A frame is a list `[step, start, lo, cur, phase, aux]`: candidate
    ends `cur` down to `lo` remain; `phase` 0 = a repeated group's next iteration (starting at
    `aux`) is still to try, 1 = the range, 2 = a repeated group's empty end, 3 = exhausted; for a
    run, `aux` is its stop position (the key of the shared cursor in `low`)."""

    __slots__ = ("failed", "floors", "hash_at", "low", "n", "steps", "stop_lists", "tail", "uri", "work")

    def __init__(self, matcher: Matcher, uri: str) -> None:
        self.steps = matcher.steps
        self.tail = matcher.tail
        self.uri = uri
        self.n = len(uri)
        self.work = 0
        # The query tail runs to the end and holds no `#`: it can only start after the last one.
        self.hash_at = uri.rfind("#") if self.tail else self.n
        if self.tail:
            self.work += self.n
        self.stop_lists: dict[str, list[int]] = {}
        self.failed: set[int] = set()
        self.low: dict[tuple[int, int], int] = {}
        self.floors: list[int] = []

    def set_floors(self) -> bool:
        """For every step, a position it cannot start before if the rest is to fit (a cheap
        necessary condition, computed right to left); False when even that fails."""
        uri, n, steps = self.uri, self.n, self.steps
        floor = n
        if self.tail:
            found = uri.find(self.tail, self.hash_at + 1)
            floor = found if found >= 0 else n
        floors = [floor]
        for step in reversed(steps):
            kind = step.kind
            if kind == RUN:
                floor = self.prev_stop(step.stops, floor) + 1
            elif kind in (LITERAL, PARAM):
                back = len(step.text) if kind == LITERAL else len(step.text) + floor - self.prev_stop(step.stops, floor)
                start = max(0, floor - back)
                floor = uri.find(step.text, start)
                self.work += (floor if floor >= 0 else n) - start + len(step.text)
                if floor < 0:
                    return False
            else:  # a repeated group may absorb anything: no bound from here on
                floor = 0
            floors.append(floor)
        floors.reverse()
        self.floors = floors
        return floors[0] == 0

    def prev_stop(self, stops: str, at: int) -> int:
        """The last position < `at` holding one of `stops` (-1 if none)."""
        # Called once per step per scan: a few C-level scans beat building the stop list.
        self.work += len(stops) * at
        return max([self.uri.rfind(char, 0, at) for char in stops], default=-1)

    def stops_of(self, stops: str) -> list[int]:
        positions = self.stop_lists.get(stops)
        if positions is None:
            positions = self.stop_lists[stops] = [m.start() for m in _class_pattern(stops).finditer(self.uri)]
            self.work += self.n
        return positions

    def stop(self, stops: str, at: int) -> int:
        """The first position >= `at` holding one of `stops` (or the URI's length)."""
        if not stops:
            return self.n
        positions = self.stop_lists.get(stops)
        if positions is None:  # most values are short: look nearby before listing every stop
            near = min(at + _NEARBY, self.n)
            found = _class_pattern(stops).search(self.uri, at, near)
            self.work += (found.start() + 1 if found is not None else near) - at
            if found is not None:
                return found.start()
            if near == self.n:
                return self.n
            positions = self.stops_of(stops)
        index = bisect_left(positions, at)
        return positions[index] if index < len(positions) else self.n

    def pick(self, k: int, lo: int, cur: int) -> int:
        """The largest end in [lo, cur] of step `k` where what follows step `k` can begin, or -1."""
        floor = self.floors[k + 1]
        if lo < floor:
            lo = floor
        if cur < lo:
            return -1
        uri = self.uri
        if k + 1 == len(self.steps):  # the path part must end here: at the end, or at the tail
            if cur >= self.n:
                return self.n
            if not self.tail:
                return -1
            start = max(lo, self.hash_at + 1)
            found = uri.rfind(self.tail, start, cur + 1)
            self.work += cur + 1 - (found if found >= 0 else start)
            return found
        following = self.steps[k + 1]
        if following.kind in (LITERAL, PARAM):
            text = following.text
            found = uri.rfind(text, lo, cur + len(text))
            self.work += cur + len(text) - (found if found >= 0 else lo)
            return found
        return cur

    def frame(self, k: int, start: int) -> list[int] | None:
        """A new frame for step `k` entered at `start`, or None if the step cannot start there."""
        step = self.steps[k]
        uri = self.uri
        kind = step.kind
        if kind == RUN:
            stop = self.stop(step.stops, start)
            cur = min(stop, self.low.get((k, stop), stop + 1) - 1)
            return [k, start, start + step.min_len, cur, 1, stop]
        if kind == LITERAL:
            if not uri.startswith(step.text, start):
                return None
            end = start + len(step.text)
            return [k, start, end, end, 1, 0]
        if kind == PARAM:
            if not uri.startswith(step.text, start):
                return None
            after = start + len(step.text)
            end = self.stop(step.stops, after + 1) if uri.startswith("=", after) else after
            return [k, start, after, end, 1, 0]
        # Repeated group: first another iteration (ending at its longest), then shorter ends of
        # this iteration, then no iteration at all.
        if kind == SEGMENTS:
            if uri.startswith(step.text, start):
                first = start + len(step.text)
                end = self.stop(step.stops, first)
                if end > first:
                    return [k, start, first + 1, end - 1, 0, end]
        elif uri.startswith(step.text, start):
            after = start + len(step.text)
            end = self.stop(step.stops, after + 1) if uri.startswith("=", after) else after
            return [k, start, after, end - 1, 0, end]
        return [k, start, start, start - 1, 2, 0]

    def run(self, work: list[int] | None) -> tuple[list[int], int] | None:
        result = self._run()
        if work is not None:
            work[0] += self.work
        return result

    def _run(self) -> tuple[list[int], int] | None:
        steps = self.steps
        count = len(steps)
        if self.n < PRUNE_FROM:
            self.floors = [0] * (count + 1)
        elif not self.set_floors():
            return None
        if count == 0:
            return ([], 0) if self.pick(-1, 0, 0) == 0 else None
        key_base = self.n + 2
        failed = self.failed
        first = self.frame(0, 0)
        if first is None:
            return None
        stack = [first]
        while stack:
            self.work += 1
            frame = stack[-1]
            k = frame[0]
            phase = frame[4]
            end = -1
            if phase == 0:  # a repeated group: try one more iteration first
                frame[4] = 1
                key = k * key_base + frame[5]
                if key not in failed:
                    deeper = self.frame(k, frame[5])
                    if deeper is None:
                        failed.add(key)
                    else:
                        stack.append(deeper)
                    continue
                phase = 1
            if phase == 1:
                end = self.pick(k, frame[2], frame[3])
                if end >= 0:
                    frame[3] = end - 1
                elif steps[k].kind in _REPEATED:
                    frame[4] = phase = 2
            if phase == 2:
                frame[4] = 3
                start = frame[1]
                end = self.pick(k, start, start)
            if end < 0:
                stack.pop()
                failed.add(k * key_base + frame[1])
                if steps[k].kind == RUN:
                    mark = (k, frame[5])
                    self.low[mark] = min(self.low.get(mark, frame[2]), frame[2])
                continue
            if k + 1 == count:
                starts = [-1] * count
                for entry in stack:
                    if starts[entry[0]] < 0:
                        starts[entry[0]] = entry[1]
                return starts, end
            key = (k + 1) * key_base + end
            if key in failed:
                continue
            following = self.frame(k + 1, end)
            if following is None:
                failed.add(key)
            else:
                stack.append(following)
        return None
