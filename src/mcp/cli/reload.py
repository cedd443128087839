"""`mcp run FILE --reload`: a supervisor that restarts the server when its files change.

Over stdio the supervisor keeps the host's pipe and runs the server as a child (`mcp run FILE`).
On a change it starts a new child and replays the host's recorded handshake to it (the
`initialize` request, whose answer goes nowhere, and `notifications/initialized`; nothing on the
2026-07-28 wire, which has no handshake), then swaps: requests still in flight on the old child
get a JSON-RPC error, never silence, and the host gets `notifications/{tools,prompts,resources}/
list_changed` for each list that differs. A new child that fails (a syntax error, an import that
raises, no answer) is dropped and the old one keeps serving; why is said on stderr.

Over HTTP the supervisor restarts the uvicorn child on the same port, once a probe process has
imported the edited file without error (so a broken edit keeps the old server). HTTP sessions do
not survive the restart: a client gets "session not found" and initializes again, as the
Streamable HTTP spec has it.

The files watched are FILE and the `.py` files beside it, polled (no extra dependency).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import signal
import sys
from pathlib import Path
from typing import Any, cast

from mcp.types.jsonrpc import INTERNAL_ERROR

POLL_SECONDS = 0.25
"""How often the watched files' times and sizes are read."""
ANSWER_TIMEOUT = 15.0
"""How long a new child has to answer the replayed handshake (and the list requests)."""
STOP_TIMEOUT = 5.0
MAX_LINE = 64 * 1024 * 1024
_OWN_PREFIX = "mcp-reload-"
_LISTS = (("tools/list", "tools", "notifications/tools/list_changed"),
          ("prompts/list", "prompts", "notifications/prompts/list_changed"),
          ("resources/list", "resources", "notifications/resources/list_changed"),
          ("resources/templates/list", "resourceTemplates", "notifications/resources/list_changed"))


def say(message: str) -> None:
    print(f"mcp run --reload: {message}", file=sys.stderr, flush=True)


# -- watching ----------------------------------------------------------------------------------


def snapshot(file: Path) -> dict[Path, tuple[int, int]]:
    """Modification time and size of `file` and of the `.py` files in its folder."""
    found: dict[Path, tuple[int, int]] = {}
    for path in {file, *file.parent.glob("*.py")}:
        with contextlib.suppress(OSError):
            stat = path.stat()
            found[path] = (stat.st_mtime_ns, stat.st_size)
    return found


async def next_change(file: Path, seen: dict[Path, tuple[int, int]]) -> dict[Path, tuple[int, int]]:
    """Wait for the watched files to differ from `seen`, then for them to settle (a bounded
    number of polls); the new snapshot."""
    while (now := snapshot(file)) == seen:
        await asyncio.sleep(POLL_SECONDS)
    for _ in range(20):
        await asyncio.sleep(POLL_SECONDS)
        settled = snapshot(file)
        if settled == now:
            break
        now = settled
    return now


# -- stdio -------------------------------------------------------------------------------------


def _key(message_id: Any) -> str:
    return json.dumps(message_id)


class ChildFailed(Exception):
    """A new child that could not serve (it exited, or did not answer in time)."""


class StdioChild:
    """One server process and the requests waiting on it."""

    def __init__(self, process: asyncio.subprocess.Process, supervisor: StdioSupervisor) -> None:
        self.process = process
        self.supervisor = supervisor
        self.host_pending: dict[str, Any] = {}  # the host's requests it has not answered: key -> id
        self.own: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self.reader = asyncio.ensure_future(self._read())

    def send(self, line: bytes) -> None:
        stdin = self.process.stdin
        if stdin is not None and not stdin.is_closing():
            stdin.write(line if line.endswith(b"\n") else line + b"\n")

    async def request(self, message: dict[str, Any]) -> dict[str, Any]:
        """Send one of the supervisor's own requests; its answer (ChildFailed on exit or timeout)."""
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.own[_key(message["id"])] = future
        self.send(json.dumps(message, separators=(",", ":")).encode())
        try:
            return await asyncio.wait_for(future, ANSWER_TIMEOUT)
        except asyncio.TimeoutError:
            raise ChildFailed(f"no answer to {message['method']} within {ANSWER_TIMEOUT:g}s") from None

    async def _read(self) -> None:
        assert self.process.stdout is not None
        while line := await self.process.stdout.readline():
            self.supervisor.from_child(self, line)
        code = await self.process.wait()
        for future in self.own.values():
            if not future.done():
                future.set_exception(ChildFailed(f"the server exited (status {code})"))
        self.supervisor.child_exited(self, code)

    async def stop(self) -> None:
        """Close its stdin and wait; terminate, then kill, if it does not exit in time."""
        if self.process.stdin is not None:
            self.process.stdin.close()
        for ask in (None, self.process.terminate, self.process.kill):
            if ask is not None and self.process.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    ask()
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self.process.wait(), STOP_TIMEOUT)
                break
        with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
            await asyncio.wait_for(self.reader, STOP_TIMEOUT)


