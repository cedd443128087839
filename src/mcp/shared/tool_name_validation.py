"""Tool-name checks of SEP-986: 1 to 128 characters from `A-Z a-z 0-9 _ - .`.

A name outside the rule is still registered; `validate_and_warn_tool_name` logs why it may cause
trouble with some clients.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field

__all__ = ["SEP_986_URL", "TOOL_NAME_REGEX", "ToolNameValidationResult", "issue_tool_name_warning",
           "validate_and_warn_tool_name", "validate_tool_name"]

logger = logging.getLogger("mcp.shared.tool_name_validation")

TOOL_NAME_REGEX = re.compile(r"^[A-Za-z0-9._-]{1,128}$")
SEP_986_URL = "https://modelcontextprotocol.io/specification/2025-11-25/server/tools#tool-names"
_ALLOWED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")


@dataclass
class ToolNameValidationResult:
    """Whether a name follows SEP-986, and what to warn about (also for valid names)."""

    is_valid: bool
    warnings: list[str] = field(default_factory=list[str])


def validate_tool_name(name: str) -> ToolNameValidationResult:
    """Check `name` against SEP-986."""
    if not name:
        return ToolNameValidationResult(False, ["Tool name cannot be empty"])
    if len(name) > 128:
        return ToolNameValidationResult(
            False, [f"Tool name exceeds maximum length of 128 characters (current: {len(name)})"])
    warnings: list[str] = []
    if " " in name:
        warnings.append("Tool name contains spaces, which may cause parsing issues")
    if "," in name:
        warnings.append("Tool name contains commas, which may cause parsing issues")
    if name[0] == "-" or name[-1] == "-":
        warnings.append("Tool name starts or ends with a dash, which may cause parsing issues in some contexts")
    if name[0] == "." or name[-1] == ".":
        warnings.append("Tool name starts or ends with a dot, which may cause parsing issues in some contexts")
    invalid = list(dict.fromkeys(char for char in name if char not in _ALLOWED))
    if invalid:
        warnings.append(f"Tool name contains invalid characters: {', '.join(repr(char) for char in invalid)}")
        warnings.append("Allowed characters are: A-Z, a-z, 0-9, underscore (_), dash (-), and dot (.)")
        return ToolNameValidationResult(False, warnings)
    return ToolNameValidationResult(True, warnings)


def issue_tool_name_warning(name: str, warnings: list[str]) -> None:
    """Log `warnings` about `name` (nothing when there are none)."""
    if not warnings:
        return
    logger.warning('Tool name validation warning for "%s":', name)
    for warning in warnings:
        logger.warning("  - %s", warning)
    logger.warning("Tool registration will proceed, but this may cause compatibility issues.")
    logger.warning("Consider updating the tool name to conform to the MCP tool naming standard.")
    logger.warning("See SEP-986 (%s) for more details.", SEP_986_URL)


def validate_and_warn_tool_name(name: str) -> bool:
    """Check `name`, log any warnings, and return whether it is valid."""
    result = validate_tool_name(name)
    issue_tool_name_warning(name, result.warnings)
    return result.is_valid
