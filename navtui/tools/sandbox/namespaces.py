"""The launcher's namespaces: read-only files inside a writable workspace, and a PID namespace per command.

Landlock grants only add up, so it cannot keep ``.git/config`` read-only inside a writable workspace. A mount
namespace can: the launcher enters a new user namespace (no privilege needed where the kernel allows
unprivileged ones), binds each protected path onto itself read-only, binds the workspace and the git dirs onto
themselves (a mount point cannot be renamed, so ``mv .git x`` cannot swap in a new one), covers every unix socket
bound outside the workspace with ``/dev/null`` (Landlock does not cover ``connect()``; ``hide_sockets``), and
enters a new PID namespace. Then, as bubblewrap does, it forks the namespace's init:

    navtui ── launcher (outside; relays the exit status) ── init (pid 1: mounts /proc, Landlock, drops
                                                              capabilities) ── the command (pid 2)

The command sees only its own processes (``/proc`` is the namespace's), so navtui's environment is out of
reach. When navtui dies, even by ``kill -9``, the launcher gets SIGKILL (parent-death signal), init gets it from
the launcher's death, and the kernel kills every process of the namespace with init. When the command ends, init
sends SIGTERM to what it left running, waits up to the grace period, and reports how many there were.

Where namespaces are not allowed, ``run_reaper`` keeps the tree together instead: the launcher is a child
subreaper (orphans come back to it), and navtui's death makes it kill every descendant.

Only ``os``, ``sys`` and ``ctypes``: this runs in the launcher (``python -S``), before the command.
"""

import ctypes
import os
import sys
import time

TYPE_CHECKING = False  # no typing import at run time: this file must load fast
if TYPE_CHECKING:
    from collections.abc import Callable

CLONE_NEWNS, CLONE_NEWUSER, CLONE_NEWPID = 0x00020000, 0x10000000, 0x20000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_SLAVE = 32, 4096, 16384, 1 << 19
MS_NOATIME, MS_NODIRATIME, MS_RELATIME = 1024, 2048, 1 << 21
_ST_RELATIME = 4096  # statvfs's flag for relatime (the MS_ value differs)
_PR_SET_PDEATHSIG, _PR_CAPBSET_DROP, _PR_SET_CHILD_SUBREAPER = 1, 24, 36
_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL = 47, 4
_SIGKILL, _SIGTERM, _SIGINT, _SIGHUP, _SIGQUIT, _SIGCHLD = 9, 15, 2, 1, 3, 17
_POLLHUP = 0x10


class NamespaceError(Exception):
    """A namespace step failed; the message names the step and the errno."""


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _check(result: int, step: str) -> int:
    if result < 0:
        errno = ctypes.get_errno()
        raise NamespaceError(f"{step}: {os.strerror(errno)} (errno {errno})")
    return result


