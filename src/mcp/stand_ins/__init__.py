"""mcpkit's `mcp` and `mcp-types` stand-ins, built and installed from the installed mcpkit.

    python -m mcp.stand_ins [--pip | --uv | --project DIR] [--print]      (or: mcp stand-ins ...)

Libraries built on the official SDK (FastMCP, the OpenAI Agents SDK, pydantic-ai) require the
distributions `mcp` and `mcp-types` by name; mcpkit provides both import packages in its one
`mcpkit` distribution. This writes two metadata-only wheels of those names (`mcp.stand_ins.wheels`)
and installs them into the current environment with a pin (`mcp.stand_ins.pin`), so that a later
install of such a library keeps mcpkit, and one that needs another `mcp` stops with the
installer's resolution error and changes nothing. Needs no repository and no network.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mcp.stand_ins.installer import Plan, StandInsError, carry_out, describe, plan
from mcp.stand_ins.wheels import OFFICIAL_RELEASE, STAND_INS, build_wheels, stand_in_version

__all__ = [
    "OFFICIAL_RELEASE",
    "STAND_INS",
    "Plan",
    "StandInsError",
    "build_wheels",
    "main",
    "plan",
    "stand_in_version",
]


def _parser(prog: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Install mcpkit's metadata-only `mcp` and `mcp-types` distributions, pinned, so that "
        "libraries built on `mcp` install on mcpkit and keep it.",
    )
    how = parser.add_mutually_exclusive_group()
    how.add_argument(
        "--pip",
        dest="installer",
        action="store_const",
        const="pip",
        help="install with this environment's pip (the default when it has pip)",
    )
    how.add_argument(
        "--uv",
        dest="installer",
        action="store_const",
        const="uv",
        help="install with `uv pip` (the default when this environment has no pip)",
    )
    how.add_argument(
        "--project",
        type=Path,
        metavar="DIR",
        help="a uv project: add the stand-ins to its dependencies with `uv add` (the default when this "
        "environment is the .venv of a pyproject.toml with a uv.lock)",
    )
    parser.add_argument(
        "--print",
        dest="dry_run",
        action="store_true",
        help="show what would be written and run (and the pyproject.toml lines for a uv project); "
        "change nothing",
    )
    return parser


def main(argv: list[str] | None = None, prog: str = "python -m mcp.stand_ins") -> int:
    """Run the command; the exit status (errors print one line on stderr and change nothing)."""
    args = _parser(prog).parse_args(sys.argv[1:] if argv is None else argv)
    try:
        done = plan(args.installer, args.project)
        if args.dry_run:
            print(describe(done))
            return 0
        carry_out(done)
    except StandInsError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 1
    print(
        f"{prog}: mcp and mcp-types {done.version} (metadata only, mcpkit {done.mcpkit_version}) installed with "
        f"{done.installer} into {done.target}"
    )
    for note in done.pin.notes:
        print(f"{prog}: note: {note}")
    return 0
