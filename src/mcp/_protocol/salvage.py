"""What can still be read from a JSON-RPC message that did not parse: the id it answers.

A client whose peer sends an answer it cannot decode (nested too deep, truncated, not UTF-8) can
still fail the request that answer was for at once, instead of leaving it to its timeout, when the
id can be told: `salvage_id` scans the text once for the top-level `"id"` member, skipping strings
and nested values by counting brackets. The scan is linear and bounded (`MAX_TOKENS` steps: a
bracket, a string, an escaped quote each), and everything it reads is only ever used to name a request already awaiting an answer.
"""

from __future__ import annotations

import re
from typing import Final

MAX_TOKENS: Final = 100_000
"""Steps (brackets, strings, escaped quotes in strings) the scan takes before it gives up: with the
C searches between steps, a few tens of milliseconds for the worst 16 MiB line."""

_STRUCTURE = re.compile(r'["\[\]{}]')
_ID_KEY = '"id"'
_ID_VALUE = re.compile(r'[ \t\r\n]{0,64}:[ \t\r\n]{0,64}(-?[0-9]{1,19}|"[^"\\]{0,256}")[ \t\r\n]{0,64}[,}]')
"""What follows the key `"id"`: an integer or a plain string, then the end of the member (each
repeat bounded: no backtracking to speak of)."""


def salvage_id(text: str | bytes) -> str | int | None:
    """The id of the JSON-RPC object `text`, read without parsing it: the first top-level `"id"`
    member's value when it is an integer or a string without escapes, else None."""
    if isinstance(text, bytes | bytearray):
        text = bytes(text).decode("utf-8", "replace")
    start = len(text) - len(text.lstrip())
    if not text.startswith("{", start):
        return None
    depth, position, string_at = 1, start + 1, -1
    for _ in range(MAX_TOKENS):
        if string_at >= 0:  # inside a string: find its closing quote (one escaped quote per step)
            close = text.find('"', position)
            if close < 0:
                return None
            between = text[position:close]  # each character is sliced once: linear
            position = close + 1
            if (len(between) - len(between.rstrip("\\"))) % 2:  # an escaped quote
                continue
            if depth == 1 and close - string_at == len(_ID_KEY) - 1 and text.startswith(_ID_KEY, string_at):
                value = _ID_VALUE.match(text, position)
                if value is not None:
                    literal = value.group(1)
                    return literal[1:-1] if literal.startswith('"') else int(literal)
            string_at = -1
            continue
        found = _STRUCTURE.search(text, position)
        if found is None:
            return None
        char, position = found.group(), found.end()
        if char == '"':
            string_at = found.start()
        elif char in "[{":
            depth += 1
        else:
            depth -= 1
            if depth == 0:
                return None
    return None

