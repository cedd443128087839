"""What `python -m mcp.stand_ins` does, planned first (so `--print` can show it) and then carried out.

Three ways to install, one per kind of environment:

- `pip`: a virtual environment that has pip; the wheels are installed with pip and pinned in the
  environment's `pip.conf`.
- `uv`: a virtual environment that has no pip (as `uv venv` makes it), or when asked; `uv pip
  install --python <this interpreter>`, pinned for later `uv pip` runs (see `mcp.stand_ins.pin`).
- `uv project`: a uv project (a `pyproject.toml` beside `uv.lock`, or `--project DIR`); `uv sync`
  removes what the lock does not name, so the stand-ins become dependencies of the project, with
  `[tool.uv.sources]` pointing at the wheels written under the project (`uv add` writes both).

The wheels are written under the environment (or the project), not a temporary directory: pip and
uv record where an installed distribution came from, and uv's lock refers to the files.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, distribution, version
from pathlib import Path

from mcp.stand_ins.pin import CONSTRAINTS, PinFiles, plan_pin
from mcp.stand_ins.wheels import STAND_INS, build_wheels, stand_in_version, wheel_name

WHEELS_DIR = "mcpkit-stand-ins"


class StandInsError(Exception):
    """Something the user can fix; nothing was changed."""


@dataclass
class Plan:
    """Everything one run does: where, with which installer, the files and the commands."""

    installer: str
    target: Path
    mcpkit_version: str
    wheels_dir: Path
    commands: list[list[str]] = field(default_factory=lambda: [])
    pin: PinFiles = field(default_factory=PinFiles)
    snippet: str = ""
    cwd: Path | None = None

    @property
    def version(self) -> str:
        return stand_in_version(self.mcpkit_version)


def installed_mcpkit() -> str:
    """The version of the mcpkit installed in this environment (the stand-ins require exactly it)."""
    try:
        found = distribution("mcpkit")
    except PackageNotFoundError:
        found = None
    where = Path(str(found.locate_file(""))).resolve() if found is not None else None
    if found is None or where is None or not where.is_relative_to(Path(sys.prefix).resolve()):
        seen = f" (one is importable from {where}, outside {sys.prefix})" if where is not None else ""
        raise StandInsError(
            f"mcpkit is not installed in this environment{seen}: install mcpkit first, then run this with the "
            "same Python (nothing was changed)"
        )
    return found.version


def _refuse_official() -> None:
    for name in STAND_INS:
        try:
            found = version(name)
        except PackageNotFoundError:
            continue
        if "+mcpkit." not in found:
            raise StandInsError(
                f"the official `{name}` {found} is installed here, and its files are mcpkit's too: "
                f"`pip uninstall mcp mcp-types`, then `pip install --force-reinstall --no-deps mcpkit`, then run this "
                "again (nothing was changed)"
            )


def find_uv() -> str:
    """The uv executable: the one running us (`uv run` sets $UV), else on PATH, else beside this Python."""
    for candidate in (os.environ.get("UV"), shutil.which("uv"), str(Path(sys.executable).parent / "uv")):
        if candidate and Path(candidate).is_file():
            return candidate
    raise StandInsError(
        "uv was asked for (or this environment has no pip) but no `uv` executable was found: "
        "install uv, or pip into this environment"
    )


def _uv_project_of(prefix: Path) -> Path | None:
    home = prefix.parent
    return home if (home / "pyproject.toml").is_file() and (home / "uv.lock").is_file() else None


def plan(installer: str | None = None, project: Path | None = None) -> Plan:
    """The plan for this interpreter's environment; `installer` is "pip", "uv" or None (detect)."""
    mcpkit = installed_mcpkit()
    prefix = Path(sys.prefix).resolve()
    if project is None and installer is None:
        project = _uv_project_of(prefix)
    if project is not None:
        return _plan_project(project.resolve(), mcpkit)
    if sys.prefix == sys.base_prefix:
        raise StandInsError(
            f"{sys.executable} is not in a virtual environment: the pin belongs to one "
            "(`python -m venv .venv` or `uv venv`, install mcpkit there, run this with its Python)"
        )
    _refuse_official()
    if installer is None:
        installer = "pip" if importlib.util.find_spec("pip") is not None else "uv"
    wheels_dir = prefix / WHEELS_DIR
    done = Plan(
        installer,
        prefix,
        mcpkit,
        wheels_dir,
        pin=plan_pin(prefix, stand_in_version(mcpkit), uv=installer == "uv"),
    )
    wheels = [str(wheels_dir / wheel_name(name, done.version)) for name in STAND_INS]
    # offline, and no dependency resolution: their one requirement, mcpkit==<version>, is checked above
    constraint = ["--constraint", str(prefix / CONSTRAINTS)]
    if installer == "pip":
        done.commands.append(
            [
                sys.executable,
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                "--no-index",
                "--no-deps",
                *constraint,
                *wheels,
            ]
        )
    else:
        done.commands.append(
            [
                find_uv(),
                "pip",
                "install",
                "--quiet",
                "--python",
                sys.executable,
                "--no-index",
                "--no-deps",
                *constraint,
                *wheels,
            ]
        )
    return done


