"""`python -m mcp.stand_ins`: the same as `mcp stand-ins`."""

from mcp.stand_ins import main

raise SystemExit(main())
