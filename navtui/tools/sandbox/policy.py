"""The shell sandbox policy: which mode, what a command may write, whether it may open TCP connections.

Modes, as Codex names them:
- ``workspace-write``: writes in the workspace (and ``tools.extra_roots``), the repository's git directory, the
  system temp dir, the session's scratch dir, ``/dev/shm`` and ``sandbox.writable_roots``; everything else is
  read-only.
- ``read-only``: writes only in the temp dir, the scratch dir and ``/dev/shm``.
- ``off``: no sandbox.
In both sandboxed modes TCP ``connect``/``bind`` fail unless ``sandbox.network`` is true (Landlock ABI 4+), and
a command cannot signal processes outside its sandbox (ABI 6+). The policy is data; ``sandbox/exec.py`` (the
launcher between fork and exec) enforces it with Landlock. Where Landlock is missing, the mode degrades to
``off`` and ``warning`` says so, never silently.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from navtui.config.settings import SandboxMode
from navtui.tools.sandbox.exec import usable_abi

MODES: tuple[SandboxMode, ...] = ("workspace-write", "read-only", "off")
MODE_HELP = {
    "workspace-write": "commands write only in the workspace and temp dirs",
    "read-only": "commands write only in the temp dirs",
    "off": "commands run without a sandbox",
}
NETWORK_ABI = 4  # TCP bind/connect rules
SCOPE_ABI = 6  # signal and abstract-unix-socket scoping
WRITABLE_DEVICES = ("/dev/null", "/dev/zero", "/dev/full")


@dataclass(frozen=True)
class SandboxPolicy:
    """What commands may do. ``mode`` is what is enforced; ``requested`` what settings or flags asked for."""

    mode: SandboxMode = "off"
    requested: SandboxMode = "off"
    network: bool = True  # may commands open TCP connections (false is enforced only from ABI 4)
    abi: int = 0
    writable: tuple[Path, ...] = ()
    unavailable: str | None = None  # why Landlock is missing, when a sandboxed mode was asked for

    @property
    def active(self) -> bool:
        return self.mode != "off"

    @property
    def network_blocked(self) -> bool:
        return self.active and not self.network and self.abi >= NETWORK_ABI

    @property
    def label(self) -> str:
        """For the status line: the mode, ``+net`` when a sandboxed command may use the network."""
        if not self.active:
            return "off!" if self.unavailable else "off"
        return self.mode + ("+net" if not self.network_blocked else "")

    @property
    def warning(self) -> str | None:
        """Said once at start and in ``/sandbox``: the sandbox asked for is not (all) there."""
        if self.unavailable:
            return (
                f"The {self.requested} sandbox is not available ({self.unavailable}): shell commands run "
                "unconfined. Set sandbox.mode to off to acknowledge, or use a kernel with Landlock (5.13+)."
            )
        if self.active and not self.network and self.abi < NETWORK_ABI:
            return (
                f"This kernel's Landlock (ABI {self.abi}) cannot block TCP (ABI {NETWORK_ABI}, Linux 6.7+): "
                "sandboxed commands can still use the network."
            )
        return None

    def can_write(self, path: Path) -> bool:
        """True when the policy lets a command write ``path`` (resolved). Always true with no sandbox."""
        if not self.active:
            return True
        if str(path) in WRITABLE_DEVICES:
            return True
        return any(path == root or path.is_relative_to(root) for root in self.writable)

    def launcher_policy(
        self, parent: int, *, write_dirs: Iterable[Path] = (), write_files: Iterable[Path] = ()
    ) -> dict[str, Any]:
        """The JSON object ``sandbox/exec.py`` reads: the parent-death guard, plus Landlock rules when active.

        ``write_dirs`` and ``write_files`` belong to one job: its scratch dir and its own output file (so
        ``echo >/dev/stderr``, which reopens that file through ``/proc/self/fd``, works).
        """
        policy: dict[str, Any] = {"parent": parent, "deathsig": 9}
        if self.active:
            policy.update(
                abi=self.abi,
                write=[*(str(p) for p in self.writable), *(str(p) for p in write_dirs)],
                write_files=[*WRITABLE_DEVICES, *(str(p) for p in write_files)],
                network=self.network,
                scope=True,
            )
        return policy

    def describe(self) -> str:
        """Several lines for ``/sandbox`` and ``navtui sandbox``."""
        lines = [f"Sandbox: {self.mode} — {MODE_HELP[self.mode]}."]
        if self.active:
            net = "allowed" if not self.network_blocked else "blocked (TCP connect and bind; UDP is not covered)"
            lines.append(f"Network: {net}.")
            lines.append("Writable: " + ", ".join(str(p) for p in self.writable) + ", /dev/null.")
            lines.append(f"Landlock ABI {self.abi}; navtui itself is not confined.")
        warning = self.warning
        if warning:
            lines.append(f"Warning: {warning}")
        others = ", ".join(m for m in MODES if m != self.mode)
        lines.append(f"Other modes: {others} (/sandbox MODE for this session, --sandbox or sandbox.mode).")
        return "\n".join(lines)


def temp_roots() -> list[Path]:
    """The system temp dirs commands may write: ``$TMPDIR`` (Python's choice) and ``/tmp``."""
    roots = [Path(tempfile.gettempdir()).resolve()]
    if Path("/tmp").is_dir():
        roots.append(Path("/tmp").resolve())
    return roots


def git_dirs(cwd: Path) -> list[Path]:
    """The repository's git directories (a worktree's own and the common one), so git works from a subfolder."""
    from navtui.config.paths import find_repo_root

    root = find_repo_root(cwd)
    if root is None:
        return []
    dotgit = root / ".git"
    if dotgit.is_dir():
        return [dotgit.resolve()]
    try:
        line = dotgit.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return []
    if not line.startswith("gitdir:"):
        return []
    gitdir = (root / line.removeprefix("gitdir:").strip()).resolve()
    dirs = [gitdir]
    try:
        common = (gitdir / (gitdir / "commondir").read_text(encoding="utf-8").strip()).resolve()
    except (OSError, UnicodeDecodeError):
        return dirs
    return [*dirs, common]


def build_policy(
    mode: SandboxMode,
    *,
    network: bool = False,
    roots: Iterable[Path] = (),
    writable_roots: Iterable[Path] = (),
    temp: Iterable[Path] | None = None,
) -> SandboxPolicy:
    """The policy for ``mode`` on this machine. ``roots`` are the workspace roots (cwd first).

    ``temp`` replaces the system temp dirs (tests keep their "outside" directory out of ``/tmp`` this way).
    """
    if mode == "off":
        return SandboxPolicy("off", "off", network=True)
    abi, why = usable_abi()
    if abi <= 0:
        return SandboxPolicy("off", mode, network=True, unavailable=why or "Landlock is not available")
    writable: list[Path] = []
    if mode == "workspace-write":
        workspace = [Path(r) for r in roots]
        writable.extend(workspace)
        if workspace:
            writable.extend(git_dirs(workspace[0]))
        writable.extend(Path(os.path.expanduser(str(p))).resolve() for p in writable_roots)
    writable.extend(temp_roots() if temp is None else temp)
    if Path("/dev/shm").is_dir():
        writable.append(Path("/dev/shm"))  # POSIX semaphores and shared memory (multiprocessing needs it)
    return SandboxPolicy(mode, mode, network=network, abi=abi, writable=_distinct(writable))


def _distinct(paths: Iterable[Path]) -> tuple[Path, ...]:
    """Resolved, in order, without repeats."""
    return tuple(dict.fromkeys(Path(p).resolve() for p in paths))


def policy_from_settings(
    settings: Any, roots: Iterable[Path], *, mode: SandboxMode | None = None, temp: Iterable[Path] | None = None
) -> SandboxPolicy:
    """The policy the ``sandbox`` settings section asks for (defaults when ``settings`` is None).

    ``mode`` replaces the configured mode (``/sandbox MODE``, ``navtui sandbox run --mode``).
    """
    section = getattr(settings, "sandbox", None)
    chosen: SandboxMode = mode if mode is not None else getattr(section, "mode", "workspace-write")
    return build_policy(
        chosen,
        network=bool(getattr(section, "network", False)),
        roots=roots,
        writable_roots=[Path(p) for p in getattr(section, "writable_roots", [])],
        temp=temp,
    )
