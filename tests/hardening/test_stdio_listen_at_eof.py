"""A stdio server with an open `subscriptions/listen` stream ends it at end of input with -32000
"Connection closed" and exits, instead of leaving the request unanswered until its drain timeout
(it used to take 10 s to exit and never answered the listen request). Real stdio subprocess."""

from __future__ import annotations

import json
from typing import Any

from hardening_support import MODERN_META, StdioTarget


def listen(request_id: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "subscriptions/listen",
            "params": {"notifications": {"toolsListChanged": True}, "_meta": dict(MODERN_META)}}


def test_an_open_listen_stream_is_answered_connection_closed_at_end_of_input() -> None:
    target = StdioTarget()
    try:
        target.send(listen("watch"))
        acknowledged = target.read(timeout=30)
        assert acknowledged["method"] == "notifications/subscriptions/acknowledged", acknowledged
        assert target.proc.stdin is not None
        target.proc.stdin.close()  # end of input, stdout still read
        answer = target.read(timeout=30)
        assert answer == {"jsonrpc": "2.0", "id": "watch",
                          "error": {"code": -32000, "message": "Connection closed"}}, json.dumps(answer)
    finally:
        assert target.close() == 0
