"""`mcp.shared.path_security`: the traversal and absolute-path heuristics and `safe_join`."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mcp.shared.exceptions import PathEscapeError
from mcp.shared.path_security import contains_path_traversal, is_absolute_path, safe_join


@pytest.mark.parametrize(
    "value", ["..", "../etc/passwd", "a/../../x", "./..", "..\\windows", "a\\..\\..\\b", "x/../../../"]
)
def test_dot_dot_components_that_climb_out_are_traversal(value: str) -> None:
    assert contains_path_traversal(value)


@pytest.mark.parametrize(
    "value", ["", "a", "a/../b", "a/b/../../c", "v1.0..v2.0", "HEAD~3..HEAD", "...", "a/.../b", "..a", "a..", "./x"]
)
def test_dot_dot_that_stays_inside_or_is_not_a_component_is_not_traversal(value: str) -> None:
    assert not contains_path_traversal(value)


@pytest.mark.parametrize(
    "value", ["/etc/passwd", "/", "\\\\server\\share", "//server/share", "C:\\Windows", "c:/x", "C:foo", "x:y", "\\x"]
)
def test_absolute_unc_and_drive_paths_are_absolute(value: str) -> None:
    assert is_absolute_path(value)


@pytest.mark.parametrize("value", ["", "etc/passwd", "ab:c", "data:x", "1:x", "readme.md", "~/x"])
def test_relative_values_are_not_absolute(value: str) -> None:
    assert not is_absolute_path(value)


def test_safe_join_returns_the_resolved_path_inside_base(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    assert safe_join(tmp_path, "docs", "intro.md") == (tmp_path / "docs" / "intro.md").resolve()
    assert safe_join(str(tmp_path), "docs/../readme.md") == (tmp_path / "readme.md").resolve()
    assert safe_join(tmp_path) == tmp_path.resolve()
    assert safe_join(tmp_path, ".") == tmp_path.resolve()


@pytest.mark.parametrize("part", ["../outside", "docs/../../outside", ".."])
def test_safe_join_rejects_dot_dot_escapes(tmp_path: Path, part: str) -> None:
    with pytest.raises(PathEscapeError, match="escapes the base directory"):
        safe_join(tmp_path / "base", part)


@pytest.mark.parametrize("part", ["/etc/passwd", "C:\\Windows", "\\\\server\\share"])
def test_safe_join_rejects_absolute_parts(tmp_path: Path, part: str) -> None:
    with pytest.raises(PathEscapeError, match="absolute"):
        safe_join(tmp_path, part)


def test_safe_join_rejects_null_bytes(tmp_path: Path) -> None:
    with pytest.raises(PathEscapeError, match="null byte"):
        safe_join(tmp_path, "a\x00b")
    with pytest.raises(PathEscapeError, match="null byte"):
        safe_join(f"{tmp_path}\x00", "a")


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symlinks")
def test_safe_join_rejects_a_symlink_pointing_outside_base(tmp_path: Path) -> None:
    base = tmp_path / "base"
    base.mkdir()
    outside = tmp_path / "secret.txt"
    outside.write_text("secret")
    (base / "link").symlink_to(outside)
    (base / "inner.txt").write_text("ok")
    (base / "inner_link").symlink_to(base / "inner.txt")
    with pytest.raises(PathEscapeError):
        safe_join(base, "link")
    assert safe_join(base, "inner_link") == (base / "inner.txt").resolve()


def test_path_escape_error_is_a_value_error() -> None:
    assert issubclass(PathEscapeError, ValueError)
