"""Extension identifiers (SEP-2133): `vendor-prefix/name`, the prefix in reverse-DNS form. One
rule for server and client extensions alike."""

from __future__ import annotations

import re
from typing import Any

_IDENTIFIER = re.compile(r"^[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+/[A-Za-z0-9._-]+$")


def check_identifier(owner: str, identifier: Any) -> None:
    """Raise `TypeError` naming `owner` unless `identifier` is a valid extension identifier."""
    if not isinstance(identifier, str) or not _IDENTIFIER.match(identifier):
        raise TypeError(
            f"{owner}.identifier must be a `vendor-prefix/name` string (reverse-DNS prefix required), got {identifier!r}"
        )


def validate_extension_identifier(identifier: Any, *, owner: str) -> None:
    """The official SDK's spelling of `check_identifier` (keyword `owner`)."""
    check_identifier(owner, identifier)


TASKS_EXTENSION_ID = "io.modelcontextprotocol/tasks"
"""The tasks extension (SEP-2663): a `tools/call` answered with a task handle, then `tasks/*`."""
