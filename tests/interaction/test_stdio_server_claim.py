"""Only one `stdio_server()` at a time may serve the process's own stdin/stdout (there is one
stdin): a second concurrent one raises `RuntimeError`, and the first keeps serving."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent("""
    import sys
    import anyio
    from mcp.server.stdio import stdio_server

    async def main():
        async with stdio_server() as (read_stream, write_stream):
            try:
                async with stdio_server():
                    pass
            except RuntimeError as exc:
                print("refused:", exc, file=sys.stderr)
            async for item in read_stream:  # the first one still owns the wire
                await write_stream.send(item)
                break
        async with stdio_server():  # released on exit: a later one may claim it again
            print("reclaimed", file=sys.stderr)

    anyio.run(main)
""")


def test_a_second_concurrent_stdio_server_is_refused_and_the_first_keeps_the_wire() -> None:
    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    done = subprocess.run([sys.executable, "-c", SCRIPT], input=(json.dumps(ping) + "\n").encode(),
                          capture_output=True, timeout=60, check=False)
    stderr = done.stderr.decode()
    assert done.returncode == 0, stderr
    assert "refused: another stdio_server() in this process has already claimed fd 0" in stderr
    assert "reclaimed" in stderr
    assert json.loads(done.stdout.decode().splitlines()[0]) == ping
