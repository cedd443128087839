"""A pytest plugin for FastMCP's suite: one JSON line per test id with its outcome.

Loaded with `-p outcomes_plugin` (its folder on PYTHONPATH) and `MCPKIT_OUTCOMES=FILE`. Under xdist
the controller receives every worker's reports, so one file gathers them all. The outcome is
`error` when setup or teardown failed, else the call's (`passed`, `failed`, `skipped`); an xfail is
`skipped`, an xpass `passed`.
"""

from __future__ import annotations

import json
import os
from typing import Any

_outcomes: dict[str, str] = {}
_RANK = {"passed": 0, "skipped": 1, "failed": 2, "error": 3}


def pytest_runtest_logreport(report: Any) -> None:
    if report.when == "call":
        outcome = "skipped" if hasattr(report, "wasxfail") and report.skipped else report.outcome
    elif report.failed:
        outcome = "error"
    elif report.skipped:
        outcome = "skipped"
    else:
        return
    previous = _outcomes.get(report.nodeid)
    if previous is None or _RANK[outcome] > _RANK[previous]:
        _outcomes[report.nodeid] = outcome


def pytest_sessionfinish(session: Any) -> None:
    path = os.environ.get("MCPKIT_OUTCOMES")
    if not path or hasattr(session.config, "workerinput"):  # the xdist controller writes, not its workers
        return
    with open(path, "a") as out:
        for nodeid, outcome in sorted(_outcomes.items()):
            out.write(json.dumps({"id": nodeid, "outcome": outcome}) + "\n")