class StdioSupervisor:
    """Keeps the host's stdin/stdout and forwards them to the current child (see the module)."""

    def __init__(self, command: list[str], file: Path) -> None:
        self.command = command
        self.file = file
        self.child: StdioChild | None = None
        self.initialize: dict[str, Any] | None = None
        self.initialized: dict[str, Any] | None = None
        self.meta: dict[str, Any] | None = None  # a handshake-free host's request _meta, for our own requests
        self.ids = itertools.count(1)
        self.out = sys.stdout.buffer
        self.closing = False

    def to_host(self, message: dict[str, Any] | bytes) -> None:
        line = message if isinstance(message, bytes) else json.dumps(message, separators=(",", ":")).encode()
        self.out.write(line if line.endswith(b"\n") else line + b"\n")
        self.out.flush()

    def error_to_host(self, message_id: Any, text: str) -> None:
        self.to_host({"jsonrpc": "2.0", "id": message_id, "error": {"code": INTERNAL_ERROR, "message": text}})

    async def start_child(self) -> StdioChild:
        process = await asyncio.create_subprocess_exec(
            *self.command, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, limit=MAX_LINE,
            env={**os.environ, "MCP_TRANSPORT": "stdio"})
        return StdioChild(process, self)

    # -- messages ------------------------------------------------------------------------------

    def from_host(self, line: bytes) -> None:
        try:
            message = json.loads(line)
        except ValueError:
            message = None
        if isinstance(message, dict):
            self._record(message)  # pyright: ignore[reportUnknownArgumentType]
        child = self.child
        if child is None or child.process.returncode is not None:
            if isinstance(message, dict) and "method" in message and "id" in message:
                self.error_to_host(message["id"], "the server is not running (it exited); "
                                   "save the file to start it again")
            return
        if isinstance(message, dict) and "method" in message and "id" in message:
            child.host_pending[_key(message["id"])] = message["id"]
        child.send(line)

    def _record(self, message: dict[str, Any]) -> None:
        method = message.get("method")
        if method == "initialize" and "id" in message:
            self.initialize = message
        elif method == "notifications/initialized":
            self.initialized = message
        elif isinstance(method, str) and self.initialize is None:
            params = message.get("params")
            if isinstance(params, dict) and isinstance(params.get("_meta"), dict):  # pyright: ignore[reportUnknownMemberType]
                meta = cast("dict[str, Any]", params["_meta"])
                self.meta = {key: value for key, value in meta.items() if key != "progressToken"}

    def from_child(self, child: StdioChild, line: bytes) -> None:
        try:
            message = json.loads(line)
        except ValueError:
            message = None
        if isinstance(message, dict) and "method" not in message and "id" in message:
            key = _key(message["id"])
            if key in child.own:
                future = child.own.pop(key)
                if not future.done():
                    future.set_result(message)  # pyright: ignore[reportUnknownArgumentType]
                return
            child.host_pending.pop(key, None)
        if child is self.child:
            self.to_host(line)

    def child_exited(self, child: StdioChild, code: int) -> None:
        if child is not self.child or self.closing:
            return
        say(f"the server exited (status {code}); save the file to start it again")
        self._fail_pending(child, f"the server exited (status {code}) while this request was in flight")

    def _fail_pending(self, child: StdioChild, text: str) -> None:
        for message_id in child.host_pending.values():
            self.error_to_host(message_id, text)
        child.host_pending.clear()

    # -- reloading -----------------------------------------------------------------------------

    def _own_request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        params = dict(params or {})
        if self.meta is not None:
            params.setdefault("_meta", self.meta)
        return {"jsonrpc": "2.0", "id": f"{_OWN_PREFIX}{next(self.ids)}", "method": method, "params": params}

    async def lists(self, child: StdioChild) -> dict[str, list[Any]]:
        """Every page of the child's tools, prompts, resources and templates (an error is empty)."""
        found: dict[str, list[Any]] = {}
        for method, field, _ in _LISTS:
            items: list[Any] = []
            cursor: str | None = None
            for _ in range(100):
                answer = await child.request(self._own_request(method, {"cursor": cursor} if cursor else None))
                result = answer.get("result")
                if not isinstance(result, dict):
                    break
                items.extend(result.get(field) or [])  # pyright: ignore[reportUnknownArgumentType, reportUnknownMemberType]
                cursor = result.get("nextCursor")  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
                if not cursor:
                    break
            found[method] = items
        return found

    async def prepare(self, child: StdioChild) -> None:
        """Replay the handshake to a new child; ChildFailed when it cannot serve."""
        if self.initialize is not None:
            replay = {**self.initialize, "id": f"{_OWN_PREFIX}{next(self.ids)}"}
            answer = await child.request(replay)
            if "error" in answer:
                raise ChildFailed(f"the new server refused initialize: {answer['error'].get('message')}")
            if self.initialized is not None:
                child.send(json.dumps(self.initialized).encode())

    async def reload(self) -> None:
        old = self.child
        talking = self.initialize is not None or self.meta is not None
        new = await self.start_child()
        try:
            await self.prepare(new)
            after = await self.lists(new) if talking else None
        except ChildFailed as failed:
            await new.stop()
            say(f"kept the old server: {failed} (see its error above)")
            return
        before: dict[str, list[Any]] | None = None
        if talking and old is not None and old.process.returncode is None:
            with contextlib.suppress(ChildFailed):
                before = await self.lists(old)
        self.child = new
        if old is not None:
            self._fail_pending(old, "the server was reloaded while this request was in flight; send it again")
        say("reloaded")
        if after is not None:
            sent: set[str] = set()
            for method, _, notification in _LISTS:
                if (before is None or before.get(method) != after.get(method)) and notification not in sent:
                    sent.add(notification)
                    self.to_host({"jsonrpc": "2.0", "method": notification})
        if old is not None:
            await old.stop()  # last: a tool still running in it may hold it up to STOP_TIMEOUT

    async def serve(self) -> int:
        self.child = await self.start_child()
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader(limit=MAX_LINE)
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
        watcher = asyncio.ensure_future(self._watch())
        try:
            while line := await reader.readline():
                self.from_host(line)
        finally:
            watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watcher
            self.closing = True
            await self.child.stop()  # always set from here on: a reload only replaces it
        return self.child.process.returncode or 0

    async def _watch(self) -> None:
        seen = snapshot(self.file)
        while True:
            seen = await next_change(self.file, seen)
            await self.reload()


