"""Bytes <-> JSON values, in one place. Decoding uses the stdlib's C decoder (its verdicts on
hostile input are the reference the fuzz tests hold us to). Encoding goes through pydantic_core's
encoder (already a dependency, loaded on first use), 3-5x faster than the stdlib's, with the stdlib
as the judge wherever the two could disagree: NaN and infinities (which pydantic_core would write as
the non-JSON `NaN`/`Infinity`), lone surrogates, absurd nesting and unknown types all take the
stdlib path, so what comes out is the same JSON value and every refusal is the stdlib's. Beyond the
stdlib, values pydantic knows how to write (enums, dates, bytes of UTF-8) are written as it does.

Hostile input never raises anything but `ParseError` from `decode`: invalid UTF-8, truncated
text, absurd nesting (`RecursionError`), integers past the interpreter's digit limit, and the
non-JSON literals `NaN`/`Infinity` the stdlib would otherwise accept.

Output is where decoded input comes back (ids, method names and versions echoed in errors): a
lone surrogate (`"\\ud800"` decodes to one) cannot be written as UTF-8, and a float overflow
(`1e999` decodes to infinity) cannot be written as JSON. `encode_line` is the writer's encoder
and never lets either take a transport down (see its docstring).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any, NoReturn, cast

logger = logging.getLogger("mcp.codec")


def _reject_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not valid JSON")


_decode = json.JSONDecoder(parse_constant=_reject_constant).decode
_encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode
_encode_ascii = json.JSONEncoder(ensure_ascii=True, separators=(",", ":"), allow_nan=False).encode

_to_json: Callable[[Any], bytes] | None = None


def _fast(message: Any) -> bytes | None:
    """Compact UTF-8 JSON from pydantic_core, or None where the stdlib must decide (see above)."""
    global _to_json
    to_json = _to_json
    if to_json is None:
        from pydantic_core import to_json

        _to_json = to_json
    try:
        data = to_json(message)
    except Exception:  # unknown types, surrogates, depth: the stdlib path gives the verdict
        return None
    # Maybe a non-finite float (or just text saying so). A single-byte find is a memchr, many times
    # faster than a substring search, and most messages have neither letter.
    if (data.find(b"N") >= 0 and b"NaN" in data) or (data.find(b"I") >= 0 and b"Infinity" in data):
        return None
    return data


_INTERNAL_ERROR = -32603  # mcp.types.jsonrpc.INTERNAL_ERROR, inlined: codec imports no mcp module


class ParseError(ValueError):
    """Input that is not JSON (or not UTF-8)."""

    data: bytes | str | None = None
    """The input that failed, when its reader keeps it (a stdio line, an SSE event's data): a
    client can still tell which request it answered (`mcp._protocol.salvage`)."""


class EncodeError(ValueError):
    """A message that cannot be written as JSON (NaN or infinity, a non-JSON type, absurd nesting)."""


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


def encode_bytes(message: Any) -> bytes:
    """UTF-8 JSON of one message, for any writer (an HTTP body, an SSE event): like
    `encode(message).encode()`, except that lone surrogates are written as `\\uXXXX` escapes
    instead of raising `UnicodeEncodeError`. Raises `EncodeError` for what JSON cannot carry."""
    data = _fast(message)
    if data is not None:
        return data
    try:
        return _encode(message).encode()
    except UnicodeEncodeError:
        try:
            return _encode_ascii(message).encode()
        except (ValueError, TypeError, RecursionError) as exc:
            raise EncodeError(f"message cannot be encoded as JSON: {exc}") from None
    except (ValueError, TypeError, RecursionError) as exc:
        raise EncodeError(f"message cannot be encoded as JSON: {exc}") from None


def encode_line(message: Any) -> bytes:
    """One message as a newline-terminated UTF-8 line (the stdio writers' encoder).

    Lone surrogates are written as `\\uXXXX` escapes (still valid JSON, and the same string to
    the reader). A message JSON cannot carry is never half-written: a response is replaced by an
    internal-error response to the same id (its request still gets exactly one answer); anything
    else raises `EncodeError` for the sender to handle."""
    data = _fast(message)
    if data is not None:
        return data + b"\n"
    try:
        return (_encode(message) + "\n").encode()
    except UnicodeEncodeError:
        try:
            return (_encode_ascii(message) + "\n").encode()
        except (ValueError, TypeError, RecursionError) as exc:
            return _unencodable(message, exc) + b"\n"
    except (ValueError, TypeError, RecursionError) as exc:
        return _unencodable(message, exc) + b"\n"


def encode_response_bytes(message: Any) -> bytes:
    """`encode_bytes` for a response that must reach its requester whatever it carries: one that
    JSON cannot carry becomes an internal-error response to the same id."""
    try:
        return encode_bytes(message)
    except EncodeError as exc:
        return _unencodable(message, exc)


def _unencodable(message: Any, exc: BaseException) -> bytes:
    envelope: dict[str, Any] = cast("dict[str, Any]", message) if type(message) is dict else {}
    request_id: Any = envelope.get("id")
    is_response = ("result" in envelope or "error" in envelope) and "method" not in envelope
    if is_response and (type(request_id) in (str, int) or request_id is None):
        logger.error("response to %r could not be encoded as JSON (%s); answering with an internal error",
                     request_id, exc)
        error = {"jsonrpc": "2.0", "id": request_id,
                 "error": {"code": _INTERNAL_ERROR, "message": "Internal error: the response could not be encoded"}}
        return _encode_ascii(error).encode()
    raise EncodeError(f"message cannot be encoded as JSON: {exc}") from None
