"""pip keeps mcpkit as the `mcp` (and `mcp-types`) that libraries require: one library installed
after it, several in one command, and refused with a resolver conflict when a library needs an
`mcp` older than the API we provide. Real pip runs in real venvs (tests/ecosystem/venvs.py)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from installs import metadata_only_wheel
from venvs import MCPKIT_VERSION, REPO, STAND_IN_VERSION, run

SCRIPTS = Path(__file__).parent / "scripts"
pytestmark = pytest.mark.timeout(900)


def which_mcp(python: Path) -> dict[str, Any]:
    done = run(python, str(SCRIPTS / "which_mcp.py"))
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("library", ["fastmcp", "openai-agents"])
def test_a_library_installed_after_mcpkit_imports_our_mcp(library: str, request: pytest.FixtureRequest) -> None:
    python: Path = request.getfixturevalue("fastmcp_python" if library == "fastmcp" else "agents_python")
    seen = which_mcp(python)
    site = Path(seen["prefix"]).resolve()
    assert Path(seen["mcp_file"]).resolve().is_relative_to(site)
    assert seen["mcp_version"] == seen["mcp_types_version"] == STAND_IN_VERSION
    assert STAND_IN_VERSION.startswith("2.3.0+mcpkit.")
    # the files of both import packages belong to mcpkit alone; the stand-ins own only metadata
    assert seen["mcp_owners"] == ["mcpkit"]
    assert seen["mcp_types_owners"] == ["mcpkit"]
    assert all(".dist-info/" in f for f in seen["mcp_files"])
    assert seen["requires_mcpkit"] == [f"mcpkit=={seen['mcpkit_version']}"]


def test_pip_check_finds_every_requirement_met(agents_python: Path, fastmcp_python: Path) -> None:
    for python in (agents_python, fastmcp_python):
        done = run(python, "-m", "pip", "check")
        assert done.returncode == 0, done.stdout + done.stderr


def test_the_libraries_installed_together_after_mcpkit_keep_our_mcp(together_python: Path) -> None:
    seen = which_mcp(together_python)
    assert seen["mcp_version"] == seen["mcp_types_version"] == STAND_IN_VERSION
    assert seen["mcp_owners"] == seen["mcp_types_owners"] == ["mcpkit"]
    done = run(together_python, "-c", "import fastmcp, agents.mcp, mcp; print(mcp.__file__)")
    assert done.returncode == 0, done.stderr
    assert Path(done.stdout.strip()).resolve() == Path(seen["mcp_file"]).resolve()


@pytest.fixture
def old_api_index(tmp_path: Path) -> Path:
    """A local index holding a library that needs `mcp<2` and an `mcp` 1.x release it could take."""
    metadata_only_wheel(tmp_path, "needs-old-mcp", "1.0", requires="mcp<2")
    metadata_only_wheel(tmp_path, "mcp", "1.26.0")
    return tmp_path


def test_a_library_needing_mcp_below_2_gets_a_resolver_conflict_and_ours_stays(agents_python: Path,
                                                                               old_api_index: Path) -> None:
    before = which_mcp(agents_python)
    done = run(agents_python, "-m", "pip", "install", "--no-index", "--find-links", str(old_api_index),
               "needs-old-mcp")
    assert done.returncode != 0
    said = done.stdout + done.stderr
    assert "ResolutionImpossible" in said
    assert "needs-old-mcp 1.0 depends on mcp<2" in said
    assert f"mcp=={STAND_IN_VERSION}" in said  # the pin, named as the cause
    assert which_mcp(agents_python) == before  # nothing replaced, nothing added


def test_without_the_pin_pip_would_replace_our_mcp_which_is_why_the_venv_has_one(agents_python: Path,
                                                                               old_api_index: Path) -> None:
    # no config file read (so not the venv's pip.conf): pip's resolver alone does not protect what is installed
    done = run(agents_python, "-m", "pip", "install", "--dry-run", "--no-index", "--find-links", str(old_api_index),
               "needs-old-mcp", env={"PIP_CONFIG_FILE": os.devnull})
    assert done.returncode == 0, done.stderr
    assert "Would install mcp-1.26.0 needs-old-mcp-1.0" in done.stdout
    assert (agents_python.parent.parent / "pip.conf").read_text().count("mcpkit-constraints.txt") == 1


def test_the_stand_ins_pin_the_mcpkit_release_they_stand_for(agents_python: Path) -> None:
    pyproject = (REPO / "pyproject.toml").read_text()
    version = next(line.split('"')[1] for line in pyproject.splitlines() if line.startswith("version = "))
    assert version == MCPKIT_VERSION
    assert f"2.3.0+mcpkit.{version}" == STAND_IN_VERSION
    assert which_mcp(agents_python)["requires_mcpkit"] == [f"mcpkit=={version}"]
