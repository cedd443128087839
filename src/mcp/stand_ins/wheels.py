"""The two metadata-only wheels, `mcp` and `mcp-types`, written from data in this module.

Each wheel holds nothing but its `.dist-info` (METADATA, WHEEL, RECORD): it owns no file, so
installing it never overwrites mcpkit's `mcp`/`mcp_types` packages and uninstalling it never
removes them. It requires `mcpkit==<installed version>` and is versioned
`2.3.0+mcpkit.<mcpkit version>`: the official release whose API mcpkit provides, with a local
label that marks it as ours (PyPI refuses local versions, so it is never mistaken for the
official upload). The archives are byte-for-byte reproducible (fixed timestamps and order), so a
lock file that records a wheel's hash stays valid when the wheel is rebuilt.
"""

from __future__ import annotations

import base64
import hashlib
import re
import zipfile
from pathlib import Path

OFFICIAL_RELEASE = "2.3.0"
"""The official `mcp` release whose public API mcpkit provides."""

STAND_INS: dict[str, str] = {"mcp": "mcp", "mcp-types": "mcp_types"}
"""Each stand-in distribution, with the import package (in mcpkit) whose requirement it meets."""

_EPOCH = (1980, 1, 1, 0, 0, 0)


def stand_in_version(mcpkit_version: str) -> str:
    """`2.3.0+mcpkit.<mcpkit_version>`, the mcpkit version folded into a valid local label."""
    label = re.sub(r"[^a-z0-9]+", ".", mcpkit_version.lower()).strip(".")
    if not label:
        raise ValueError(f"mcpkit version {mcpkit_version!r} gives no local version label")
    return f"{OFFICIAL_RELEASE}+mcpkit.{label}"


def wheel_name(distribution: str, version: str) -> str:
    """The wheel's file name (PEP 427: the name with `_` for `-`, any Python, any platform)."""
    return f"{distribution.replace('-', '_')}-{version}-py3-none-any.whl"


def _metadata(distribution: str, version: str, mcpkit_version: str) -> str:
    package = STAND_INS[distribution]
    return (
        "Metadata-Version: 2.1\n"
        f"Name: {distribution}\n"
        f"Version: {version}\n"
        f"Summary: The `{distribution}` requirement met by mcpkit (metadata only; `{package}` is in the mcpkit "
        "distribution).\n"
        "License: MIT\n"
        "Requires-Python: >=3.10\n"
        f"Requires-Dist: mcpkit=={mcpkit_version}\n"
        "\n"
        f"Written by `python -m mcp.stand_ins` from mcpkit {mcpkit_version}: it owns no file, and stands for the\n"
        f"official `{distribution}` {OFFICIAL_RELEASE} whose API mcpkit provides.\n"
    )


def _record_line(path: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{path},sha256={digest},{len(data)}"


def build_wheel(directory: Path, distribution: str, mcpkit_version: str) -> Path:
    """Write the stand-in wheel for `distribution` ("mcp" or "mcp-types") into `directory`."""
    version = stand_in_version(mcpkit_version)
    dist_info = f"{distribution.replace('-', '_')}-{version}.dist-info"
    files = {
        f"{dist_info}/METADATA": _metadata(distribution, version, mcpkit_version).encode(),
        f"{dist_info}/WHEEL": (
            f"Wheel-Version: 1.0\nGenerator: mcpkit {mcpkit_version}\nRoot-Is-Purelib: true\n"
            "Tag: py3-none-any\n"
        ).encode(),
    }
    record = [_record_line(path, data) for path, data in files.items()]
    files[f"{dist_info}/RECORD"] = ("\n".join([*record, f"{dist_info}/RECORD,,"]) + "\n").encode()
    wheel = directory / wheel_name(distribution, version)
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as archive:
        for path, data in files.items():
            entry = zipfile.ZipInfo(path, date_time=_EPOCH)
            entry.external_attr = 0o644 << 16
            archive.writestr(entry, data, zipfile.ZIP_DEFLATED)
    return wheel


def build_wheels(directory: Path, mcpkit_version: str) -> list[Path]:
    """Both stand-in wheels in `directory` (created if missing), `mcp` first."""
    directory.mkdir(parents=True, exist_ok=True)
    return [build_wheel(directory, distribution, mcpkit_version) for distribution in STAND_INS]
