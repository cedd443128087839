from mcp.cli import main

raise SystemExit(main())