def _write(path: str, text: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def _mount(libc: ctypes.CDLL, source: "str | None", target: str, fstype: "str | None", flags: int) -> None:
    _check(
        libc.mount(
            source.encode() if source else None,
            target.encode(),
            fstype.encode() if fstype else None,
            ctypes.c_ulong(flags),
            None,
        ),
        f"mount {target}",
    )


def _locked_flags(path: str) -> int:
    """The flags a bind remount must keep (a user namespace may not clear nosuid/nodev/noexec/atime)."""
    flags = os.statvfs(path).f_flag
    kept = flags & (MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_NOATIME | MS_NODIRATIME)
    return kept | (MS_RELATIME if flags & _ST_RELATIME else 0)


def enter(policy: dict) -> None:
    """unshare(user, mount, pid) and the mounts: ``pin`` paths bound onto themselves, ``ro`` paths read-only.

    The command keeps its user id (root stays root, a user stays that user; only that id is mapped).
    The PID namespace applies to the next child: ``run_init`` forks it.
    """
    libc = _libc()
    uid, gid = os.geteuid(), os.getegid()
    flags = CLONE_NEWUSER | CLONE_NEWNS | (CLONE_NEWPID if policy.get("pidns", True) else 0)
    _check(libc.unshare(ctypes.c_int(flags)), "unshare(user, mount, pid namespaces)")
    _write("/proc/self/setgroups", "deny")
    _write("/proc/self/uid_map", f"{uid} {uid} 1")
    _write("/proc/self/gid_map", f"{gid} {gid} 1")
    _mount(libc, None, "/", None, MS_REC | MS_SLAVE)  # nothing done here reaches the outside
    for path in sorted(policy.get("pin", ()), key=len):  # outer first: an inner bind must sit on top
        if os.path.isdir(path):
            _mount(libc, path, path, None, MS_BIND | MS_REC)
    for path in sorted(policy.get("ro", ()), key=len):
        if not os.path.lexists(path) or os.path.islink(path):
            continue  # a symlink would be followed: what it points to is covered by its own entry, if protected
        _mount(libc, path, path, None, MS_BIND | MS_REC)
        _mount(libc, None, path, None, MS_BIND | MS_REMOUNT | MS_RDONLY | _locked_flags(path))
    if policy.get("sockets"):
        hide_sockets(libc, policy.get("pin", ()))
    # The working directory still points into the mounts as they were before: enter it again through the new ones.
    os.chdir(os.getcwd())


def listening_sockets(table: str = "/proc/net/unix") -> list:
    """The paths of the unix-domain sockets bound on this machine (the network namespace's), each once."""
    found: dict = {}
    try:
        with open(table, "rb") as handle:
            lines = handle.read().split(b"\n")[1:]
    except OSError:
        return []
    for line in lines:
        fields = line.split(None, 7)
        if len(fields) == 8 and fields[7].startswith(b"/"):  # "@...": abstract (Landlock's scoping covers those)
            found[os.fsdecode(fields[7])] = None
    return list(found)


def hide_sockets(libc: ctypes.CDLL, keep: "tuple | list") -> int:
    """Put ``/dev/null`` over every unix-domain socket bound outside the ``keep`` folders (the workspace); returns how
    many. Landlock does not cover ``connect()`` to a socket by path, and a socket is a door out of the sandbox: the
    user's tmux server runs ``tmux new-window CMD`` unconfined (and outliving navtui), the session bus
    ``systemd-run --user``, the Docker daemon a container with ``/`` mounted, an ssh ``ControlMaster`` commands on
    other hosts. Bound over, such a path refuses the connection. Sockets the command binds itself are its own."""
    roots = [root.rstrip("/") + "/" for root in keep]
    hidden = 0
    for path in listening_sockets():
        if any(path.startswith(root) for root in roots):
            continue
        try:
            if os.lstat(path).st_mode & 0o170000 != 0o140000:  # not a socket (a link, or a file in its place)
                continue
            _mount(libc, "/dev/null", path, None, MS_BIND)
        except (NamespaceError, OSError):
            continue  # a socket this user cannot reach (another user's private folder) needs no hiding
        hidden += 1
    return hidden


def drop_capabilities() -> None:
    """No capability survives into the command (not even in its own namespace: it could unmount the read-only
    binds otherwise): the bounding set is emptied, then the sets themselves."""
    libc = _libc()
    try:
        with open("/proc/sys/kernel/cap_last_cap") as handle:
            last = int(handle.read())
    except (OSError, ValueError):
        last = 40
    for cap in range(last + 1):
        libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0)
    libc.prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    header = _CapHeader(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3: two data structs
    data = (_CapData * 2)()
    _check(libc.capset(ctypes.byref(header), ctypes.byref(data)), "capset")


def _parent_gone(fd: int) -> bool:
    import select  # a C module, cheap

    poller = select.poll()
    poller.register(fd, _POLLHUP)
    return bool(poller.poll(0))


def _others() -> list:
    """The namespace's processes other than init, zombies reaped first."""
    _reap()
    return [int(name) for name in os.listdir("/proc") if name.isdigit() and name != "1"]


def _reap() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _init(policy: dict, command: list, status_fd: int, alive_fd: int, prepare: "Callable[[], None]") -> None:
    """Pid 1 of the namespace: /proc, the sandbox, the command; then what it left behind. Never returns."""
    libc = _libc()
    libc.prctl(_PR_SET_PDEATHSIG, _SIGKILL, 0, 0, 0)
    if _parent_gone(alive_fd):
        os._exit(137)  # the launcher died before the prctl: nobody would stop us
    try:
        _mount(libc, "proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
        prepare()  # Landlock and no-new-privs, then the capabilities go
        drop_capabilities()
    except Exception as exc:  # noqa: BLE001 - fail closed, whatever went wrong
        print(f"navtui: the sandbox could not be applied ({exc}); nothing was run", file=sys.stderr)
        os.write(status_fd, f"{126 << 8} 0".encode())
        os._exit(0)
    child = os.fork()
    if child == 0:
        os.close(status_fd)
        os.close(alive_fd)
        _exec(command)
    status = None
    while status is None:
        try:
            pid, raw = os.waitpid(-1, 0)
        except ChildProcessError:
            break
        if pid == child:
            status = raw
    left = _others()
    if left:
        for pid in left:
            try:
                os.kill(pid, _SIGTERM)
            except OSError:
                pass
        deadline = time.monotonic() + float(policy.get("grace", 2))
        while time.monotonic() < deadline and _others():
            time.sleep(0.02)
    os.write(status_fd, f"{status if status is not None else 255 << 8} {len(left)}".encode())
    os._exit(0)  # the kernel kills whatever is still running in the namespace


def _exec(command: list) -> None:
    from_defaults()
    os._exit(exec_command(command))


def exec_command(command: list) -> int:
    """``exec`` the command; when that fails, say why and return the shell's status for it (127, 126).

    A name without a slash is looked for in the absolute folders of ``PATH`` only: an empty entry (``PATH=a::b``,
    a trailing ``:``) or ``.`` is the current folder, the workspace, where a repository may ship a ``git`` or an
    ``npx``. A folder this user may not enter is skipped, as a shell does (``execvp`` reported "Permission denied"
    for a missing program when ``PATH`` held one).
    """
    name = command[0]
    try:
        if "/" in name:
            os.execv(name, command)
        found = False  # a file of that name that may not be run: the error, when nothing else runs
        for folder in os.environ.get("PATH", os.defpath).split(os.pathsep):
            path = os.path.join(folder, name)
            if folder.startswith("/") and os.path.isfile(path):
                if os.access(path, os.X_OK):
                    os.execv(path, command)
                found = True
        if found:
            raise PermissionError(13, "Permission denied")
        raise FileNotFoundError(2, "No such file or directory")
    except OSError as exc:
        print(f"navtui: cannot run {name}: {exc.strerror}", file=sys.stderr)
        return 127 if isinstance(exc, FileNotFoundError) else 126


def from_defaults() -> None:
    """The signals a command expects at their defaults (Python ignores SIGPIPE and SIGXFSZ; the launcher
    ignores the stop signals while it waits)."""
    import _signal  # the C module under ``signal``: no enum import

    for name in ("SIGPIPE", "SIGXFSZ", "SIGTERM", "SIGINT", "SIGHUP", "SIGQUIT"):
        if hasattr(_signal, name):
            _signal.signal(getattr(_signal, name), _signal.SIG_DFL)


def _ignore_stop_signals() -> None:
    import _signal

    for name in ("SIGTERM", "SIGINT", "SIGHUP", "SIGQUIT"):
        _signal.signal(getattr(_signal, name), _signal.SIG_IGN)


def _report(policy: dict, leftovers: int) -> None:
    fd = policy.get("report")
    if fd is None:
        return
    try:
        os.write(int(fd), f"leftovers {leftovers}\n".encode())
        os.close(int(fd))
    except OSError:
        pass


def _exit_like(raw: int) -> None:
    """End this process the way the command ended: its exit code, or the signal that killed it."""
    if os.WIFSIGNALED(raw):
        import _signal

        signum = os.WTERMSIG(raw)
        if signum != _SIGKILL:
            _signal.signal(signum, _signal.SIG_DFL)
        os.kill(os.getpid(), signum)
        os._exit(128 + signum)
    os._exit(os.waitstatus_to_exitcode(raw) if os.WIFEXITED(raw) else 255)


def run_init(policy: dict, command: list, prepare: "Callable[[], None]") -> None:
    """In the launcher, after ``enter``: fork init, wait for it, end as the command ended. Never returns.

    The launcher ignores SIGTERM/SIGINT/SIGHUP: navtui's stop reaches the command (same process group), and the
    launcher must outlive init, whose parent-death signal would otherwise cut the command's grace period short.
    """
    status_r, status_w = os.pipe()
    alive_r, alive_w = os.pipe()
    _ignore_stop_signals()
    child = os.fork()
    if child == 0:
        os.close(status_r)
        os.close(alive_w)
        report = policy.get("report")
        if report is not None:
            os.close(int(report))
        _init(policy, command, status_w, alive_r, prepare)
    os.close(status_w)
    os.close(alive_r)
    while True:
        try:
            os.waitpid(child, 0)
            break
        except ChildProcessError:
            break
    text = os.read(status_r, 64).decode(errors="replace").split()
    raw, left = (int(text[0]), int(text[1])) if len(text) == 2 else (126 << 8, 0)
    _report(policy, left)
    _exit_like(raw)


# ---------------------------------------------------------------------------------------- without namespaces
_tree_root = 0


def _descendants(root: int) -> list:
    children: dict = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as handle:
                data = handle.read()
        except OSError:
            continue
        fields = data[data.rfind(b")") + 2 :].split()
        if len(fields) > 1:
            children.setdefault(int(fields[1]), []).append(int(name))
    found, queue = [], [root]
    while queue:
        for pid in children.get(queue.pop(), ()):
            found.append(pid)
            queue.append(pid)
    return found


def _kill_tree(signum: int, frame: object) -> None:
    """navtui died: SIGKILL everything below the launcher (orphans came to it: it is their subreaper)."""
    for _ in range(20):
        tree = _descendants(_tree_root)
        if not tree:
            break
        for pid in tree:
            try:
                os.kill(pid, _SIGKILL)
            except OSError:
                pass
        _reap()
    os._exit(137)


def run_reaper(policy: dict, command: list, prepare: "Callable[[], None]") -> None:
    """No namespaces: the launcher stays the command's parent, adopts its orphans (child subreaper) and kills
    the whole tree when navtui dies (its parent-death signal, ``treesig``, is caught for that). Never returns."""
    global _tree_root
    import _signal

    libc = _libc()
    _tree_root = os.getpid()
    libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    _signal.signal(int(policy.get("treesig", 10)), _kill_tree)
    libc.prctl(_PR_SET_PDEATHSIG, int(policy.get("treesig", 10)), 0, 0, 0)
    if os.getppid() != policy.get("parent", os.getppid()):
        os._exit(137)
    try:
        prepare()  # Landlock here too: the launcher cannot be signalled by the sandboxed command
    except Exception as exc:  # noqa: BLE001 - fail closed
        print(f"navtui: the sandbox could not be applied ({exc}); nothing was run", file=sys.stderr)
        os._exit(126)
    _ignore_stop_signals()
    child = os.fork()
    if child == 0:
        libc.prctl(_PR_SET_PDEATHSIG, _SIGKILL, 0, 0, 0)
        if policy.get("report") is not None:
            os.close(int(policy["report"]))
        _exec(command)
    while True:
        try:
            pid, raw = os.waitpid(-1, 0)  # orphans too: they are ours now
        except ChildProcessError:
            os._exit(255)
        if pid == child:
            break
    _report(policy, 0)  # what is left goes back to navtui, which stops and counts it as before
    _exit_like(raw)


def probe() -> int:
    """0 when this machine lets this process do what ``enter`` and ``_init`` do; else non-zero, and why on
    stderr. Runs in a throwaway child, so the launcher itself stays outside."""
    pid = os.fork()
    if pid == 0:
        try:
            enter({"pin": (), "ro": ()})
            inner = os.fork()
            if inner == 0:
                try:
                    _mount(_libc(), "proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
                    drop_capabilities()
                except NamespaceError as exc:
                    print(exc, file=sys.stderr)
                    os._exit(3)
                os._exit(0)
            _, raw = os.waitpid(inner, 0)
            os._exit(os.waitstatus_to_exitcode(raw))
        except (NamespaceError, OSError) as exc:
            print(exc, file=sys.stderr)
            os._exit(2)
    _, raw = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(raw)
