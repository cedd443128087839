"""The conformance harness's authorization-server scenarios (`authorization-server-metadata-endpoint`,
`authorization-code-grant`) against our MCP server behind an `OAuthProxy`, the user played
headlessly (see authorization.py, which `./dev conformance` also runs). Needs the harness run.sh
installs; skips with that reason where it was never installed (`./dev conformance` installs it)."""

from __future__ import annotations

import pytest
from tests.conformance.authorization import CACHE, SCENARIOS, VERSION, harness, run

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.parametrize("provider", ["github", "oidc"])
async def test_the_proxy_passes_the_harness_authorization_server_scenarios(provider: str) -> None:
    if harness() is None:
        pytest.skip(f"no conformance harness {VERSION} in {CACHE} (./dev conformance installs it)")
    outcome = await run(provider)
    assert outcome.failures() == [], outcome.output[-3000:]
    assert outcome.returncode == 0, outcome.output[-3000:]
    assert set(outcome.checks) == set(SCENARIOS)
    assert [c["id"] for c in outcome.checks["authorization-code-grant"]] == ["authorization-code-grant"]
    assert all(c["status"] == "SUCCESS" for checks in outcome.checks.values() for c in checks)
