"""Fresh environments that install mcpkit from a wheel the way a user would, for the stand-ins tests.

The wheel is this checkout's (`pip wheel --no-deps`), built once per source digest into
`${MCPKIT_ECOSYSTEM_HOME}/wheels/<digest>/`; uv comes from PyPI, at a fixed version, into a tools
venv of its own in the same cache, with its package cache beside it (`UV_CACHE_DIR`) so that a
second run downloads nothing. The environments themselves are made fresh under the test's tmp.
"""

from __future__ import annotations

import base64
import fcntl
import hashlib
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

from venvs import HOME, REPO, clean_env, source_digest

UV = "uv==0.13.9"


def _locked_build(name: str, target: Path, build: list[list[str]], log: Path) -> None:
    HOME.mkdir(parents=True, exist_ok=True)
    with (HOME / f"{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (target / ".done").exists():
            return
        shutil.rmtree(target, ignore_errors=True)
        for old in HOME.glob(f"{name}-*"):  # superseded keys
            shutil.rmtree(old, ignore_errors=True)
        target.mkdir(parents=True)
        with log.open("w") as out:
            for command in build:
                done = subprocess.run(command, stdout=out, stderr=subprocess.STDOUT, env=clean_env(), timeout=900)
                if done.returncode != 0:
                    raise RuntimeError(f"{' '.join(command)} failed:\n{log.read_text()[-3000:]}")
        (target / ".done").write_text("")


def mcpkit_wheel() -> Path:
    """This checkout's mcpkit wheel, built once per source digest."""
    pyproject = hashlib.sha256((REPO / "pyproject.toml").read_bytes()).hexdigest()[:8]
    target = HOME / f"wheels-{source_digest()}{pyproject}"
    _locked_build("wheels", target, [[sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w",
                                      str(target), str(REPO)]], HOME / "wheels.log")
    return next(target.glob("mcpkit-*.whl"))


def uv_executable() -> Path:
    """uv from PyPI, in a cached tools venv."""
    target = HOME / f"uv-tool-{UV.replace('==', '-')}"
    _locked_build("uv-tool", target, [[sys.executable, "-m", "venv", str(target)],
                                      [str(target / "bin" / "python"), "-m", "pip", "install", "--quiet", UV]],
                  HOME / "uv-tool.log")
    return target / "bin" / "uv"


def uv_env(uv: Path) -> dict[str, str]:
    """The environment for uv and what it runs: its cache in ours, uv on PATH, no user-level uv.toml
    (an empty config home; `UV_NO_CONFIG` would also hide the `uv.toml` the command writes)."""
    env = clean_env()
    (HOME / "uv-config").mkdir(parents=True, exist_ok=True)
    env.update(UV_CACHE_DIR=str(HOME / "uv-cache"), XDG_CONFIG_HOME=str(HOME / "uv-config"),
               PATH=f"{uv.parent}:{env.get('PATH', '')}")
    env.pop("UV_CONSTRAINT", None)
    return env


def metadata_only_wheel(directory: Path, name: str, version: str, requires: str | None = None) -> Path:
    """A wheel with nothing but its metadata (a stand-in for a release on an index)."""
    dist_info = f"{name.replace('-', '_')}-{version}.dist-info"
    metadata = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
    files = {
        f"{dist_info}/METADATA": metadata + (f"Requires-Dist: {requires}\n" if requires else ""),
        f"{dist_info}/WHEEL": "Wheel-Version: 1.0\nGenerator: mcpkit-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record: list[str] = []
    for path, text in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
        record.append(f"{path},sha256={digest},{len(text.encode())}")
    files[f"{dist_info}/RECORD"] = "\n".join([*record, f"{dist_info}/RECORD,,"]) + "\n"
    wheel = directory / f"{name.replace('-', '_')}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for path, text in files.items():
            archive.writestr(path, text)
    return wheel


def conflicting_index(directory: Path) -> Path:
    """A local index of libraries that cannot have our `mcp`, and the official-looking releases they want:
    `mcpkit-probe-needs-old-mcp` (mcp<2) and `mcpkit-probe-pins-official` (mcp===2.3.0, the official
    release's exact string), beside `mcpkit-probe-pins-2-3` (mcp==2.3.0, which ours meets)."""
    directory.mkdir(parents=True, exist_ok=True)
    metadata_only_wheel(directory, "mcpkit-probe-needs-old-mcp", "1.0", requires="mcp<2")
    metadata_only_wheel(directory, "mcpkit-probe-pins-official", "1.0", requires="mcp===2.3.0")
    metadata_only_wheel(directory, "mcpkit-probe-pins-2-3", "1.0", requires="mcp==2.3.0")
    metadata_only_wheel(directory, "mcp", "1.26.0")
    metadata_only_wheel(directory, "mcp", "2.3.0")
    return directory


def files_digest(site: Path) -> str:
    """One digest of every file of the `mcp` and `mcp_types` packages (names and bytes)."""
    digest = hashlib.sha256()
    for package in ("mcp", "mcp_types"):
        for path in sorted((site / package).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                digest.update(str(path.relative_to(site)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()
