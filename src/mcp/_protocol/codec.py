"""Bytes <-> JSON values, in one place. The stdlib's C codec is the fastest choice available
without another dependency; `RecursionError` on absurd nesting is mapped to a parse error."""

from __future__ import annotations

import json
from typing import Any

_decode = json.JSONDecoder().decode
_encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode


class ParseError(ValueError):
    """Input that is not JSON (or not UTF-8)."""


def decode(data: bytes | str) -> Any:
    """Parse one JSON text; raises `ParseError` with a short reason."""
    try:
        text = data.decode("utf-8") if isinstance(data, bytes | bytearray) else data
        return _decode(text)
    except UnicodeDecodeError as exc:
        raise ParseError(f"Parse error: invalid UTF-8 ({exc.reason})") from None
    except RecursionError:
        raise ParseError("Parse error: nesting too deep") from None
    except ValueError as exc:
        raise ParseError(f"Parse error: {exc}") from None


def encode(message: Any) -> str:
    """Serialise one JSON value compactly (no newlines, so it is also a valid stdio frame)."""
    return _encode(message)
