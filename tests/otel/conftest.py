"""Makes `otelkit` importable and provides its `otel` fixture (a real SDK with in-memory
exporters, installed for one test)."""

import sys
from pathlib import Path

_here = str(Path(__file__).parent)
if _here not in sys.path:
    sys.path.insert(0, _here)

from otelkit import otel  # noqa: E402

__all__ = ["otel"]
