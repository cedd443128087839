"""SVG bar charts of a benchmark run, drawn from the JSON that `bench/run.py --json FILE` writes
(the committed run is bench/results.json). One chart per unit (calls/s, µs, ms, MiB, KiB): each row
of the bench is a group of bars, one per column (ours, official, fastmcp), scaled to the row's own
largest value, since rows of one unit still differ by orders of magnitude. Standard library only.

The documentation's performance page embeds these at build time (scripts/docs_hooks.py); run
`python scripts/docs_charts.py bench/results.json OUTDIR` to write them as files."""

from __future__ import annotations

import html
import json
import sys
from pathlib import Path
from typing import Any

COLOURS = {"ours": "#2e7d32", "official": "#1565c0", "fastmcp": "#ef6c00"}
TITLES = {
    "calls/s": "Throughput, calls per second (longer is better)",
    "µs": "Server CPU per call, µs (shorter is better)",
    "ms": "Time, ms (shorter is better)",
    "MiB": "Server memory, MiB (shorter is better)",
    "KiB": "Memory per idle HTTP session, KiB (shorter is better)",
}
LABEL_W, BAR_W, VALUE_W, BAR_H, GAP = 330, 300, 70, 13, 10


def load(path: Path) -> dict[str, Any]:
    """A run as `bench/run.py --json` wrote it."""
    return json.loads(path.read_text())


def units(run: dict[str, Any]) -> list[str]:
    """The units of the run's rows, in the order they first appear."""
    seen: list[str] = []
    for row in run["rows"]:
        if row["unit"] not in seen:
            seen.append(row["unit"])
    return seen


def _fmt(value: float) -> str:
    if value >= 1000:
        return f"{value:,.0f}"
    if value >= 100:
        return f"{value:.0f}"
    if value >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}"


def chart(run: dict[str, Any], unit: str) -> str:
    """One SVG (a string) with every row of `unit`, a group of bars per row."""
    columns = list(run["columns"])
    rows = [row for row in run["rows"] if row["unit"] == unit]
    group_h = len(columns) * BAR_H + GAP + 6
    legend_h = 28
    height = 30 + legend_h + len(rows) * group_h
    width = LABEL_W + BAR_W + VALUE_W
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="100%" '
        f'role="img" aria-label="{html.escape(TITLES.get(unit, unit))}" font-family="sans-serif" font-size="11">',
        f'<text x="0" y="16" font-size="13" font-weight="bold" fill="currentColor">'
        f"{html.escape(TITLES.get(unit, unit))}</text>",
    ]
    for i, column in enumerate(columns):
        x = LABEL_W + i * 100
        out.append(f'<rect x="{x}" y="26" width="11" height="11" fill="{COLOURS.get(column, "#777")}"/>')
        out.append(f'<text x="{x + 15}" y="36" fill="currentColor">{html.escape(column)}</text>')
    y = 30 + legend_h
    for row in rows:
        values: dict[str, float | None] = row["values"]
        top = max((v for v in values.values() if v is not None), default=0.0) or 1.0
        label = row["label"].removesuffix(f": {unit}").removesuffix(f" ({unit})")
        out.append(f'<text x="{LABEL_W - 8}" y="{y + len(columns) * BAR_H / 2 + 4}" text-anchor="end" '
                   f'fill="currentColor">{html.escape(label[:52])}</text>')
        for i, column in enumerate(columns):
            value = values.get(column)
            by = y + i * BAR_H
            if value is None:
                out.append(f'<text x="{LABEL_W + 4}" y="{by + BAR_H - 3}" fill="currentColor">—</text>')
                continue
            length = max(1.0, BAR_W * value / top)
            out.append(f'<rect x="{LABEL_W}" y="{by}" width="{length:.1f}" height="{BAR_H - 2}" '
                       f'fill="{COLOURS.get(column, "#777")}"><title>{html.escape(column)}: '
                       f"{_fmt(value)} {html.escape(unit)}</title></rect>")
            out.append(f'<text x="{LABEL_W + length + 4:.1f}" y="{by + BAR_H - 3}" '
                       f'fill="currentColor">{_fmt(value)}</text>')
        y += group_h
    out.append("</svg>")
    return "\n".join(out)


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python scripts/docs_charts.py RESULTS.json OUTDIR", file=sys.stderr)
        return 2
    run = load(Path(argv[0]))
    outdir = Path(argv[1])
    outdir.mkdir(parents=True, exist_ok=True)
    for unit in units(run):
        name = {"calls/s": "calls_per_s", "µs": "cpu_us"}.get(unit, unit.lower())
        (outdir / f"{name}.svg").write_text(chart(run, unit) + "\n")
        print(outdir / f"{name}.svg")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
