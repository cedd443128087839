"""FastMCP's own test suite on mcpkit and on the official SDK, compared test by test (`./dev eco`).

    python tests/ecosystem/fastmcp_suite.py                  # both SDKs, the whole suite
    python tests/ecosystem/fastmcp_suite.py --ours-only      # ours; the official's outcomes from the cache
    python tests/ecosystem/fastmcp_suite.py --ci             # ours, the files of fastmcp-ci-subset.txt

The sdist of FastMCP (`FASTMCP` in venvs.py) is fetched from PyPI by name and version into the
ecosystem cache (never into the repository) and its tests run from there, in two cached venvs built
like venvs.py's: FastMCP with the official mcp 2.3.0, and FastMCP installed after mcpkit and its
stand-ins. The selection is FastMCP's own `-m "not integration and not conformance"`, run the way
FastMCP's CI runs it: the unit tests under xdist, then the `client_process`/`subprocess_heavy` ones
serially. Per-test timeout 30 s (FastMCP's 5 s trips on a loaded 2-core machine).

It fails when a test that passes on the official fails on ours and is listed neither in
fastmcp-divergences.txt (reasoned divergences) nor in fastmcp-known-failures.txt (not yet fixed: a
list that only shrinks). A failure is confirmed by one serial rerun before it counts. `--ci` runs
ours alone on a few files where the official passes everything, less the listed tests, so there
every test must pass.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import time
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from venvs import FASTMCP, HOME, MCPKIT, clean_env, library_venv

HERE = Path(__file__).parent
VERSION = FASTMCP.split("==")[1]
LIBRARY = [
    f"fastmcp[anthropic,apps,azure,code-mode,gemini,jev,openai]=={VERSION}",
    "cryptography>=43.0.0",
    "pydocket>=0.26.1",
    "redis!=8.1.0",
]
"""FastMCP with every extra its tests import (its `dev` group's `fastmcp[...]`). fastmcp-remote and
fastmcp-tasks have no 4.1.6 on PyPI: their code comes from the sdist (its pytest `pythonpath`), and
fastmcp-tasks' own dependencies are listed here."""
TEST_TOOLS = [
    "dirty-equals>=0.9.0",
    "httpx",
    "fastapi>=0.115.12",
    "opentelemetry-sdk>=1.20.0",
    "inline-snapshot[dirty-equals]>=0.27.2",
    "psutil>=7.0.0",
    "pyinstrument>=5.0.2",
    "pyperclip>=1.9.0",
    "pytest>=8.3.3",
    "pytest-asyncio>=1.2.0",
    "pytest-env>=1.1.5",
    "pytest-timeout>=2.4.0",
    "pytest-xdist>=3.6.1",
    "opentelemetry-exporter-otlp-proto-grpc>=1.39.0",
    "pytest-examples>=0.0.18",
]
"""The test tools of FastMCP's `dev` group (less its linters, debuggers and type checkers), and httpx, which
a few of its test files import and which neither SDK installs for them."""
SUITES: dict[str, list[list[str]]] = {
    "official": [["mcp==2.3.0", *LIBRARY, *TEST_TOOLS]],
    "ours": [[MCPKIT], [*LIBRARY, *TEST_TOOLS]],
}
SELECTION = "not integration and not conformance"
SERIAL = "client_process or subprocess_heavy"  # FastMCP's CI runs these without xdist
DIVERGENCES = HERE / "fastmcp-divergences.txt"
KNOWN_FAILURES = HERE / "fastmcp-known-failures.txt"
CI_SUBSET = HERE / "fastmcp-ci-subset.txt"
BAD = ("failed", "error")


def sdist_tree() -> Path:
    """FastMCP's sdist, downloaded by name and version into the cache and unpacked once."""
    folder = HOME / "sdist"
    tree = folder / f"fastmcp-{VERSION}"
    if (tree / ".unpacked").exists():
        return tree
    folder.mkdir(parents=True, exist_ok=True)
    archive = folder / f"fastmcp-{VERSION}.tar.gz"
    if not archive.exists():
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--quiet",
                "--no-deps",
                "--no-binary",
                ":all:",
                "--dest",
                str(folder),
                FASTMCP,
            ],
            check=True,
            env=clean_env(),
            timeout=600,
        )
    with tarfile.open(archive) as tar:
        tar.extractall(folder, filter="data")
    (tree / ".unpacked").touch()
    return tree


def read_list(path: Path) -> dict[str, str]:
    """`test id  # reason` lines (blank lines and `#` lines are comments) as {id: reason}."""
    listed: dict[str, str] = {}
    if not path.exists():
        return listed
    for line in path.read_text().splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        test_id, _, reason = line.partition("  # ")
        listed[test_id.strip()] = reason.strip()
    return listed


def pytest_run(python: Path, tree: Path, args: list[str], outcomes: Path) -> None:
    """One pytest run in `tree` appending its outcomes to `outcomes` (exit status: judged from them)."""
    env = {
        **clean_env(),
        "MCPKIT_OUTCOMES": str(outcomes),
        "PATH": f"{python.parent}{os.pathsep}{os.environ.get('PATH', '')}",  # as in an activated venv (the `fastmcp` CLI)
        "VIRTUAL_ENV": str(python.parent.parent),
        "PYTHONPATH": str(HERE / "scripts"),
        "FASTMCP_CHECK_FOR_UPDATES": "off",
    }
    command = [
        str(python),
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "-p",
        "outcomes_plugin",
        "--timeout",
        "30",
        "-o",
        "console_output_style=classic",
        *args,
    ]
    with (outcomes.with_suffix(".log")).open("a") as log:
        log.write(f"$ {' '.join(command)}\n")
        log.flush()
        subprocess.run(command, cwd=tree, env=env, stdout=log, stderr=subprocess.STDOUT, timeout=7200)


