"""Makes `docskit` (the plumbing shared by the docs-page tests) importable. One module here per page
of the official docs, named for the page (`test_<folder>_<page>.py`), each exercising that page's
claims through the public API."""

import sys
from pathlib import Path

_here = str(Path(__file__).parent)
if _here not in sys.path:
    sys.path.insert(0, _here)
