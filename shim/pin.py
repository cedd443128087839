"""Pin the `mcp` and `mcp-types` stand-ins in a virtual environment, so pip keeps mcpkit there.

    python shim/pin.py VENV

pip's resolver weighs only the requirements of the command it runs, never those of what is
installed: asked for a library that needs `mcp<2`, it would uninstall our metadata-only `mcp` and
unpack the official files over mcpkit's. A constraint is the one thing pip honours on every
install, so this writes `VENV/mcpkit-constraints.txt` (both names at the stand-ins' exact version)
and points `VENV/pip.conf` (pip's per-environment config) at it. From then on such an install
stops with pip's ResolutionImpossible naming the constraint, and a library that accepts mcp 2.x
gets ours. Run it before installing the stand-ins (so an upgrade of them is allowed) and after
creating the venv; `./dev setup` and tests/ecosystem do. A pip.conf that is not ours is left as it
is (with a note): the pin then has to be added by hand.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

SHIM = Path(__file__).resolve().parent
MARK = "# written by mcpkit's shim/pin.py"


def stand_in_version() -> str:
    """The version both stand-ins carry (shim/mcp/pyproject.toml; shim/mcp-types must agree)."""
    versions = {
        re.search(r'^version = "([^"]+)"', (SHIM / name / "pyproject.toml").read_text(), re.M).group(1)  # type: ignore[union-attr]
        for name in ("mcp", "mcp-types")
    }
    if len(versions) != 1:
        raise SystemExit(f"shim/mcp and shim/mcp-types disagree on their version: {sorted(versions)}")
    return versions.pop()


def pin(venv: Path) -> Path:
    """Write the constraints and the pip.conf that uses them into `venv`; return the constraints file."""
    version = stand_in_version()
    constraints = venv / "mcpkit-constraints.txt"
    constraints.write_text(
        f"{MARK}: mcpkit provides these two distributions (see shim/README.md)\n"
        f"mcp=={version}\nmcp-types=={version}\n"
    )
    conf = venv / "pip.conf"
    if conf.exists() and MARK not in conf.read_text():
        print(f"pin: {conf} is not ours; add `constraint = {constraints}` to its [install] section", file=sys.stderr)
        return constraints
    conf.write_text(f"{MARK}\n[install]\nconstraint = {constraints}\n")
    return constraints


if __name__ == "__main__":
    if len(sys.argv) != 2 or not (Path(sys.argv[1]) / "pyvenv.cfg").is_file():
        raise SystemExit("usage: python shim/pin.py VENV   (a virtual environment's directory)")
    pin(Path(sys.argv[1]).resolve())
