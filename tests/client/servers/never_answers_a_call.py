"""A bare JSON-RPC stdio server, no SDK (spawned by test_cancel_on_timeout_wire.py): it appends
every line the client writes to the file argv[1], answers `initialize` and `tools/list`, and
never answers `tools/call`, so that the test reads what the client put on the wire when it gave up."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

RECORD = Path(sys.argv[1])
TOOLS = {"tools": [{"name": "hang", "inputSchema": {"type": "object"}}]}


def answer(request_id: Any, result: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": request_id, "result": result}) + "\n")
    sys.stdout.flush()


def main() -> None:
    with RECORD.open("a", encoding="utf-8") as record:
        for line in sys.stdin:
            record.write(line if line.endswith("\n") else line + "\n")
            record.flush()
            message = json.loads(line)
            method, request_id = message.get("method"), message.get("id")
            if request_id is None or method == "tools/call":
                continue  # a notification, or the call left unanswered
            if method == "initialize":
                answer(request_id, {"protocolVersion": message["params"]["protocolVersion"],
                                    "capabilities": {"tools": {}}, "serverInfo": {"name": "silent", "version": "1"}})
            elif method == "tools/list":
                answer(request_id, TOOLS)
            else:
                error = {"code": -32601, "message": "Method not found"}
                sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": request_id, "error": error}) + "\n")
                sys.stdout.flush()


if __name__ == "__main__":
    main()
