"""A part of FastMCP's own suite on mcpkit, within CI's time: the files of fastmcp-ci-subset.txt
(which pass whole on the official mcp 2.3.0) run on ours, and every test passes or is listed with a
reason (fastmcp-divergences.txt, fastmcp-known-failures.txt). `./dev eco` runs the whole suite on
both SDKs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from fastmcp_suite import read_list
from venvs import clean_env

HERE = Path(__file__).parent
pytestmark = pytest.mark.timeout(1800)


def test_fastmcp_s_own_tests_of_proxies_middleware_sessions_and_stdio_pass_on_mcpkit_or_are_listed() -> None:
    done = subprocess.run(
        [sys.executable, str(HERE / "fastmcp_suite.py"), "--ci"],
        capture_output=True,
        text=True,
        env=clean_env(),
        timeout=1700,
    )
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-3000:]
    assert "eco: ours:" in done.stdout


def test_every_listed_fastmcp_test_has_a_reason() -> None:
    for name in ("fastmcp-divergences.txt", "fastmcp-known-failures.txt"):
        for test_id, reason in read_list(HERE / name).items():
            assert test_id.startswith("tests/") and "::" in test_id, (name, test_id)
            assert reason, (name, test_id)
