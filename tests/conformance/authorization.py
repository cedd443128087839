"""The conformance harness's authorization-server scenarios against our `OAuthProxy`.

    python tests/conformance/authorization.py [--provider github|oidc] [--out DIR]

The harness (`conformance authorization`, 0.2.0-alpha.12) has two scenarios that test an
authorization server rather than a client: `authorization-server-metadata-endpoint` (RFC 8414
metadata: status, content type, the required members, issuer = the URL it was given, CIMD
support) and `authorization-code-grant` (a real authorization code flow with PKCE S256 and the
RFC 8707 resource: it prints the authorization URL for a person to open, waits for the redirect
on its own callback server on 127.0.0.1, then redeems the code and checks the token response).
Here our MCP server runs behind an `OAuthProxy` in front of a local fake identity provider (both
on uvicorn on 127.0.0.1); a public client is registered for the harness's callback through the
proxy's DCR endpoint; the user is played headlessly (`proxykit.UserAgent`: the consent page is
approved, the provider signs the user in) and the final redirect is delivered to the harness.

Node and the harness come from run.sh's cache (`CONFORMANCE_CACHE`, default
~/.cache/mcp-conformance; `./dev conformance` fills it first). Prints one line per scenario and
`authorization: N passed, M failed`; exits non-zero when a check fails or the harness errs.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import platform
import shutil
import socket
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import anyio
import httpx
from anyio.abc import Process

sys.path.insert(0, str(Path(__file__).parents[1] / "server" / "auth"))

from proxykit import UserAgent, proxied_server

VERSION = os.environ.get("CONFORMANCE_VERSION", "0.2.0-alpha.12")
CACHE = Path(os.environ.get("CONFORMANCE_CACHE",
                            Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "mcp-conformance"))
SCENARIOS = ("authorization-server-metadata-endpoint", "authorization-code-grant")
GUARD = 90.0
"""Seconds the harness may take for both scenarios: a bound, never a measure."""


def harness() -> tuple[str, Path] | None:
    """Node >= 22 and the harness's entry point from run.sh's cache, or None when not installed."""
    entry = CACHE / f"harness-{VERSION}" / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
    arch = {"x86_64": "x64", "aarch64": "arm64", "arm64": "arm64"}.get(platform.machine(), platform.machine())
    node = CACHE / "node22" / "node_modules" / f"node-{platform.system().lower()}-{arch}" / "bin" / "node"
    return (str(node), entry) if entry.is_file() and node.is_file() else None


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class Outcome:
    """The checks the harness recorded, by scenario, and what it printed."""

    checks: dict[str, list[dict[str, Any]]] = field(default_factory=dict[str, list[dict[str, Any]]])
    output: str = ""
    returncode: int | None = None

    def failures(self) -> list[str]:
        bad = [f"{name}: {c.get('id')} {c.get('status')} {c.get('errorMessage', '')}".rstrip()
               for name, checks in self.checks.items() for c in checks if c.get("status") == "FAILURE"]
        missing = [f"{name}: no checks recorded" for name in SCENARIOS if name not in self.checks]
        return bad + missing


async def _play_user(process: Process, base: str, callback: str, log: list[str]) -> None:
    """Read the harness's output; when it prints our authorization URL, be the user: approve on
    the consent page, sign in at the provider, and open the redirect on the harness's callback."""
    assert process.stdout is not None
    pending = ""
    async for chunk in process.stdout:
        pending += chunk.decode(errors="replace")
        *lines, pending = pending.split("\n")
        for line in lines:
            log.append(line)
            if line.startswith(f"{base}/authorize?"):
                query = await UserAgent(redirect_prefix=callback).visit(line.strip())
                async with httpx.AsyncClient(timeout=20) as http:
                    await http.get(f"{callback}?{urlencode(query)}")
    log.append(pending)


async def run(provider: str = "github", out: Path | None = None) -> Outcome:
    """Both scenarios against an MCP server behind an `OAuthProxy` to a fake `provider`."""
    found = harness()
    if found is None:
        raise RuntimeError(f"no conformance harness {VERSION} in {CACHE}: run ./dev conformance "
                           "(run.sh installs Node 22 and the harness) or set CONFORMANCE_CACHE")
    node, entry = found
    out = out or Path(tempfile.mkdtemp(prefix="mcp-authorization-"))
    out.mkdir(parents=True, exist_ok=True)
    for earlier in out.glob("authorization-server-*"):  # an earlier run's results
        shutil.rmtree(earlier)
    port = free_port()
    callback = f"http://127.0.0.1:{port}/callback"
    outcome = Outcome()
    with proxied_server(provider) as (_, _, base):
        async with httpx.AsyncClient(timeout=20) as http:
            registered = await http.post(f"{base}/register", json={
                "client_name": "MCP conformance harness", "redirect_uris": [callback],
                "token_endpoint_auth_method": "none"})
        registered.raise_for_status()
        client_id = str(registered.json()["client_id"])
        log: list[str] = []
        command = [node, str(entry), "authorization", "--url", base, "--client-id", client_id,
                   "--resource", f"{base}/mcp", "--port", str(port), "--output-dir", str(out)]
        with anyio.fail_after(GUARD):
            async with await anyio.open_process(command, stderr=None) as process:
                try:
                    await _play_user(process, base, callback, log)
                    outcome.returncode = await process.wait()
                finally:
                    if process.returncode is None:
                        process.kill()
        outcome.output = "\n".join(log)
    for checks_file in out.rglob("checks.json"):  # DIR/authorization-server-<scenario>-<time>/checks.json
        folder = checks_file.parent.name.removeprefix("authorization-server-")
        name = next((s for s in SCENARIOS if folder.startswith(f"{s}-")), folder)
        outcome.checks[name] = json.loads(checks_file.read_text())
    return outcome


def main() -> int:
    parser = argparse.ArgumentParser(description="The harness's authorization-server scenarios against our OAuthProxy.")
    parser.add_argument("--provider", default="github", choices=["github", "oidc"])
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    outcome = anyio.run(run, args.provider, args.out)
    for name in SCENARIOS:
        checks = outcome.checks.get(name, [])
        statuses = ", ".join(f"{c.get('id')} {c.get('status')}" for c in checks) or "no checks"
        print(f"{name}: {statuses}")
    failures = outcome.failures()
    passed = sum(1 for name in SCENARIOS if name in outcome.checks and not any(f.startswith(name) for f in failures))
    print(f"authorization ({args.provider}): {passed} passed, {len(SCENARIOS) - passed} failed")
    for failure in failures:
        print(f"  {failure}")
    return 0 if not failures and outcome.returncode == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
