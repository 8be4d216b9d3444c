"""What sandbox tests share: a policy whose temp dir is not ``/tmp`` (pytest's own tmp lives there), a context
around it, and a canary (loopback TCP, or a unix socket) that counts who reached it."""

from __future__ import annotations

import contextlib
import socket
import sys
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from navtui.tools.base import ToolContext
from navtui.tools.registry import make_context
from navtui.tools.sandbox.exec import kernel_abi
from navtui.tools.sandbox.policy import SandboxMode, SandboxPolicy, build_policy

PY = sys.executable  # not a `python3` shim on PATH: the interpreter running the tests
KERNEL_ABI = kernel_abi()[0]
needs_landlock = pytest.mark.skipif(KERNEL_ABI < 1, reason="the kernel has no Landlock")
needs_network_rules = pytest.mark.skipif(KERNEL_ABI < 4, reason="Landlock TCP rules need ABI 4 (Linux 6.7)")
needs_scoping = pytest.mark.skipif(KERNEL_ABI < 6, reason="Landlock signal scoping needs ABI 6 (Linux 6.12)")


def policy(
    mode: SandboxMode,
    ws: Path,
    tmp_path: Path,
    *,
    network: bool = False,
    writable_roots: Iterable[Path] = (),
    roots: Iterable[Path] = (),
) -> SandboxPolicy:
    """The real policy for ``mode``, with ``tmp_path/systmp`` standing in for the system temp dir."""
    systmp = tmp_path / "systmp"
    systmp.mkdir(exist_ok=True)
    return build_policy(mode, network=network, roots=[ws, *roots], writable_roots=writable_roots, temp=[systmp])


def sandboxed_context(ws: Path, tmp_path: Path, sandbox: SandboxPolicy, settings: Any = None) -> ToolContext:
    return make_context(ws, settings, tmp_path / "artifacts", sandbox=sandbox)


class Canary:
    """A listener that records each connection it accepts: TCP on 127.0.0.1, or the listening socket given (a
    unix-domain one at a path: an agent, a multiplexer, a bus, whatever answers there runs outside the sandbox)."""

    def __init__(self, server: socket.socket | None = None) -> None:
        self.server = server or socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1] if self.server.family == socket.AF_INET else 0
        self.connections = 0
        self.reached = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            self.connections += 1
            self.reached.set()
            conn.close()

    def connect_command(self) -> str:
        return f"{PY} -c 'import socket; socket.create_connection((\"127.0.0.1\", {self.port}), timeout=5)'"

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.server.shutdown(socket.SHUT_RDWR)  # wakes the accept (a close alone does not)
        self.server.close()
        self._thread.join(10)


def unix_canary(path: Path) -> Canary:
    """A canary listening on a unix-domain socket at ``path``."""
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    server.listen()
    return Canary(server)
