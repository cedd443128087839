"""A host-like client for the `--reload` tests: it starts a real `mcp run` subprocess, writes
JSON-RPC lines to its stdin and reads its stdout and stderr on threads, so a test waits for a
message (bounded by a timeout) instead of sleeping."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import threading
import time
from collections.abc import Callable
from typing import IO, Any

from clikit import MCP

WAIT = 60.0
"""The most a test waits for one message (a reload imports the server afresh)."""


class Host:
    """`mcp ARGS...` on a pipe, driven as an MCP host drives a stdio server."""

    def __init__(self, *args: str, env: dict[str, str] | None = None) -> None:
        self.process = subprocess.Popen([*MCP, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, env={**os.environ, **(env or {})})
        self.messages: queue.Queue[dict[str, Any]] = queue.Queue()
        self.errors: queue.Queue[str] = queue.Queue()
        self.stderr: list[str] = []
        self._ids = 0
        assert self.process.stdout is not None and self.process.stderr is not None
        self._threads = [threading.Thread(target=self._read_messages, args=(self.process.stdout,), daemon=True),
                         threading.Thread(target=self._read_errors, args=(self.process.stderr,), daemon=True)]
        for thread in self._threads:
            thread.start()

    def _read_messages(self, stream: IO[bytes]) -> None:
        for line in stream:
            self.messages.put(json.loads(line))

    def _read_errors(self, stream: IO[bytes]) -> None:
        for line in stream:
            text = line.decode(errors="replace")
            self.stderr.append(text)
            self.errors.put(text)

    def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()

    def request(self, method: str, params: dict[str, Any] | None = None) -> int:
        """Send a request; its id."""
        self._ids += 1
        self.send({"jsonrpc": "2.0", "id": self._ids, "method": method, "params": params or {}})
        return self._ids

    def wait_for(self, wanted: Callable[[dict[str, Any]], bool], what: str) -> dict[str, Any]:
        """The first message (from now) that `wanted` accepts; others are dropped."""
        deadline = time.monotonic() + WAIT
        while (left := deadline - time.monotonic()) > 0:
            try:
                message = self.messages.get(timeout=left)
            except queue.Empty:
                break
            if wanted(message):
                return message
        raise AssertionError(f"no {what} within {WAIT:g}s; stderr:\n{''.join(self.stderr)}")

    def answer(self, request_id: int) -> dict[str, Any]:
        return self.wait_for(lambda message: message.get("id") == request_id and "method" not in message,
                             f"answer to request {request_id}")

    def call(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        return self.answer(self.request(method, params))

    def notified(self, method: str) -> dict[str, Any]:
        return self.wait_for(lambda message: message.get("method") == method, method)

    def said(self, text: str) -> str:
        """The first stderr line (from now) containing `text`."""
        deadline = time.monotonic() + WAIT
        while (left := deadline - time.monotonic()) > 0:
            try:
                line = self.errors.get(timeout=left)
            except queue.Empty:
                break
            if text in line:
                return line
        raise AssertionError(f"stderr never said {text!r}:\n{''.join(self.stderr)}")

    def handshake(self, version: str = "2025-06-18") -> dict[str, Any]:
        result = self.call("initialize", {"protocolVersion": version, "capabilities": {},
                                          "clientInfo": {"name": "host", "version": "1"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return result

    def tool_names(self) -> list[str]:
        return sorted(tool["name"] for tool in self.call("tools/list")["result"]["tools"])

    def close(self) -> int:
        """Close stdin (as a host does), wait, and stop the process if it lingers; its status."""
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            return self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.terminate()
            try:
                return self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                return self.process.wait()
        finally:
            for thread in self._threads:
                thread.join(timeout=10)
            for stream in (self.process.stdout, self.process.stderr):
                if stream is not None:
                    stream.close()
