"""MkDocs hooks (mkdocs.yml `hooks:`): the parts of the site that are generated at build time from
the files the tests and tools read, so a page cannot drift from them.

- `<!-- generated: compat -->` (docs/compatibility.md): the accepted API divergences
  (docs/compat-divergences.md, read by `./dev apidiff`), the API gaps still to match
  (tests/compat/apidiff-gaps.txt), and the official suite's reasoned divergences and known failures
  (tests/official/divergences.txt, known-failures.txt, read by tests/official/run.py).
- `<!-- generated: bench-charts -->` (docs/performance.md): one SVG chart per unit, drawn by
  scripts/docs_charts.py from bench/results.json (what `bench/run.py --json` wrote), with the run's
  date, mode and machine."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

import docs_charts  # noqa: E402  (beside this file; mkdocs loads hooks by path, not as a package)

DIVERGENCES_MD = ROOT / "docs" / "compat-divergences.md"
APIDIFF_GAPS = ROOT / "tests" / "compat" / "apidiff-gaps.txt"
SUITE_DIVERGENCES = ROOT / "tests" / "official" / "divergences.txt"
SUITE_KNOWN_FAILURES = ROOT / "tests" / "official" / "known-failures.txt"
BENCH_JSON = ROOT / "bench" / "results.json"


def api_divergences() -> list[tuple[str, str, str]]:
    """(section, key, reason) of each `- \\`key\\` # reason` entry of docs/compat-divergences.md."""
    section, entries = "", []
    for line in DIVERGENCES_MD.read_text().splitlines():
        if line.startswith("## "):
            section = line[3:].strip()
        match = re.match(r"- `([^`]+)` # (.*)", line)
        if match:
            entries.append((section, match.group(1), match.group(2).strip()))
    return entries


def listed(path: Path) -> list[tuple[str, str]]:
    """(entry, reason) of a list file: one entry a line, ` # ` then its reason; `#` lines are
    comments. A missing file is an empty list (the list has been worked off)."""
    if not path.exists():
        return []
    entries = []
    for line in path.read_text().splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        entry, _, reason = line.partition(" # ")
        entries.append((entry.strip(), reason.strip()))
    return entries


def _cell(text: str) -> str:
    """Text for a markdown table cell (code spans included): only the column separator is escaped."""
    return text.replace("|", "\\|")


def _table(head: tuple[str, str], rows: list[tuple[str, str]], empty: str) -> str:
    if not rows:
        return f"*{empty}*\n"
    lines = [f"| {head[0]} | {head[1]} |", "|---|---|"]
    lines += [f"| `{_cell(a)}` | {_cell(b) or '(no reason given)'} |" for a, b in rows]
    return "\n".join(lines) + "\n"


def compat_markdown() -> str:
    """The generated part of the compatibility page."""
    parts = ["### Public API: accepted divergences\n",
             f"From `docs/compat-divergences.md` ({len(api_divergences())} entries), the allow-list "
             "`./dev apidiff` reads: any other breaking difference from the official API fails the "
             "build ([the file itself](compat-divergences.md)).\n"]
    sections: dict[str, list[tuple[str, str]]] = {}
    for section, key, reason in api_divergences():
        sections.setdefault(section, []).append((key, reason))
    for section, rows in sections.items():
        parts += [f"**{_cell(section)}**\n", _table(("API item", "why it differs"), rows, "none")]
    parts += ["### Public API: gaps still to match\n",
              "From `tests/compat/apidiff-gaps.txt`, a list that only shrinks.\n",
              _table(("API item", "note"), listed(APIDIFF_GAPS), "None: every known gap has been closed.")]
    parts += ["### The official SDK's own test suite\n",
              "`tests/official/run.py` runs the official mcp 2.3.0 `tests/interaction` and `tests/issues` "
              "against this package. A test may fail only if it is listed below; a listed known failure "
              "that starts passing fails the run too.\n",
              "**Reasoned divergences** (`tests/official/divergences.txt`)\n",
              _table(("test", "why"), listed(SUITE_DIVERGENCES), "None."),
              "**Known failures, still to fix** (`tests/official/known-failures.txt`)\n",
              _table(("test", "note"), listed(SUITE_KNOWN_FAILURES), "None: every test that passes on the "
                     "official package passes here.")]
    return "\n".join(parts)


def charts_markdown() -> str:
    """The generated part of the performance page: the run's facts, then a chart per unit."""
    run = docs_charts.load(BENCH_JSON)
    parts = [f"Run of {run['date']}, {run['mode']} mode, {run['cpus']} CPUs, `{_cell(run['platform'])}`.\n"]
    parts += [f"- **{_cell(key)}**: {_cell(info)}" for key, info in run["columns"].items()]
    parts.append("")
    for unit in docs_charts.units(run):
        parts += ['<div class="bench-chart">', docs_charts.chart(run, unit), "</div>", ""]
    return "\n".join(parts)


GENERATORS = {"compat": compat_markdown, "bench-charts": charts_markdown}


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """Replace each `<!-- generated: NAME -->` marker with what its generator writes now."""
    def fill(match: re.Match[str]) -> str:
        return GENERATORS[match.group(1)]()

    return re.sub(r"<!-- generated: ([a-z-]+) -->", fill, markdown)
