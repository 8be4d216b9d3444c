"""The shell sandbox policy: which mode, what a command may write, whether it may open TCP connections.

Modes, as Codex names them:
- ``workspace-write``: writes in the workspace (and ``tools.extra_roots``), the repository's git directory, the
  system temp dir, the session's scratch dir, ``/dev/shm`` and ``sandbox.writable_roots``; everything else is
  read-only.
- ``read-only``: writes only in the temp dir, the scratch dir and ``/dev/shm``.
- ``off``: no sandbox.
In both sandboxed modes TCP ``connect``/``bind`` fail unless ``sandbox.network`` is true (Landlock ABI 4+), and
a command cannot signal processes outside its sandbox (ABI 6+). In both, git's config and hooks, .navtui/,
.mcp.json and .env* are read-only to commands (``guard``). The policy is data; ``sandbox/exec.py`` (the
launcher between fork and exec) enforces it with Landlock and, where the system allows unprivileged user
namespaces, with read-only binds in a mount namespace and a PID namespace per command (``namespaces``).
Where Landlock is missing, the mode degrades to ``off``; where namespaces are, guarded files are checked after
each command instead; ``warning`` says so, never silently.
"""

from __future__ import annotations

import functools
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from navtui.config.settings import SandboxMode
from navtui.tools.sandbox import exec as launcher
from navtui.tools.sandbox.exec import usable_abi

if TYPE_CHECKING:
    from navtui.tools.sandbox.guard import Guarded

MODES: tuple[SandboxMode, ...] = ("workspace-write", "read-only", "off")
MODE_HELP = {
    "workspace-write": "commands write only in the workspace and temp dirs",
    "read-only": "commands write only in the temp dirs",
    "off": "commands run without a sandbox",
}
NETWORK_ABI = 4  # TCP bind/connect rules
SCOPE_ABI = 6  # signal and abstract-unix-socket scoping
WRITABLE_DEVICES = ("/dev/null", "/dev/zero", "/dev/full")
# Set only by tests and by users who must: 0 makes navtui act as if user namespaces were not allowed.
NAMESPACES_ENV = "NAVTUI_SANDBOX_NAMESPACES"


