"""The pin that keeps the stand-ins installed: a constraint on both names at their exact version.

pip's resolver (and uv's `uv pip`) weighs only the requirements of the command it runs, never
those of what is installed: asked for a library that needs `mcp<2`, it would uninstall the
metadata-only `mcp` and unpack the official files over mcpkit's. A constraint is the one thing
both honour on every install, so the pin is a constraints file in the environment, read from:

- pip: the environment's own `pip.conf` (`[install] constraint = ...`), which pip reads whenever
  it runs with that environment's Python;
- `uv pip`: uv reads no per-environment configuration, so the pin goes into `UV_CONSTRAINT` in the
  environment's activation scripts, and into the `uv.toml` beside it (`constraint-dependencies`)
  when the environment is a `.venv` whose directory has no uv configuration of its own; uv finds
  both that `.venv` and that `uv.toml` from the directory it runs in.

Files that are not ours are never rewritten: the line to add is printed instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from mcp.stand_ins.wheels import STAND_INS

MARK = "# written by mcpkit (python -m mcp.stand_ins)"
_OURS = "# written by mcpkit"  # also what the repository's shim/pin.py wrote before this command
CONSTRAINTS = "mcpkit-constraints.txt"
_ACTIVATE = {
    "activate": 'export UV_CONSTRAINT="{path}"',
    "activate.fish": 'set -gx UV_CONSTRAINT "{path}"',
    "activate.csh": 'setenv UV_CONSTRAINT "{path}"',
}


@dataclass
class PinFiles:
    """What pinning an environment writes (path to text), and what it leaves to the user."""

    writes: dict[Path, str] = field(default_factory=lambda: {})
    notes: list[str] = field(default_factory=lambda: [])


def constraint_lines(version: str) -> list[str]:
    """`mcp==<version>` and `mcp-types==<version>`."""
    return [f"{name}=={version}" for name in STAND_INS]


def plan_pin(prefix: Path, version: str, *, uv: bool) -> PinFiles:
    """The files that pin the stand-ins at `version` in the environment at `prefix`."""
    pin = PinFiles()
    constraints = prefix / CONSTRAINTS
    pin.writes[constraints] = f"{MARK}: mcpkit provides these two distributions\n" + "".join(
        line + "\n" for line in constraint_lines(version)
    )
    _plan_owned(
        pin,
        prefix / "pip.conf",
        f"{MARK}\n[install]\nconstraint = {constraints}\n",
        f"add `constraint = {constraints}` to its [install] section",
    )
    if uv:
        for script, line in _ACTIVATE.items():
            path = prefix / "bin" / script
            if path.is_file():
                text = path.read_text()
                kept = re.sub(rf"\n?{re.escape(MARK)}\n[^\n]*\n", "\n", text)
                pin.writes[path] = kept.rstrip("\n") + f"\n\n{MARK}\n{line.format(path=constraints)}\n"
        _plan_uv_toml(pin, prefix, version)
    return pin


def uv_toml_text(version: str) -> str:
    """A `uv.toml` that pins the stand-ins for `uv pip` run in its directory."""
    listed = ", ".join(f'"{line}"' for line in constraint_lines(version))
    return f"{MARK}: keeps mcpkit's `mcp` under `uv pip install`\nconstraint-dependencies = [{listed}]\n"


def _plan_uv_toml(pin: PinFiles, prefix: Path, version: str) -> None:
    home = prefix.parent
    toml = home / "uv.toml"
    if prefix.name != ".venv":
        pin.notes.append(
            f"uv pip reads the pin from UV_CONSTRAINT (set when the environment is activated) or "
            f"`-c {prefix / CONSTRAINTS}`"
        )
        return
    pyproject = home / "pyproject.toml"
    if not toml.exists() and pyproject.is_file() and "[tool.uv" in pyproject.read_text():
        pin.notes.append(
            f"{pyproject} configures uv: pin with `python -m mcp.stand_ins --project {home}` "
            "(a uv project), or `-c` on each `uv pip install`"
        )
        return
    _plan_owned(
        pin,
        toml,
        uv_toml_text(version),
        f"add `constraint-dependencies = [{', '.join(repr(c) for c in constraint_lines(version))}]`",
    )


def _plan_owned(pin: PinFiles, path: Path, text: str, otherwise: str) -> None:
    if path.exists() and _OURS not in path.read_text():
        pin.notes.append(f"{path} is not ours, so it is left as it is: {otherwise}")
    else:
        pin.writes[path] = text
