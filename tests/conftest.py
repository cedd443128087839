"""Suite-wide fixtures: the anyio backends and the wire schema check.

Wire schema check
-----------------
Every message our server or our client sends during a test passes through the engine's wire taps
(`mcp._engine.tap.TAPS`); the autouse `wire_check` fixture validates each one against the JSON
Schema of the negotiated MCP revision (`tests/schema_check.py`) and fails the test if any is
invalid, listing them. Request the `wire_check` fixture to look at what was sent
(`wire_check.messages`). Subprocess transcripts are not tapped: validate them with
`schema_check.check_lines`.

Opting out, for messages that are invalid *by design* only::

    @pytest.mark.wire_invalid_ok({"error": {"code": -32700}}, reason="answers unparsable input")
    @pytest.mark.wire_invalid_ok(lambda sender, message, version: ..., reason="...")

Each positional argument is a matcher: a dict matched as a subset of the message (nested dicts
recursively, other values by equality), or a callable `(sender, message, version) -> bool`. Only
invalid messages a matcher matches are excused; `reason` is required. A matcher that excuses
nothing fails the test (pass `strict=False` when only some parametrizations send the message), so
an opt-out cannot outlive the message it was written for. Never use it to hide a bug: a message
that should be valid gets fixed, not excused.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from _pytest.nodes import Node

if str(Path(__file__).parent) not in sys.path:  # also under --import-mode=importlib
    sys.path.insert(0, str(Path(__file__).parent))

from mcp._engine import tap as wire_taps
from schema_check import WireChecker, default_checker

_MAX_LISTED = 30


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "wire_invalid_ok(*matchers, reason, strict=True): excuse specific messages that are invalid "
        "against the MCP schema by design (see tests/conftest.py); never to hide a bug.",
    )


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    """Run every `@pytest.mark.anyio` test on both backends."""
    return request.param


def _subset(pattern: Any, value: Any) -> bool:
    if isinstance(pattern, dict):
        return isinstance(value, dict) and all(
            k in value and _subset(v, value[k]) for k, v in pattern.items()
        )
    return bool(pattern == value)


class _Allowance:
    """One matcher of a `wire_invalid_ok` marker."""

    def __init__(self, matcher: Any, reason: str, strict: bool) -> None:
        if not (isinstance(matcher, dict) or callable(matcher)):
            raise TypeError(f"wire_invalid_ok matchers are dicts or callables, not {matcher!r}")
        self.matcher = matcher
        self.reason = reason
        self.strict = strict
        self.used = 0

    def matches(self, sender: str, message: Any, version: str | None) -> bool:
        if isinstance(self.matcher, dict):
            return _subset(self.matcher, message)
        return bool(self.matcher(sender, message, version))


def _allowances(node: Node) -> list[_Allowance]:
    allowances: list[_Allowance] = []
    for marker in node.iter_markers("wire_invalid_ok"):
        reason = marker.kwargs.get("reason")
        if not marker.args or not isinstance(reason, str) or not reason.strip():
            pytest.fail(
                "@pytest.mark.wire_invalid_ok needs at least one matcher and a reason=...: it excuses"
                " specific invalid-by-design messages, not a whole test",
                pytrace=False,
            )
        strict = bool(marker.kwargs.get("strict", True))
        allowances.extend(_Allowance(matcher, reason, strict) for matcher in marker.args)
    return allowances


class WireRecorder:
    """What one test sent on the wire, and which messages failed the schema check."""

    def __init__(self, checker: WireChecker, allowances: list[_Allowance]) -> None:
        self.checker = checker
        self.allowances = allowances
        self.messages: list[tuple[wire_taps.Role, dict[str, Any], str | None, str | None]] = []
        """(sender, message, protocol_version, request_method) for every tapped message."""
        self.failures: list[str] = []
        self.excused: list[str] = []
        self._reported = 0
        self.call_passed = False

    def tap(
        self, sender: wire_taps.Role, message: dict[str, Any], version: str | None, request_method: str | None
    ) -> None:
        """The wire tap: validate one message, remembering failures (never raising into the engine)."""
        self.messages.append((sender, message, version, request_method))
        try:
            self.checker.check(sender, message, version, request_method)
        except AssertionError as exc:
            for allowance in self.allowances:
                if allowance.matches(sender, message, version):
                    allowance.used += 1
                    self.excused.append(f"{exc} [excused: {allowance.reason}]")
                    return
            self.failures.append(str(exc))
        except Exception as exc:  # a checker bug must not break the connection under test
            self.failures.append(f"schema check crashed on {sender} message {message!r}: {exc!r}")

    def raise_new_failures(self, when: str) -> None:
        """Raise `AssertionError` listing failures not reported yet."""
        new = self.failures[self._reported :]
        self._reported = len(self.failures)
        if not new:
            return
        listed = [f"[{i}] {text}" for i, text in enumerate(new[:_MAX_LISTED], 1)]
        if len(new) > _MAX_LISTED:
            listed.append(f"... and {len(new) - _MAX_LISTED} more")
        raise AssertionError(
            f"{len(new)} message(s) sent {when} are invalid against the MCP schema"
            " (wire_invalid_ok in tests/conftest.py excuses invalid-by-design ones only):\n"
            + "\n".join(listed)
        )

    def check_allowances_used(self) -> None:
        unused = [a for a in self.allowances if a.strict and not a.used]
        if unused:
            raise AssertionError(
                "wire_invalid_ok matcher(s) excused no message (remove them, or pass strict=False): "
                + ", ".join(f"{a.matcher!r} ({a.reason})" for a in unused)
            )


_RECORDER = pytest.StashKey[WireRecorder]()


@pytest.fixture(autouse=True)
def wire_check(request: pytest.FixtureRequest) -> Iterator[WireRecorder]:
    """Validate every message sent during the test against the MCP schema (module docstring)."""
    recorder = WireRecorder(default_checker(), _allowances(request.node))
    request.node.stash[_RECORDER] = recorder
    observer = recorder.tap
    wire_taps.TAPS.append(observer)
    try:
        yield recorder
    finally:
        wire_taps.TAPS.remove(observer)
    recorder.raise_new_failures("after the test body (fixture teardown)")
    if recorder.call_passed:
        recorder.check_allowances_used()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    """Fail the test itself (not only its teardown) when it sent invalid messages."""
    result = yield
    recorder = item.stash.get(_RECORDER, None)
    if recorder is not None:
        recorder.raise_new_failures("during the test")
        recorder.call_passed = True
    return result