def run_suite(
    python: Path, tree: Path, paths: list[str], outcomes: Path, workers: int, skip: Iterable[str] = ()
) -> dict[str, str]:
    """FastMCP's selection over `paths` (less the test ids `skip`): the unit tests on `workers` xdist
    workers, then the serial ones."""
    paths = [*paths, *(f"--deselect={test_id}" for test_id in skip)]
    outcomes.unlink(missing_ok=True)
    outcomes.with_suffix(".log").unlink(missing_ok=True)
    parallel = ["-n", str(workers), "--dist", "worksteal"] if workers > 1 else ["-p", "no:xdist"]
    pytest_run(python, tree, [*parallel, "-m", f"{SELECTION} and not ({SERIAL})", *paths], outcomes)
    pytest_run(python, tree, ["-p", "no:xdist", "-m", f"{SELECTION} and ({SERIAL})", *paths], outcomes)
    return load(outcomes)


def load(outcomes: Path) -> dict[str, str]:
    return {row["id"]: row["outcome"] for row in map(json.loads, outcomes.read_text().splitlines())}


def figures(name: str, results: dict[str, str]) -> str:
    counts = {
        kind: sum(1 for o in results.values() if o == kind)
        for kind in ("passed", "failed", "error", "skipped")
    }
    return (
        f"{name}: {counts['passed']} passed, {counts['failed']} failed, {counts['error']} errors, "
        f"{counts['skipped']} skipped"
    )


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--ours-only", action="store_true", help="reuse the official's cached outcomes")
    parser.add_argument("--ci", action="store_true", help="ours alone, on the files of fastmcp-ci-subset.txt")
    parser.add_argument("--workers", type=int, default=2, help="xdist workers for the unit tests (1: none)")
    parser.add_argument("paths", nargs="*", help="test files or ids inside FastMCP's tests/ (default: all)")
    opts = parser.parse_args()
    started = time.monotonic()
    tree = sdist_tree()
    paths = opts.paths or (list(read_list(CI_SUBSET)) if opts.ci else ["tests"])
    with ThreadPoolExecutor(2) as pool:  # both venvs side by side (a fresh machine waits once)
        building = {
            name: pool.submit(library_venv, f"suite-fastmcp-{name}", steps)
            for name, steps in SUITES.items()
            if name == "ours" or not opts.ci
        }
        pythons = {name: future.result() for name, future in building.items()}
    print(
        f"eco: FastMCP {VERSION}'s suite ({SELECTION}) in {tree}; venvs ready after "
        f"{time.monotonic() - started:.0f} s",
        flush=True,
    )
    results: dict[str, dict[str, str]] = {}
    listed = {**read_list(DIVERGENCES), **read_list(KNOWN_FAILURES)}
    for name, python in pythons.items():
        outcomes = (
            python.parent.parent / f"outcomes-{'-'.join(p.replace('/', '_') for p in paths)[:80]}.jsonl"
        )
        if name == "official" and opts.ours_only and outcomes.exists():
            results[name] = load(outcomes)
            print(f"eco: {figures(name, results[name])} (cached: {outcomes})", flush=True)
            continue
        began = time.monotonic()
        # --ci leaves out the listed tests (several hang to their timeout); `./dev eco` runs them all
        # and names those that pass again
        skip = [test_id for test_id in listed if test_id.split("::")[0] in paths] if opts.ci else []
        results[name] = run_suite(python, tree, paths, outcomes, opts.workers, skip)
        print(
            f"eco: {figures(name, results[name])} in {time.monotonic() - began:.0f} s (log: "
            f"{outcomes.with_suffix('.log')})",
            flush=True,
        )
    ours = results["ours"]
    # --ci: the subset's files pass whole on the official (fastmcp-ci-subset.txt says when that was checked)
    official = {test_id: "passed" for test_id in ours} if opts.ci else results["official"]
    regressed = sorted(
        i
        for i, o in official.items()
        if o == "passed" and ours.get(i, "missing") in (*BAD, "missing") and i not in listed
    )
    if regressed:  # confirm each by a serial rerun (a timeout under load is not a regression)
        venv = pythons["ours"].parent.parent
        again = run_suite(pythons["ours"], tree, regressed, venv / "outcomes-rerun.jsonl", 1)
        regressed = [i for i in regressed if again.get(i, "missing") in (*BAD, "missing")]
    fixed = sorted(i for i in read_list(KNOWN_FAILURES) if ours.get(i) == "passed")
    for test_id in fixed:
        print(f"eco: now passes, remove it from {KNOWN_FAILURES.name}: {test_id}")
    for test_id in regressed:
        print(f"eco: passes on the official, {ours.get(test_id, 'missing')} on ours: {test_id}")
    gained = sum(1 for i, o in ours.items() if o == "passed" and official.get(i) in BAD)
    print(
        f"eco: {len(regressed)} unlisted regressions; {gained} tests pass on ours only; "
        f"{len(listed)} listed; {time.monotonic() - started:.0f} s in all"
    )
    return 1 if regressed else 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    raise SystemExit(main())
