"""The stand-ins' parts in this process: the wheels they are (metadata only, reproducible), the pin
files each installer reads, the plan `--print` shows, and the refusals that change nothing. The
installs themselves, with real pip and uv in fresh environments, are tests/ecosystem's
test_stand_ins_from_an_installed_wheel.py."""

from __future__ import annotations

import email
import hashlib
import sys
import zipfile
from pathlib import Path

import pytest

from mcp.stand_ins import main
from mcp.stand_ins.installer import Plan, StandInsError, carry_out, plan, project_snippet
from mcp.stand_ins.pin import MARK, plan_pin
from mcp.stand_ins.wheels import build_wheels, stand_in_version


def test_each_wheel_holds_only_its_metadata_and_requires_the_exact_mcpkit(tmp_path: Path) -> None:
    wheels = build_wheels(tmp_path, "0.1.0")
    assert [w.name for w in wheels] == ["mcp-2.3.0+mcpkit.0.1.0-py3-none-any.whl",
                                        "mcp_types-2.3.0+mcpkit.0.1.0-py3-none-any.whl"]
    for wheel, name in zip(wheels, ("mcp", "mcp-types"), strict=True):
        with zipfile.ZipFile(wheel) as archive:
            names = archive.namelist()
            dist_info = f"{name.replace('-', '_')}-2.3.0+mcpkit.0.1.0.dist-info"
            assert names == [f"{dist_info}/METADATA", f"{dist_info}/WHEEL", f"{dist_info}/RECORD"]
            metadata = email.message_from_bytes(archive.read(f"{dist_info}/METADATA"))
            assert (metadata["Name"], metadata["Version"]) == (name, "2.3.0+mcpkit.0.1.0")
            assert metadata.get_all("Requires-Dist") == ["mcpkit==0.1.0"]
            record = archive.read(f"{dist_info}/RECORD").decode().splitlines()
            assert [line.split(",")[0] for line in record] == names


def test_the_wheels_are_byte_for_byte_the_same_when_rebuilt(tmp_path: Path) -> None:
    first = [hashlib.sha256(w.read_bytes()).hexdigest() for w in build_wheels(tmp_path / "a", "0.1.0")]
    again = [hashlib.sha256(w.read_bytes()).hexdigest() for w in build_wheels(tmp_path / "b", "0.1.0")]
    assert first == again


@pytest.mark.parametrize(("mcpkit", "version"), [("0.1.0", "2.3.0+mcpkit.0.1.0"),
                                                 ("1.2.0rc1", "2.3.0+mcpkit.1.2.0rc1"),
                                                 ("0.2.0.dev3+g1a2b", "2.3.0+mcpkit.0.2.0.dev3.g1a2b")])
def test_the_version_reads_official_release_then_mcpkit_release(mcpkit: str, version: str) -> None:
    assert stand_in_version(mcpkit) == version


def test_pip_reads_the_pin_from_the_environments_pip_conf(tmp_path: Path) -> None:
    pin = plan_pin(tmp_path, "2.3.0+mcpkit.0.1.0", uv=False)
    constraints = tmp_path / "mcpkit-constraints.txt"
    assert pin.writes[constraints].splitlines()[1:] == ["mcp==2.3.0+mcpkit.0.1.0", "mcp-types==2.3.0+mcpkit.0.1.0"]
    assert pin.writes[tmp_path / "pip.conf"] == f"{MARK}\n[install]\nconstraint = {constraints}\n"
    assert set(pin.writes) == {constraints, tmp_path / "pip.conf"} and pin.notes == []


def test_uv_reads_it_from_the_activation_scripts_and_a_uv_toml_beside_dot_venv(tmp_path: Path) -> None:
    venv = tmp_path / ".venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "activate").write_text("# uv's activate\n")
    pin = plan_pin(venv, "2.3.0+mcpkit.0.1.0", uv=True)
    activate = pin.writes[venv / "bin" / "activate"]
    assert activate.endswith(f'{MARK}\nexport UV_CONSTRAINT="{venv / "mcpkit-constraints.txt"}"\n')
    (venv / "bin" / "activate").write_text(activate)  # run twice: one line, not two
    assert plan_pin(venv, "2.3.0+mcpkit.0.1.0", uv=True).writes[venv / "bin" / "activate"].count(MARK) == 1
    assert 'constraint-dependencies = ["mcp==2.3.0+mcpkit.0.1.0", "mcp-types==2.3.0+mcpkit.0.1.0"]' in (
        pin.writes[tmp_path / "uv.toml"])


def test_a_pin_file_that_is_not_ours_is_left_alone_with_the_line_to_add(tmp_path: Path) -> None:
    (tmp_path / ".venv").mkdir()
    (tmp_path / ".venv" / "pip.conf").write_text("[global]\ntimeout = 5\n")
    (tmp_path / "uv.toml").write_text("native-tls = true\n")
    pin = plan_pin(tmp_path / ".venv", "2.3.0+mcpkit.0.1.0", uv=True)
    assert set(pin.writes) == {tmp_path / ".venv" / "mcpkit-constraints.txt"}
    assert [note.split(" is not ours")[0] for note in pin.notes] == [str(tmp_path / ".venv" / "pip.conf"),
                                                                    str(tmp_path / "uv.toml")]
    assert "constraint = " in pin.notes[0] and "constraint-dependencies" in pin.notes[1]


def test_a_uv_configured_project_beside_the_venv_is_pointed_at_project_mode(tmp_path: Path) -> None:
    (tmp_path / ".venv").mkdir()
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "a"\n[tool.uv]\ndev-dependencies = []\n')
    pin = plan_pin(tmp_path / ".venv", "2.3.0+mcpkit.0.1.0", uv=True)
    assert tmp_path / "uv.toml" not in pin.writes
    assert "--project" in pin.notes[0]


def test_the_project_snippet_names_both_wheels_as_sources() -> None:
    snippet = project_snippet(["w/mcp.whl", "w/mcp_types.whl"])
    assert '"mcp",\n    "mcp-types",' in snippet
    assert 'mcp = { path = "w/mcp.whl" }\nmcp-types = { path = "w/mcp_types.whl" }\n' in snippet


def test_print_in_this_environment_shows_the_pip_plan_and_writes_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    if sys.prefix == sys.base_prefix:
        pytest.skip("the tests run outside a virtual environment")
    assert main(["--pip", "--print"]) == 0
    shown = capsys.readouterr().out
    assert f"{sys.executable} -m pip install --quiet" in shown and "--no-deps" in shown
    assert f"# write {Path(sys.prefix).resolve() / 'pip.conf'}:" in shown


def test_a_project_without_pyproject_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--project", str(tmp_path), "--print"], prog="mcp stand-ins") == 1
    assert capsys.readouterr().err == f"mcp stand-ins: {tmp_path} has no pyproject.toml: not a uv project (`uv init` makes one)\n"
    with pytest.raises(StandInsError, match="not a uv project"):
        plan(project=tmp_path)


def test_a_failed_install_takes_back_every_file_it_wrote(tmp_path: Path) -> None:
    (tmp_path / "pip.conf").write_text(f"{MARK}\n[install]\nconstraint = old\n")
    done = Plan("pip", tmp_path, "0.1.0", tmp_path / "wheels", pin=plan_pin(tmp_path, "2.3.0+mcpkit.0.1.0", uv=False))
    done.commands.append([sys.executable, "-c", "raise SystemExit(3)"])
    with pytest.raises(StandInsError, match="exit status 3"):
        carry_out(done)
    assert (tmp_path / "pip.conf").read_text() == f"{MARK}\n[install]\nconstraint = old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pip.conf"]
