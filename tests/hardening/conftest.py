"""Hardening tests: helpers on the import path, and the number of fuzz cases run, reported at
the end of the session (`hardening_support.CASES`)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

if str(Path(__file__).parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).parent))

from hardening_support import CASES


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not CASES:
        return
    total = sum(CASES.values())
    terminalreporter.write_sep("-", f"hardening: {total} fuzz cases run")
    for family, count in sorted(CASES.items()):
        terminalreporter.write_line(f"  {family}: {count}")