# -- HTTP --------------------------------------------------------------------------------------


async def _imports_cleanly(file_spec: str) -> bool:
    """Whether a fresh process can load the server the spec names (its error goes to stderr)."""
    probe = await asyncio.create_subprocess_exec(
        sys.executable, "-c", "import sys\nfrom mcp.cli.loading import CLIError, load_server\n"
        "try:\n    load_server(sys.argv[1], require_mcpserver=True)\n"
        "except CLIError as e:\n    sys.exit(f'mcp: {e}')\n", file_spec)
    try:
        return await asyncio.wait_for(probe.wait(), ANSWER_TIMEOUT) == 0
    except asyncio.TimeoutError:
        probe.kill()
        await probe.wait()
        return False


async def _stop(process: asyncio.subprocess.Process) -> None:
    for ask in (process.terminate, process.kill):
        if process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                ask()
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(process.wait(), STOP_TIMEOUT)
            return


async def serve_http(command: list[str], file: Path, file_spec: str) -> int:
    """Run the HTTP server as a child; on a change that imports cleanly, restart it (same port)."""
    child = await asyncio.create_subprocess_exec(*command)
    seen = snapshot(file)
    try:
        while True:
            seen = await next_change(file, seen)
            if not await _imports_cleanly(file_spec):
                say("kept the old server: the edited file does not load (see the error above)")
                continue
            await _stop(child)
            child = await asyncio.create_subprocess_exec(*command)
            say("reloaded")
    finally:
        await _stop(child)


# -- entry -------------------------------------------------------------------------------------


def run_with_reload(file: Path, file_spec: str, transport: str, cli_args: list[str]) -> int:
    """Supervise `mcp run FILE_SPEC CLI_ARGS...` (without --reload) until the host closes stdin
    (stdio) or the supervisor is stopped (SIGINT/SIGTERM); its exit status."""
    command = [sys.executable, "-m", "mcp.cli", "run", file_spec, "--transport", transport, *cli_args]

    async def main() -> int:
        loop = asyncio.get_running_loop()
        task = asyncio.ensure_future(StdioSupervisor(command, file).serve() if transport == "stdio"
                                     else serve_http(command, file, file_spec))
        for signum in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.add_signal_handler(signum, task.cancel)
        try:
            return await task
        except asyncio.CancelledError:
            return 0

    return asyncio.run(main())
