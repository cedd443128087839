"""How a transport that could not reach its server fails the `Client` around it.

As with the official client, a request that gets no HTTP response at all (connection refused,
DNS failure, ...) fails the transport's task group: the caller of `async with Client(...)` gets
an `ExceptionGroup` holding the HTTP library's own exception (`httpx2.ConnectError`, its cause
intact), so the migration guide's `except* httpx2.ConnectError:` works. `Client` otherwise
unwraps single-error groups of its own plumbing; these it leaves as the transport raised them.
"""

from __future__ import annotations

import sys
from typing import Any, cast

try:
    _Group: Any = BaseExceptionGroup  # type: ignore[name-defined]
except NameError:  # Python 3.10
    from exceptiongroup import BaseExceptionGroup as _Group  # type: ignore[no-redef]


def is_transport_failure(error: BaseException) -> bool:
    """Whether `error` is an HTTP library's request failure (`httpx2.HTTPError`, `httpx.HTTPError`)."""
    for name in ("httpx2", "httpx"):
        library = sys.modules.get(name)
        if library is not None and isinstance(error, library.HTTPError):
            return True
    return False


def innermost_group(group: BaseException) -> BaseException:
    """The innermost of nested single-member exception groups (the one holding the error itself)."""
    while isinstance(group, _Group):
        members = cast("tuple[BaseException, ...]", cast(Any, group).exceptions)
        if len(members) != 1 or not isinstance(members[0], _Group):
            return group
        group = members[0]
    return group
