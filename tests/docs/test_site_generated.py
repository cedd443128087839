"""The generated parts of the documentation site (scripts/docs_hooks.py, run by `./dev docs`): the
compatibility page lists every entry of the files the compatibility checks read, and the
performance page's charts carry every figure of the committed bench run (bench/results.json)."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


def hooks() -> ModuleType:
    return load_path(ROOT / "scripts" / "docs_hooks.py", "docs_hooks")


def load_path(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def entries(path: Path) -> list[str]:
    if not path.exists():
        return []
    return [line.split(" # ")[0].strip() for line in path.read_text().splitlines()
            if line.strip() and not line.lstrip().startswith("#")]


def test_the_compatibility_page_lists_every_entry_of_every_list_the_checks_read() -> None:
    page = hooks().compat_markdown()
    divergences = re.findall(r"^- `([^`]+)` # ", (ROOT / "docs" / "compat-divergences.md").read_text(), re.M)
    assert divergences, "docs/compat-divergences.md has entries"
    for key in [*divergences, *entries(ROOT / "tests" / "official" / "divergences.txt"),
                *entries(ROOT / "tests" / "official" / "known-failures.txt"),
                *entries(ROOT / "tests" / "compat" / "apidiff-gaps.txt")]:
        assert f"| `{key}` |" in page, key


def test_a_marker_in_a_page_is_replaced_by_what_its_generator_writes() -> None:
    module = hooks()
    out = module.on_page_markdown("before\n<!-- generated: compat -->\nafter", None, None, None)
    assert out.startswith("before\n### Public API: accepted divergences") and out.endswith("after")


def test_the_charts_show_every_figure_of_the_committed_bench_run() -> None:
    run = json.loads((ROOT / "bench" / "results.json").read_text())
    docs_charts = load_path(ROOT / "scripts" / "docs_charts.py", "docs_charts_under_test")
    page = hooks().charts_markdown()
    assert page.count("<svg") == len({row["unit"] for row in run["rows"]})
    for row in run["rows"]:
        for column, value in row["values"].items():
            if value is not None:
                assert f"<title>{column}: {docs_charts._fmt(value)} {row['unit']}</title>" in page, (row, column)
