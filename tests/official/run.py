"""Run the official SDK's own black-box suites against our package.

The mcp 2.3.0 sdist on PyPI ships `tests/interaction` ("one test per piece of functionality ... so
that internal rewrites can be proven equivalent") and `tests/issues` (regressions users reported).
This script downloads that sdist by name and version (checked against its published sha256, cached
under ${MCP_COMPAT_HOME:-~/.cache/mcp-compat}, never committed), unpacks only those two folders and
the helper they import, replaces the sdist's root conftest with ours (`suite_conftest.py`: the
public fixtures only), and runs them with this interpreter, so the `mcp` under test is ours.

The verdict is per test id, read from pytest's JUnit report:
- a test listed in `divergences.txt` (reasoned, at most 15) or `known-failures.txt` (the work still
  to do; a list that only shrinks) may fail;
- any other failure fails the run;
- a listed test that passes fails the run too (unless a selection was passed), so a fixed test
  leaves the known list in the same commit.

Usage: python tests/official/run.py [pytest args, e.g. -k prompts or a test id]
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import xml.etree.ElementTree as ElementTree
from pathlib import Path

VERSION = "2.3.0"
SDIST_SHA256 = "8b147a50441cf059dc88c684e0aeed3687f0aa0f39c6cde7b90330effd2b34d8"
HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
#: What we take from the sdist's tests/ folder.
TAKEN = ("interaction", "issues", "_stamp.py", "__init__.py")
MAX_DIVERGENCES = 15

# The sdist's own pytest settings, less its plugins for the docs and examples, which it does not run.
PYTEST_INI = """\
[pytest]
xfail_strict = true
markers =
    requirement(id): links a test to the entry in tests/interaction/_requirements.py it exercises
filterwarnings =
    error
    ignore:.*is deprecated as of 2026-07-28 \\(SEP-2577\\).:mcp.MCPDeprecationWarning
    ignore:Client-to-server progress is deprecated as of 2026-07-28.*:mcp.MCPDeprecationWarning
    ignore:ping is removed as of 2026-07-28.*:mcp.MCPDeprecationWarning
"""


def cache_root() -> Path:
    home = os.environ.get("MCP_COMPAT_HOME") or str(Path.home() / ".cache" / "mcp-compat")
    return Path(home) / f"official-suite-{VERSION}"


def fetch_suite() -> Path:
    """The unpacked suite, downloaded and verified once."""
    root = cache_root()
    marker = root / ".complete"
    if marker.exists():
        return root
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:",
             f"mcp=={VERSION}", "-d", tmp],
            check=True,
        )
        archive = Path(tmp) / f"mcp-{VERSION}.tar.gz"
        digest = hashlib.sha256(archive.read_bytes()).hexdigest()
        if digest != SDIST_SHA256:
            raise SystemExit(f"official suite: sha256 of {archive.name} is {digest}, expected {SDIST_SHA256}")
        staging = Path(tmp) / "unpacked"
        prefix = f"mcp-{VERSION}/tests/"
        with tarfile.open(archive) as tar:
            members = [m for m in tar.getmembers() if m.name.startswith(prefix)
                       and m.name[len(prefix):].split("/")[0] in TAKEN and (m.isfile() or m.isdir())]
            # Names checked above, from a pinned archive; the "data" filter where this Python has it.
            if hasattr(tarfile, "data_filter"):
                tar.extractall(staging, members=members, filter="data")
            else:
                tar.extractall(staging, members=members)
        if root.exists():
            shutil.rmtree(root)
        root.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(staging / f"mcp-{VERSION}"), root)
    marker.touch()
    return root


def read_list(name: str) -> dict[str, str]:
    """Test ids (or whole module paths) of a list file, each with its comment."""
    entries: dict[str, str] = {}
    for line in (HERE / name).read_text(encoding="utf-8").splitlines():
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        test_id, _, reason = text.partition(" # ")
        entries[test_id.strip()] = reason.strip()
    return entries


def outcomes(junit: Path) -> dict[str, bool]:
    """Test id -> passed (skips count as passed); a module that failed to collect is its path."""
    result: dict[str, bool] = {}
    for case in ElementTree.parse(junit).getroot().iter("testcase"):
        classname, name = case.get("classname") or "", case.get("name") or ""
        failed = any(child.tag in ("failure", "error") for child in case)
        if classname:
            test_id = classname.replace(".", "/") + ".py::" + name
        else:
            test_id = name.replace(".", "/") + ".py"
        result[test_id] = result.get(test_id, True) and not failed
    return result


def main(argv: list[str]) -> int:
    root = fetch_suite()
    (root / "pytest.ini").write_text(PYTEST_INI, encoding="utf-8")
    shutil.copyfile(HERE / "suite_conftest.py", root / "tests" / "conftest.py")
    out = REPO / ".official-suite"
    out.mkdir(exist_ok=True)
    junit = out / "junit.xml"
    junit.unlink(missing_ok=True)
    env = dict(os.environ)
    # Our source tree first, whatever checkout the interpreter's editable install points at.
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO / "src"), env.get("PYTHONPATH")]))
    command = [
        sys.executable, "-m", "pytest", "-q", "-p", "anyio", "-p", "no:cacheprovider", "-p", "no:randomly",
        "-c", str(root / "pytest.ini"), "--rootdir", str(root), "--continue-on-collection-errors",
        "--inline-snapshot=disable", "--tb=native", "--timeout", "60", "-o", "console_output_style=classic",
        f"--junitxml={junit}", *(argv or ["tests"]),
    ]
    proc = subprocess.run(command, cwd=root, env=env, check=False)
    if not junit.exists():
        print(f"official suite: pytest wrote no report (exit {proc.returncode})")
        return 1
    results = outcomes(junit)
    known, divergences = read_list("known-failures.txt"), read_list("divergences.txt")
    if len(divergences) > MAX_DIVERGENCES:
        print(f"official suite: {len(divergences)} divergences listed, at most {MAX_DIVERGENCES}")
        return 1
    allowed = known | divergences

    def listed(test_id: str) -> bool:
        return test_id in allowed or test_id.split("::")[0] in allowed

    unexpected = sorted(t for t, ok in results.items() if not ok and not listed(t))
    stale = [] if argv else sorted(t for t in allowed if results.get(t) is True)
    passed = sum(results.values())
    failed = len(results) - passed
    for test_id in unexpected:
        print(f"official suite: UNEXPECTED FAILURE {test_id}")
    for test_id in stale:
        print(f"official suite: NOW PASSES, remove from the list: {test_id}")
    print(f"official suite (mcp {VERSION} tests/interaction + tests/issues): {passed} passed, {failed} failed "
          f"({len(divergences)} divergences, {len(known)} known failures listed)")
    return 1 if unexpected or stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
