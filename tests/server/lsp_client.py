"""A minimal LSP client over stdio for the server's tests and benchmarks/server_speed.py.

Starts ``python -m hylint.server`` as a child process, frames JSON-RPC messages (Content-Length
headers), answers the server's own requests with null, and always ends the child (``close``).
"""
from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from typing import Any, Callable, Dict, List, Optional


class LspClient:
    def __init__(self, cwd: Optional[str] = None, env: Optional[Dict[str, str]] = None,
                 command: Optional[List[str]] = None) -> None:
        self.process = subprocess.Popen(command or [sys.executable, "-m", "hylint.server"], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd,
                                        env=env or os.environ.copy())
        self._next_id = 0
        self._responses: Dict[int, "queue.Queue[dict]"] = {}
        self._lock = threading.Lock()
        self.notifications: "queue.Queue[dict]" = queue.Queue()
        self.received: List[dict] = []  # every notification, also those wait_for skipped
        self.server_requests: List[dict] = []
        self.stderr = b""
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self._stderr_reader = threading.Thread(target=self._read_stderr, daemon=True)
        self._stderr_reader.start()

    # -- wire -------------------------------------------------------------------------------------
    def _send(self, message: dict) -> None:
        body = json.dumps(message).encode("utf-8")
        with self._lock:
            self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            self.process.stdin.flush()

    def _read(self) -> None:
        stream = self.process.stdout
        while True:
            length = None
            while True:
                line = stream.readline()
                if not line:
                    return
                line = line.strip()
                if not line:
                    break
                name, _, value = line.partition(b":")
                if name.lower() == b"content-length":
                    length = int(value)
            message = json.loads(stream.read(length))
            if "id" in message and "method" in message:  # a request of the server: answer it
                self.server_requests.append(message)
                self._send({"jsonrpc": "2.0", "id": message["id"], "result": None})
            elif "id" in message:
                self._responses.setdefault(message["id"], queue.Queue()).put(message)
            else:
                self.received.append(message)
                self.notifications.put(message)

    def _read_stderr(self) -> None:
        for chunk in iter(lambda: self.process.stderr.read1(4096), b""):
            self.stderr += chunk

    # -- JSON-RPC ---------------------------------------------------------------------------------
    def request(self, method: str, params: Any, timeout: float = 60) -> Any:
        self._next_id += 1
        ident = self._next_id
        box = self._responses.setdefault(ident, queue.Queue())
        self._send({"jsonrpc": "2.0", "id": ident, "method": method, "params": params})
        response = box.get(timeout=timeout)
        del self._responses[ident]
        if "error" in response:
            raise RuntimeError(f"{method}: {response['error']}")
        return response.get("result")

    def notify(self, method: str, params: Any) -> None:
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def wait_for(self, method: str, predicate: Callable[[dict], bool] = lambda p: True,
                 timeout: float = 60) -> dict:
        """The params of the next notification ``method`` that satisfies ``predicate`` (others are dropped)."""
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"no {method} within {timeout} s; server stderr: {self.stderr[-2000:]!r}")
            try:
                message = self.notifications.get(timeout=remaining)
            except queue.Empty:
                continue
            if message.get("method") == method and predicate(message.get("params")):
                return message["params"]

    def diagnostics(self, uri: str, version: Optional[int] = None, timeout: float = 60) -> List[dict]:
        params = self.wait_for("textDocument/publishDiagnostics",
                               lambda p: p["uri"] == uri and (version is None or p.get("version") == version),
                               timeout)
        return params["diagnostics"]

    # -- session ----------------------------------------------------------------------------------
    def initialize(self, root_uri: Optional[str] = None, capabilities: Optional[dict] = None) -> dict:
        result = self.request("initialize", {"processId": os.getpid(), "rootUri": root_uri,
                                             "capabilities": capabilities or {}})
        self.notify("initialized", {})
        return result

    def shutdown(self, timeout: float = 30) -> int:
        """shutdown + exit; the exit code of the server."""
        self.request("shutdown", None, timeout=timeout)
        self.notify("exit", None)
        return self.process.wait(timeout=timeout)

    def close(self) -> None:
        """End the child whatever state it is in."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=30)
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            try:
                stream.close()
            except OSError:
                pass
