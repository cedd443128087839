"""The era of a request, decided once for every transport (`mcp._protocol.lifecycle.request_era`)."""

from __future__ import annotations

import pytest

from mcp._protocol.lifecycle import HANDSHAKE_ERA, MIXED_ERA, MODERN_ERA, request_era
from mcp.types.version import HANDSHAKE_VERSIONS, MODERN_VERSIONS

MODERN = MODERN_VERSIONS[-1]
HANDSHAKE = HANDSHAKE_VERSIONS[-1]


def test_a_request_that_names_no_revision_is_a_handshake_era_one() -> None:
    assert request_era(None, None) == HANDSHAKE_ERA


@pytest.mark.parametrize("version", HANDSHAKE_VERSIONS)
def test_a_handshake_revision_in_the_header_or_the_meta_keeps_the_handshake_era(version: str) -> None:
    assert request_era(version, None) == HANDSHAKE_ERA
    assert request_era(None, version) == HANDSHAKE_ERA
    assert request_era(version, version) == HANDSHAKE_ERA


@pytest.mark.parametrize("version", [MODERN, "2099-01-01", "nonsense", ""])
def test_any_other_header_value_is_the_modern_wire_whatever_the_meta_says(version: str) -> None:
    for meta in (None, HANDSHAKE, MODERN, 7):
        assert request_era(version, meta) == MODERN_ERA


@pytest.mark.parametrize("meta", [MODERN, "2099-01-01", 7, {"not": "a string"}])
def test_without_a_header_a_meta_naming_any_other_revision_is_the_modern_wire(meta: object) -> None:
    assert request_era(None, meta) == MODERN_ERA


def test_a_handshake_header_with_a_modern_meta_is_mixed() -> None:
    """The handshake-era entry takes it over HTTP; the session refuses it with the header mismatch."""
    assert request_era(HANDSHAKE, MODERN) == MIXED_ERA
