"""`python -m mcp.stand_ins` from an installed mcpkit wheel (no repository): the documented
installs with pip in a venv, with `uv pip`, and in a uv project, each in a fresh environment under
tmp. In each, a library that accepts mcp 2.x installs and keeps ours, and one that needs `mcp<2`
or the official release's exact `===2.3.0` is refused by the installer, naming the pin, with our
files byte for byte unchanged; removing the stand-ins never removes mcpkit's files. Real pip and
uv against PyPI (the libraries and mcpkit's dependencies; cached), conflicts from a local index."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from installs import conflicting_index, files_digest, mcpkit_wheel, uv_env, uv_executable
from venvs import AGENTS, FASTMCP, HAS_PYDANTIC_AI, PYDANTIC_AI, STAND_IN_VERSION, clean_env, run

SCRIPTS = Path(__file__).parent / "scripts"
pytestmark = pytest.mark.timeout(900)


def which_mcp(python: Path, env: dict[str, str] | None = None, cwd: Path | None = None) -> dict[str, Any]:
    done = subprocess.run([str(python), str(SCRIPTS / "which_mcp.py")], capture_output=True, text=True,
                          env=env or clean_env(), cwd=cwd, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def ours(python: Path, env: dict[str, str] | None = None) -> tuple[str, dict[str, Any]]:
    """The digest of our `mcp`/`mcp_types` files, and which_mcp's view, asserting they are mcpkit's."""
    seen = which_mcp(python, env)
    assert seen["mcp_version"] == seen["mcp_types_version"] == STAND_IN_VERSION
    assert seen["mcp_owners"] == seen["mcp_types_owners"] == ["mcpkit"]
    assert all(".dist-info/" in f for f in seen["mcp_files"])
    return files_digest(Path(seen["mcp_file"]).parents[1]), seen


def sh(*command: str | Path, env: dict[str, str], cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(c) for c in command], capture_output=True, text=True, env=env, cwd=cwd, timeout=600)


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return conflicting_index(tmp_path_factory.mktemp("index"))


@pytest.fixture(scope="module")
def uv() -> Path:
    return uv_executable()


# -- pip in a venv ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def pip_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`python -m venv`, `pip install mcpkit-*.whl`, `python -m mcp.stand_ins`: the README's steps."""
    venv = tmp_path_factory.mktemp("pip") / ".venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, env=clean_env(), timeout=300)
    python = venv / "bin" / "python"
    done = run(python, "-m", "pip", "install", "--quiet", str(mcpkit_wheel()), timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    done = run(python, "-m", "mcp.stand_ins")
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{STAND_IN_VERSION} (metadata only" in done.stdout and "with pip" in done.stdout
    return python


def test_pip_installs_pinned_stand_ins_that_own_no_file(pip_venv: Path) -> None:
    ours(pip_venv)
    venv = pip_venv.parents[1]
    assert f"constraint = {venv / 'mcpkit-constraints.txt'}" in (venv / "pip.conf").read_text()
    assert run(pip_venv, "-m", "pip", "check").returncode == 0


@pytest.mark.parametrize(("library", "wants"), [("mcpkit-probe-needs-old-mcp", "mcp<2"),
                                                ("mcpkit-probe-pins-official", "mcp===2.3.0")])
def test_pip_refuses_a_library_that_cannot_have_our_mcp_and_changes_nothing(pip_venv: Path, index: Path,
                                                                            library: str, wants: str) -> None:
    before = ours(pip_venv)
    done = run(pip_venv, "-m", "pip", "install", "--no-index", "--find-links", str(index), library)
    assert done.returncode != 0
    said = done.stdout + done.stderr
    assert "ResolutionImpossible" in said and f"{library} 1.0 depends on {wants}" in said
    assert f"mcp=={STAND_IN_VERSION}" in said  # the pin, named as the cause
    assert ours(pip_venv) == before


def test_pip_takes_a_library_pinning_mcp_2_3_0_with_ours_which_is_that_release(pip_venv: Path, index: Path) -> None:
    """PEP 440: `==2.3.0` ignores a candidate's local label, so ours (2.3.0+mcpkit...) meets it."""
    before = ours(pip_venv)
    done = run(pip_venv, "-m", "pip", "install", "--no-index", "--find-links", str(index), "mcpkit-probe-pins-2-3")
    assert done.returncode == 0, done.stdout + done.stderr
    assert ours(pip_venv) == before
    assert run(pip_venv, "-m", "pip", "uninstall", "--yes", "mcpkit-probe-pins-2-3").returncode == 0


def test_uninstalling_the_stand_ins_leaves_every_mcpkit_file(pip_venv: Path) -> None:
    digest, seen = ours(pip_venv)
    site = Path(seen["mcp_file"]).parents[1]
    done = run(pip_venv, "-m", "pip", "uninstall", "--yes", "mcp", "mcp-types")
    assert done.returncode == 0, done.stderr
    assert run(pip_venv, "-c", "import importlib.metadata as m; m.version('mcp')").returncode != 0
    assert files_digest(site) == digest
    assert run(pip_venv, "-c", "import mcp.server, mcp_types").returncode == 0
    again = run(pip_venv, "-m", "mcp.stand_ins")  # and back, as before
    assert again.returncode == 0, again.stderr
    assert ours(pip_venv)[0] == digest


def test_with_the_official_mcp_installed_it_refuses_and_changes_nothing(pip_venv: Path, index: Path) -> None:
    venv = pip_venv.parents[1]
    digest = ours(pip_venv)[0]
    conf = (venv / "pip.conf").read_text()
    no_pin = {"PIP_CONFIG_FILE": os.devnull}
    # the official-looking mcp 2.3.0 (metadata only here, so swapping it in and out touches no file;
    # `===`: `==2.3.0` is met by ours already)
    done = run(pip_venv, "-m", "pip", "install", "--no-index", "--find-links", str(index), "--no-deps", "mcp===2.3.0",
               env=no_pin)
    assert done.returncode == 0, done.stderr
    try:
        refused = run(pip_venv, "-m", "mcp.stand_ins")
        assert refused.returncode == 1
        assert "the official `mcp` 2.3.0 is installed here" in refused.stderr
        assert (venv / "pip.conf").read_text() == conf
    finally:
        assert run(pip_venv, "-m", "pip", "uninstall", "--yes", "mcp", env=no_pin).returncode == 0
        assert run(pip_venv, "-m", "mcp.stand_ins").returncode == 0
    assert ours(pip_venv)[0] == digest


# -- uv pip ----------------------------------------------------------------------------------------


def test_uv_pip_venv_gets_the_stand_ins_and_keeps_ours_under_the_libraries_and_refuses_mcp_below_2(
        uv: Path, index: Path, tmp_path: Path) -> None:
    env = uv_env(uv)
    assert sh(uv, "venv", "--quiet", "--python", sys.executable, env=env, cwd=tmp_path).returncode == 0
    python = tmp_path / ".venv" / "bin" / "python"
    done = sh(uv, "pip", "install", "--quiet", mcpkit_wheel(), env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    done = sh(python, "-m", "mcp.stand_ins", env=env, cwd=tmp_path)  # no pip here: uv is chosen
    assert done.returncode == 0, done.stderr
    assert "with uv into" in done.stdout
    assert "constraint-dependencies" in (tmp_path / "uv.toml").read_text()
    digest = ours(python, env)[0]
    libraries = [FASTMCP, AGENTS, *([PYDANTIC_AI] if HAS_PYDANTIC_AI else [])]
    done = sh(uv, "pip", "install", "--quiet", *libraries, env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert ours(python, env)[0] == digest
    assert sh(uv, "pip", "check", env=env, cwd=tmp_path).returncode == 0
    # from the venv's directory (uv.toml), and activated from anywhere else (UV_CONSTRAINT)
    refused = sh(uv, "pip", "install", "--no-index", "--find-links", index, "mcpkit-probe-needs-old-mcp", env=env,
                 cwd=tmp_path)
    activated = sh("bash", "-c", f'source "{tmp_path}/.venv/bin/activate" && uv pip install --no-index '
                   f'--find-links "{index}" mcpkit-probe-pins-official', env=env, cwd=index)
    for done, wants in ((refused, "mcp<2"), (activated, "mcp==2.3.0")):
        assert done.returncode != 0
        assert "No solution found" in done.stderr and wants in done.stderr, done.stderr
        assert f"mcp=={STAND_IN_VERSION}" in done.stderr
    assert ours(python, env)[0] == digest


# -- a uv project ----------------------------------------------------------------------------------


def test_a_uv_project_takes_the_stand_ins_as_sourced_dependencies_and_refuses_mcp_below_2(
        uv: Path, index: Path, tmp_path: Path) -> None:
    env = uv_env(uv)
    project = tmp_path / "app"
    assert sh(uv, "init", "--quiet", "--bare", "--name", "app", "--python", sys.executable, project,
              env=env).returncode == 0
    done = sh(uv, "add", "--quiet", mcpkit_wheel(), env=env, cwd=project)
    assert done.returncode == 0, done.stderr
    done = sh(uv, "run", "python", "-m", "mcp.stand_ins", env=env, cwd=project)  # the project is found
    assert done.returncode == 0, done.stderr
    assert "with uv project into" in done.stdout
    pyproject = (project / "pyproject.toml").read_text()
    assert f'mcp = {{ path = "mcpkit-stand-ins/mcp-{STAND_IN_VERSION}-py3-none-any.whl" }}' in pyproject
    done = sh(uv, "add", "--quiet", FASTMCP, env=env, cwd=project)
    assert done.returncode == 0, done.stderr
    python = project / ".venv" / "bin" / "python"
    digest = ours(python, env)[0]
    pyproject = (project / "pyproject.toml").read_text()
    lock = (project / "uv.lock").read_text()
    done = sh(uv, "add", "--find-links", index, "mcpkit-probe-needs-old-mcp", env=env, cwd=project)
    assert done.returncode != 0
    assert "No solution found" in done.stderr and "mcp<2" in done.stderr, done.stderr
    assert (project / "pyproject.toml").read_text() == pyproject and (project / "uv.lock").read_text() == lock
    assert ours(python, env)[0] == digest


def test_print_shows_the_plan_and_the_uv_project_snippet_and_changes_nothing(pip_venv: Path, tmp_path: Path) -> None:
    venv = pip_venv.parents[1]
    before = (venv / "pip.conf").read_text()
    done = run(pip_venv, "-m", "mcp.stand_ins", "--print")
    assert done.returncode == 0, done.stderr
    assert "-m pip install" in done.stdout and "mcpkit-constraints.txt" in done.stdout
    command = run(venv / "bin" / "mcp", "stand-ins", "--print")  # the console script, without the cli extra
    assert command.returncode == 0, command.stderr
    assert command.stdout == done.stdout
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "app"\nversion = "0"\n')
    done = run(pip_venv, "-m", "mcp.stand_ins", "--project", str(tmp_path), "--print",
               env={"UV": str(pip_venv)})  # any file stands for uv: nothing is run
    assert done.returncode == 0, done.stderr
    assert "[tool.uv.sources]" in done.stdout and f"mcp-{STAND_IN_VERSION}-py3-none-any.whl" in done.stdout
    assert (venv / "pip.conf").read_text() == before and not (tmp_path / "mcpkit-stand-ins").exists()


def test_with_mcpkit_importable_but_not_installed_here_it_says_so_and_changes_nothing(uv: Path,
                                                                                   tmp_path: Path) -> None:
    env = uv_env(uv)
    assert sh(uv, "venv", "--quiet", "--python", sys.executable, tmp_path / "bare", env=env).returncode == 0
    wheel = mcpkit_wheel()
    done = sh(tmp_path / "bare" / "bin" / "python", "-m", "mcp.stand_ins",
              env={**env, "PYTHONPATH": str(wheel)}, cwd=tmp_path)  # mcp importable, mcpkit not installed
    assert done.returncode == 1
    assert "mcpkit is not installed in this environment (one is importable from" in done.stderr
    assert not (tmp_path / "bare" / "pip.conf").exists() and not (tmp_path / "bare" / "mcpkit-stand-ins").exists()


def test_when_the_installer_fails_every_file_it_wrote_is_taken_back(pip_venv: Path) -> None:
    venv = pip_venv.parents[1]
    before = {path: path.read_text() for path in (venv / "pip.conf", venv / "bin" / "activate")}
    done = run(pip_venv, "-m", "mcp.stand_ins", "--uv", env={"UV": "/bin/false"})  # a uv that fails
    assert done.returncode == 1
    assert "/bin/false pip install" in done.stderr and "taken back" in done.stderr
    assert {path: path.read_text() for path in before} == before
    assert not (venv.parent / "uv.toml").exists()