def project_snippet(wheels: list[str]) -> str:
    """The pyproject.toml lines that make a uv project take the stand-ins (what `uv add` writes)."""
    names = list(STAND_INS)
    sources = "".join(f'{name} = {{ path = "{wheel}" }}\n' for name, wheel in zip(names, wheels, strict=True))
    return (
        f'[project]\ndependencies = [\n    # ...your dependencies, and:\n    "{names[0]}",\n    "{names[1]}",\n]\n\n'
        f"[tool.uv.sources]\n{sources}"
    )


def _plan_project(project: Path, mcpkit: str) -> Plan:
    if not (project / "pyproject.toml").is_file():
        raise StandInsError(f"{project} has no pyproject.toml: not a uv project (`uv init` makes one)")
    wheels_dir = project / WHEELS_DIR
    done = Plan("uv project", project, mcpkit, wheels_dir, cwd=project)
    wheels = [f"{WHEELS_DIR}/{wheel_name(name, done.version)}" for name in STAND_INS]
    # run in the project with relative paths, so that pyproject.toml names the wheels relatively
    done.commands.append([find_uv(), "add", "--quiet", *wheels])
    done.snippet = project_snippet(wheels)
    return done


def describe(done: Plan) -> str:
    """What `done` does, as `--print` shows it."""
    lines = [
        f"# mcpkit {done.mcpkit_version}: stand-ins mcp and mcp-types {done.version}, with {done.installer}, "
        f"into {done.target}",
        f"# write {done.wheels_dir}/ ({', '.join(wheel_name(n, done.version) for n in STAND_INS)})",
    ]
    lines += [
        f"# write {path}:\n" + "".join(f"    {line}\n" for line in text.splitlines()).rstrip("\n")
        for path, text in done.pin.writes.items()
    ]
    cd = f"cd {done.cwd} && " if done.cwd else ""
    lines += [cd + " ".join(command) for command in done.commands]
    if done.snippet:
        lines.append(
            "# which leaves in pyproject.toml (or write it by hand, then `uv sync`):\n"
            + done.snippet.rstrip()
        )
    lines += [f"# note: {note}" for note in done.pin.notes]
    return "\n".join(lines)


def carry_out(done: Plan) -> None:
    """Write the wheels and the pin, then run the installer. When the installer fails, every file
    written here is put back as it was (the installer itself changes nothing on failure), and
    `StandInsError` says what failed."""
    made_wheels_dir = not done.wheels_dir.exists()
    before = {path: path.read_text() if path.exists() else None for path in done.pin.writes}
    try:
        build_wheels(done.wheels_dir, done.mcpkit_version)
        for path, text in done.pin.writes.items():
            path.write_text(text)
        for command in done.commands:
            finished = subprocess.run(command, check=False, cwd=done.cwd)
            if finished.returncode != 0:
                raise StandInsError(
                    f"`{' '.join(command)}` failed (exit status {finished.returncode}); "
                    "the files written for it were taken back"
                )
    except BaseException:
        for path, text in before.items():
            if text is None:
                path.unlink(missing_ok=True)
            else:
                path.write_text(text)
        if made_wheels_dir:
            shutil.rmtree(done.wheels_dir, ignore_errors=True)
        raise