@functools.cache
def _probe_namespaces() -> str:
    try:
        out = subprocess.run(
            [sys.executable, "-E", "-s", "-S", launcher.__file__, "--probe"],
            capture_output=True,
            text=True,
            timeout=20,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"the probe could not run ({exc})"
    if out.returncode == 0:
        return ""
    detail = (out.stderr.strip().splitlines() or ["no reason given"])[-1]
    return f"this system does not let navtui create a user namespace ({detail})"


def namespace_support() -> tuple[bool, str]:
    """(True, "") when commands can get their own user, mount and PID namespaces; else (False, why not)."""
    if not sys.platform.startswith("linux"):
        return False, "namespaces are Linux-only"
    if os.environ.get(NAMESPACES_ENV, "").strip() == "0":
        return False, f"{NAMESPACES_ENV}=0 is set"
    why = _probe_namespaces()
    return not why, why


@dataclass(frozen=True)
class SandboxPolicy:
    """What commands may do. ``mode`` is what is enforced; ``requested`` what settings or flags asked for."""

    mode: SandboxMode = "off"
    requested: SandboxMode = "off"
    network: bool = True  # may commands open TCP connections (false is enforced only from ABI 4)
    abi: int = 0
    writable: tuple[Path, ...] = ()
    unavailable: str | None = None  # why Landlock is missing, when a sandboxed mode was asked for
    namespaces: bool = False  # commands get user, mount and PID namespaces (read-only binds, own /proc)
    no_namespaces: str | None = None  # why not, when a sandboxed mode runs without them
    roots: tuple[Path, ...] = ()  # the workspace roots
    git: tuple[Path, ...] = ()  # the repository's git dirs

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
        if self.active and self.no_namespaces:
            return (
                f"The stronger sandbox is not available ({self.no_namespaces}): commands run without their own "
                "mount and PID namespaces, so git's config and hooks, .navtui/, .mcp.json and .env* are checked "
                "after each command and changes are undone, and a command's processes are stopped by navtui "
                "rather than by the kernel. Allow unprivileged user namespaces for the stronger mode."
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
        if (
            self.namespaces
            and self.mode == "read-only"
            and any(path == r or path.is_relative_to(r) for r in self.roots)
        ):
            return False  # bound read-only, even inside a writable temp dir
        return any(path == root or path.is_relative_to(root) for root in self.writable)

    def _writable_now(self) -> list[Path]:
        """``writable``; but in read-only without namespaces, a temp dir holding the workspace is opened entry by
        entry, all but the one the workspace is in (Landlock grants only add up: this is the one way to keep
        the workspace out). Files directly in that temp dir cannot be created then; ``$TMPDIR`` (the job's
        scratch dir) and its other folders stay writable."""
        if self.mode != "read-only" or self.namespaces:
            return list(self.writable)
        paths: list[Path] = []
        for root in self.writable:
            inside = [r for r in self.roots if r != root and r.is_relative_to(root)]
            if not inside:
                paths.append(root)
                continue
            keep_out = {root / r.relative_to(root).parts[0] for r in inside}
            try:
                paths += [root / name for name in sorted(os.listdir(root)) if root / name not in keep_out]
            except OSError:
                continue
        return paths

    def guarded(self) -> Guarded:
        """The files commands must not change (git's config and hooks, .navtui/, .mcp.json, .env*), now."""
        from navtui.tools.sandbox.guard import guarded_paths, hooks_path  # with the first command: ~0.15 MB

        hooks = hooks_path(self.roots[0]) if self.roots and self.git else None
        return guarded_paths(self.roots, self.git, hooks=hooks)

    def launcher_policy(
        self,
        parent: int,
        *,
        write_dirs: Iterable[Path] = (),
        write_files: Iterable[Path] = (),
        report: int | None = None,
        guarded: Guarded | None = None,
    ) -> dict[str, Any]:
        """The policy ``sandbox/exec.py`` reads: the parent-death guard and the process tree kept together, plus
        Landlock rules and the namespaces' read-only binds when active.

        ``write_dirs`` and ``write_files`` belong to one job: its scratch dir and its own output file (so
        ``echo >/dev/stderr``, which reopens that file through ``/proc/self/fd``, works). ``report``: a pipe the
        launcher writes ``leftovers N`` to. ``guarded``: what ``guarded()`` returned for this command.
        """
        policy: dict[str, Any] = {"parent": parent, "deathsig": 9, "tree": True}
        if report is not None:
            policy["report"] = report
        if self.active:
            policy.update(
                abi=self.abi,
                write=[*(str(p) for p in self._writable_now()), *(str(p) for p in write_dirs)],
                write_files=[*WRITABLE_DEVICES, *(str(p) for p in write_files)],
                network=self.network,
                scope=True,
            )
            if self.namespaces:
                guard = guarded if guarded is not None else self.guarded()
                read_only = [*guard.read_only, *(self.roots if self.mode == "read-only" else ())]
                policy.update(ns=True, pin=[str(p) for p in guard.pins], ro=[str(p) for p in read_only], sockets=True)
        return policy

    def describe(self) -> str:
        """Several lines for ``/sandbox`` and ``navtui sandbox``."""
        lines = [f"Sandbox: {self.mode} — {MODE_HELP[self.mode]}."]
        if self.active:
            net = "allowed" if not self.network_blocked else "blocked (TCP connect and bind; UDP is not covered)"
            lines.append(f"Network: {net}.")
            lines.append("Writable: " + ", ".join(str(p) for p in self.writable) + ", /dev/null.")
            lines.append(f"Landlock ABI {self.abi}; navtui itself is not confined.")
            if self.namespaces:
                lines.append(
                    "Namespaces: each command has its own mount and PID namespace: git's config and hooks, "
                    ".navtui/, .mcp.json and .env* are read-only"
                    + (" and so is the workspace" if self.mode == "read-only" else "")
                    + "; unix sockets outside the workspace refuse it (tmux, the session bus, Docker)"
                    + "; it sees only its own processes, and they all stop when navtui does."
                )
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
    workspace = [Path(r) for r in roots]
    repository = git_dirs(workspace[0]) if workspace else []
    if mode == "workspace-write":
        writable.extend(workspace)
        writable.extend(repository)
        writable.extend(Path(os.path.expanduser(str(p))).resolve() for p in writable_roots)
    writable.extend(temp_roots() if temp is None else temp)
    if Path("/dev/shm").is_dir():
        writable.append(Path("/dev/shm"))  # POSIX semaphores and shared memory (multiprocessing needs it)
    usable, why = namespace_support()
    return SandboxPolicy(
        mode,
        mode,
        network=network,
        abi=abi,
        writable=_distinct(writable),
        namespaces=usable,
        no_namespaces=None if usable else why,
        roots=_distinct(workspace),
        git=_distinct(repository),
    )


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
