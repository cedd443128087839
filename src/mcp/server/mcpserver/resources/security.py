"""The path-safety policy applied to values extracted from resource template URIs."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field

from mcp.shared.exceptions import PathEscapeError
from mcp.shared.path_security import contains_path_traversal, is_absolute_path

__all__ = ["DEFAULT_RESOURCE_SECURITY", "ResourceSecurity", "ResourceSecurityError"]


class ResourceSecurityError(PathEscapeError):
    """A template variable's value was rejected by the resource security policy: `template` is
    the URI template (empty when unknown), `param` the variable, `reason` why."""

    def __init__(self, template: str, param: str, reason: str | None = None) -> None:
        where = f" of template {template!r}" if template else ""
        super().__init__(f"Parameter {param!r}{where} failed security validation" + (f": {reason}" if reason else ""))
        self.template = template
        self.param = param
        self.reason = reason


@dataclass(frozen=True)
class ResourceSecurity:
    """Which checks run on template variable values before a resource function is called.

    A heuristic pre-filter; for filesystem access `mcp.shared.path_security.safe_join` remains
    the containment boundary. Set per resource (`@mcp.resource(..., security=...)`) or for the
    whole server (`MCPServer(resource_security=...)`).
    """

    reject_path_traversal: bool = True
    """Reject values whose `..` components escape their starting directory."""
    reject_absolute_paths: bool = True
    """Reject `/foo`, `C:\\foo`, UNC paths and drive-relative `C:foo` (so also `x:y`)."""
    reject_null_bytes: bool = True
    """Reject values containing `\\x00`."""
    exempt_params: Collection[str] = field(default_factory=frozenset[str])
    """Parameter names the checks skip."""

    def violation(self, name: str, value: str) -> str | None:
        """Why `value` (of parameter `name`) is rejected, or `None` if it passes."""
        if name in self.exempt_params:
            return None
        if self.reject_null_bytes and "\x00" in value:
            return "contains a null byte"
        if self.reject_path_traversal and contains_path_traversal(value):
            return "contains a '..' path traversal"
        if self.reject_absolute_paths and is_absolute_path(value):
            return "looks like an absolute path"
        return None

    def validate(self, params: Mapping[str, str | list[str]], template: str = "") -> None:
        """Raise `ResourceSecurityError` for the first rejected value (list values item by item)."""
        for name, value in params.items():
            for item in (value,) if isinstance(value, str) else value:
                reason = self.violation(name, item)
                if reason is not None:
                    raise ResourceSecurityError(template, name, reason)

    def is_safe(self, params: Mapping[str, str | list[str]]) -> bool:
        """Whether every value passes."""
        try:
            self.validate(params)
        except ResourceSecurityError:
            return False
        return True


DEFAULT_RESOURCE_SECURITY = ResourceSecurity()
"""Every check on, nothing exempt."""
