"""Path-safety checks for values that come from clients (URI template variables, file names).

`contains_path_traversal` and `is_absolute_path` are cheap string heuristics: a pre-filter.
`safe_join` is the containment boundary for filesystem access: it resolves the joined path
(following symlinks) and refuses anything outside the base directory.

Standard library only.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from mcp.shared.exceptions import PathEscapeError

__all__ = ["PathEscapeError", "contains_path_traversal", "is_absolute_path", "safe_join"]

_SEPARATORS = re.compile(r"[/\\]")
_DRIVE = re.compile(r"[A-Za-z]:")


def contains_path_traversal(value: str) -> bool:
    """Whether `..` components in `value` climb above its starting directory.

    Component-based, not a substring scan: `a/../b` stays inside and passes, `../x` and
    `a/../../x` escape; `v1.0..v2.0` has no `..` component at all. Both `/` and `\\` separate.
    """
    if ".." not in value:
        return False
    depth = 0
    for component in _SEPARATORS.split(value):
        if component == "..":
            depth -= 1
            if depth < 0:
                return True
        elif component and component != ".":
            depth += 1
    return False


def is_absolute_path(value: str) -> bool:
    """Whether `value` looks absolute on any common platform: `/etc/passwd`, `\\\\server\\share`
    (UNC), `C:\\Windows`, and the drive-relative `C:foo`. Any single letter followed by a colon
    counts (so `x:y` does too: as strings the two are indistinguishable)."""
    if not value:
        return False
    if value[0] in "/\\":
        return True
    return _DRIVE.match(value) is not None


def safe_join(base: str | os.PathLike[str], *parts: str) -> Path:
    """Join `parts` onto `base` and return the resolved path, or raise `PathEscapeError` if it is
    not inside `base`: a NUL byte, an absolute part, a `..` escape, or a symlink pointing outside
    (symlinks are followed by `resolve`). The base itself counts as inside."""
    base_text = os.fspath(base)
    if "\x00" in base_text:
        raise PathEscapeError("Base path contains a null byte")
    for part in parts:
        if "\x00" in part:
            raise PathEscapeError(f"Path component contains a null byte: {part!r}")
        if is_absolute_path(part) or os.path.isabs(part):
            raise PathEscapeError(f"Path component is absolute: {part!r}")
    root = Path(base_text).resolve()
    target = root.joinpath(*parts).resolve()
    if not target.is_relative_to(root):
        raise PathEscapeError(f"Path {os.path.join(*parts) if parts else ''!r} escapes the base directory {str(root)!r}")
    return target
