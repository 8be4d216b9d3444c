"""The launcher every shell job starts through: parent-death signal, then Landlock, then ``exec`` of the command.

    python -E -s -S .../sandbox/exec.py parent=4242 deathsig=9 abi=7 network=0 scope=1 write=/repo ... -- bash -c CMD

It runs in the child between navtui's fork and the command's exec, so navtui itself is never confined and no
Python code runs in a forked copy of a threaded process (``preexec_fn`` is unsafe there). Every command pays for
this interpreter start, so the file imports only ``os``, ``sys`` and ``ctypes`` (no ``json``, ``re``, ``typing``
or ``enum``), runs with ``-S`` (no site-packages) and reads its policy as ``key=value`` arguments.

Landlock is driven by ctypes over its three system calls rather than a binding package: the calls are a stable
kernel ABI, the binding on the package index (``landlock`` 1.0.0.dev5) knows neither the TCP rules (ABI 4) nor
scoping (ABI 6), and this file must load without site-packages anyway.

The policy (built by ``navtui.tools.sandbox.policy``) is a dict: ``parent`` (the pid the launcher must still be a child
of), ``deathsig`` (the signal number), and, to confine, ``abi`` (the Landlock ABI to use), ``write``
(directories writable with every right), ``write_files`` (files writable, such as ``/dev/null``), ``network``
(false: TCP bind/connect denied) and ``scope`` (true: no signals to, and no abstract unix sockets of, processes
outside the sandbox). Everything else is readable and executable. ``encode``/``decode`` turn it into arguments.
"""

import ctypes
import os
import sys

_SYS_CREATE_RULESET, _SYS_ADD_RULE, _SYS_RESTRICT_SELF = 444, 445, 446  # the same on every Linux architecture
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH, _RULE_NET_PORT = 1, 2
_PR_SET_PDEATHSIG, _PR_SET_NO_NEW_PRIVS = 1, 38

# Filesystem rights, by the ABI that introduced them.
EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
REMOVE_DIR, REMOVE_FILE, MAKE_CHAR, MAKE_DIR = 1 << 4, 1 << 5, 1 << 6, 1 << 7
MAKE_REG, MAKE_SOCK, MAKE_FIFO, MAKE_BLOCK, MAKE_SYM = 1 << 8, 1 << 9, 1 << 10, 1 << 11, 1 << 12
REFER, TRUNCATE, IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15  # ABI 2, 3, 5
BIND_TCP, CONNECT_TCP = 1 << 0, 1 << 1  # ABI 4
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1 << 0, 1 << 1  # ABI 6

_FS_V1 = (1 << 13) - 1
READ_RIGHTS = EXECUTE | READ_FILE | READ_DIR
FILE_RIGHTS = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV  # the only rights a rule on a file may hold

# Set only by tests and by users who must: caps the ABI navtui believes the kernel has (0 = no Landlock).
ABI_OVERRIDE_ENV = "NAVTUI_LANDLOCK_ABI"


class _RulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1  # the kernel's struct is packed: 12 bytes
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


class _NetPortAttr(ctypes.Structure):
    _fields_ = [("allowed_access", ctypes.c_uint64), ("port", ctypes.c_uint64)]


class LandlockError(Exception):
    """Landlock could not be set up; the message names the step and the errno."""


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def kernel_abi() -> tuple[int, str]:
    """(ABI version, "") when the kernel has Landlock enabled, else (0, why not). No override applied."""
    if not sys.platform.startswith("linux"):
        return 0, f"Landlock is Linux-only (this is {sys.platform})"
    try:
        libc = _libc()
        version = libc.syscall(_SYS_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(_CREATE_RULESET_VERSION))
    except (OSError, AttributeError) as exc:
        return 0, f"cannot call into libc ({exc})"
    if version > 0:
        return int(version), ""
    errno = ctypes.get_errno()
    if errno == 38:  # ENOSYS
        return 0, "the kernel is older than 5.13 or was built without Landlock"
    if errno == 95:  # EOPNOTSUPP
        return 0, "Landlock is built in but not enabled (add landlock to the lsm= boot parameter)"
    return 0, f"the Landlock probe failed ({os.strerror(errno)})"


def usable_abi() -> tuple[int, str]:
    """The ABI navtui may use: the kernel's, capped by ``NAVTUI_LANDLOCK_ABI`` when that is set."""
    abi, why = kernel_abi()
    cap = os.environ.get(ABI_OVERRIDE_ENV, "").strip()
    if cap.isdigit() and int(cap) < abi:
        abi = int(cap)
        why = f"{ABI_OVERRIDE_ENV}=0 is set, which turns Landlock off" if abi == 0 else ""
    return abi, why


def handled_fs(abi: int) -> int:
    rights = _FS_V1
    if abi >= 2:
        rights |= REFER
    if abi >= 3:
        rights |= TRUNCATE
    if abi >= 5:
        rights |= IOCTL_DEV
    return rights


def _check(result: int, step: str) -> int:
    if result < 0:
        errno = ctypes.get_errno()
        raise LandlockError(f"{step}: {os.strerror(errno)} (errno {errno})")
    return result


def confine(policy: dict) -> None:
    """Restrict this process (and everything it will start) to ``policy``. Irreversible."""
    libc = _libc()
    abi = int(policy["abi"])
    fs = handled_fs(abi)
    attr = _RulesetAttr(fs, 0, 0)
    if abi >= 4 and not policy.get("network", False):
        attr.handled_access_net = BIND_TCP | CONNECT_TCP  # handled with no rule: every TCP bind and connect fails
    if abi >= 6 and policy.get("scope", True):
        attr.scoped = SCOPE_SIGNAL | (0 if policy.get("network", False) else SCOPE_ABSTRACT_UNIX_SOCKET)
    ruleset = _check(
        libc.syscall(_SYS_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(ctypes.sizeof(attr)), ctypes.c_uint32(0)),
        "landlock_create_ruleset",
    )
    try:
        _allow(libc, ruleset, "/", READ_RIGHTS & fs)
        for path in policy.get("write", ()):
            _allow(libc, ruleset, path, fs)
        for path in policy.get("write_files", ()):
            _allow(libc, ruleset, path, (READ_FILE | WRITE_FILE | TRUNCATE) & fs)
        _check(libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "prctl(PR_SET_NO_NEW_PRIVS)")
        _check(libc.syscall(_SYS_RESTRICT_SELF, ctypes.c_int(ruleset), ctypes.c_uint32(0)), "landlock_restrict_self")
    finally:
        os.close(ruleset)
    no_set_id_bits(libc)


# ---------------------------------------------------------------------------- no setuid or setgid files
# A command may make files in the workspace, but not a setuid or setgid one: `cp /bin/bash x; chmod u+s x` left a
# program that runs as you for any local user who can reach the workspace, long after the command (no-new-privs
# only covers what runs inside the sandbox). Landlock has no right for mode bits, so a seccomp filter refuses
# (EPERM) chmod/fchmod/fchmodat/fchmodat2 with S_ISUID or S_ISGID and creating a file with them (open, openat,
# creat, mknod, mknodat), and answers ENOSYS to the calls it cannot inspect (openat2, whose mode is behind a
# pointer, and io_uring, which would bypass it): programs fall back to openat and read/write.
_SET_ID_BITS = 0o6000
_CREATING = 0o100 | 0o20000000  # O_CREAT | __O_TMPFILE (the same on x86 and arm64)
_EPERM, _ENOSYS = 0x00050001, 0x00050026  # SECCOMP_RET_ERRNO | errno
_ALLOW = 0x7FFF0000
# arch -> {syscall: ("mode", mode arg) | ("create", flags arg, mode arg) | ("nosys",)}
# fmt: off
_SET_ID_CALLS = {
    0xC000003E: {  # x86_64 (x32's numbers are these with bit 30, which the filter clears)
        2: ("create", 1, 2), 257: ("create", 2, 3),  # open, openat
        85: ("mode", 1), 133: ("mode", 1), 259: ("mode", 2),  # creat, mknod, mknodat
        90: ("mode", 1), 91: ("mode", 1), 268: ("mode", 2), 452: ("mode", 2),  # chmod, fchmod, fchmodat, fchmodat2
        437: ("nosys",), 425: ("nosys",),  # openat2, io_uring_setup
    },
    0x40000003: {  # i386
        5: ("create", 1, 2), 295: ("create", 2, 3),
        8: ("mode", 1), 14: ("mode", 1), 297: ("mode", 2),
        15: ("mode", 1), 94: ("mode", 1), 306: ("mode", 2), 452: ("mode", 2),
        437: ("nosys",), 425: ("nosys",),
    },
    0xC00000B7: {  # aarch64 (no open, creat, mknod, chmod)
        56: ("create", 2, 3),
        33: ("mode", 2),
        52: ("mode", 1), 53: ("mode", 2), 452: ("mode", 2),
        437: ("nosys",), 425: ("nosys",),
    },
}
# fmt: on


class _SockFilter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint16), ("jt", ctypes.c_uint8), ("jf", ctypes.c_uint8), ("k", ctypes.c_uint32)]


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_SockFilter))]


def set_id_filter() -> list:
    """The seccomp program, as (code, jt, jf, k) with jumps resolved: dispatch on the architecture, then on the
    call, then test the mode argument (and for open, whether it creates)."""
    ld, jeq, jset, ret, and_ = 0x20, 0x15, 0x45, 0x06, 0x54  # BPF_LD|W|ABS, JMP|JEQ|K, JMP|JSET|K, RET|K, ALU|AND|K
    code: list = []  # (op, jt label or None, jf label or None, k); a label is any hashable, placed by ("at", label)

    def arg(index: int) -> int:
        return 16 + 8 * index  # seccomp_data.args[index], its low 32 bits (little-endian)

    arches = list(_SET_ID_CALLS)
    code.append((ld, None, None, 4))  # seccomp_data.arch
    for arch in arches:
        code.append((jeq, ("arch", arch), None, arch))
    code.append((ret, None, None, _ALLOW))  # an architecture not listed: as before
    checks: dict = {}
    for arch in arches:
        code.append(("at", ("arch", arch)))
        code.append((ld, None, None, 0))  # seccomp_data.nr
        code.append((and_, None, None, 0xBFFFFFFF))
        for nr, check in _SET_ID_CALLS[arch].items():
            code.append((jeq, ("check", check), None, nr))
            checks[check] = True
        code.append((ret, None, None, _ALLOW))
    for check in checks:
        code.append(("at", ("check", check)))
        if check[0] == "nosys":
            code.append((ret, None, None, _ENOSYS))
            continue
        if check[0] == "create":
            code.append((ld, None, None, arg(check[1])))
            code.append((jset, None, "allow", _CREATING))
        code.append((ld, None, None, arg(check[-1])))
        code.append((jset, "deny", "allow", _SET_ID_BITS))
    code += [("at", "deny"), (ret, None, None, _EPERM), ("at", "allow"), (ret, None, None, _ALLOW)]
    places, index = {}, 0
    for item in code:
        if item[0] == "at":
            places[item[1]] = index
        else:
            index += 1
    program, index = [], 0
    for item in code:
        if item[0] == "at":
            continue
        op, true, false, k = item
        jt = places[true] - index - 1 if true is not None else 0
        jf = places[false] - index - 1 if false is not None else 0
        program.append((op, jt, jf, k))
        index += 1
    return program


def no_set_id_bits(libc: ctypes.CDLL) -> None:
    """Install the filter (no-new-privs is set already). Skipped where the kernel has no seccomp filters."""
    if sys.byteorder != "little":
        return
    program = set_id_filter()
    filters = (_SockFilter * len(program))(*(_SockFilter(*instruction) for instruction in program))
    fprog = _SockFprog(len(program), filters)
    if libc.prctl(22, 2, ctypes.byref(fprog), 0, 0) < 0:  # PR_SET_SECCOMP, SECCOMP_MODE_FILTER
        errno = ctypes.get_errno()
        if errno != 22:  # EINVAL: built without CONFIG_SECCOMP_FILTER
            raise LandlockError(f"seccomp filter: {os.strerror(errno)} (errno {errno})")


def _allow(libc: ctypes.CDLL, ruleset: int, path: str, rights: int) -> None:
    """One path-beneath rule; a path that vanished is skipped (it cannot be written then anyway)."""
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return
    try:
        if os.fstat(fd).st_mode & 0o170000 != 0o040000:  # not a directory (stat.S_ISDIR, without the import)
            rights &= FILE_RIGHTS
        rule = _PathBeneathAttr(rights, fd)
        _check(
            libc.syscall(
                _SYS_ADD_RULE,
                ctypes.c_int(ruleset),
                ctypes.c_int(_RULE_PATH_BENEATH),
                ctypes.byref(rule),
                ctypes.c_uint32(0),
            ),
            f"landlock_add_rule({path})",
        )
    finally:
        os.close(fd)


def die_with_parent(parent: int, signum: int) -> bool:
    """Ask for ``signum`` when the thread that forked us exits; False if the parent is already gone."""
    _libc().prctl(_PR_SET_PDEATHSIG, signum, 0, 0, 0)
    return os.getppid() == parent  # it may have died before the prctl: then no signal would ever come


_LISTS = {"write": "write", "file": "write_files", "pin": "pin", "ro": "ro"}
_INTS = ("parent", "deathsig", "abi", "report", "treesig", "grace")
_FLAGS = ("network", "scope", "ns", "tree", "sockets")


def encode(policy: dict) -> list:
    """The policy as ``key=value`` arguments for the launcher."""
    args = [f"{key}={int(policy[key])}" for key in (*_INTS, *_FLAGS) if key in policy]
    for key, name in _LISTS.items():
        args.extend(f"{key}={path}" for path in policy.get(name, ()))
    return args


def decode(args: list) -> dict:
    policy: dict = {"write": [], "write_files": [], "pin": [], "ro": []}
    for arg in args:
        key, _, value = arg.partition("=")
        if key in _LISTS:
            policy[_LISTS[key]].append(value)
        elif key in _INTS:
            policy[key] = int(value)
        elif key in _FLAGS:
            policy[key] = value == "1"
        else:
            raise ValueError(f"unknown policy argument {arg!r}")
    return policy


def _default_signals() -> None:
    """Python ignores SIGPIPE and SIGXFSZ at start and exec keeps that: give the command the defaults back.
    ``_signal`` is the C module under ``signal``, which would import ``enum`` for nothing here."""
    import _signal  # the C module: no stub (pyproject lets mypy skip it)

    for name in ("SIGPIPE", "SIGXFSZ"):
        if hasattr(_signal, name):
            _signal.signal(getattr(_signal, name), _signal.SIG_DFL)


def _namespaces():  # type: ignore[no-untyped-def]  # the module, loaded the way this file was
    if __package__:
        from navtui.tools.sandbox import namespaces

        return namespaces
    import namespaces  # type: ignore[import-not-found, no-redef]  # the launcher runs as a script: a sibling

    return namespaces


def main(argv: list) -> int:
    if argv == ["--probe"]:
        return _namespaces().probe()
    if "--" not in argv or argv.index("--") == len(argv) - 1:
        print("usage: exec.py [key=value ...] -- COMMAND [ARGS...]", file=sys.stderr)
        return 2
    split = argv.index("--")
    command = argv[split + 1 :]
    try:
        policy = decode(argv[:split])
    except ValueError as exc:
        print(f"navtui: bad sandbox policy ({exc}); nothing was run", file=sys.stderr)
        return 126
    parent = policy.get("parent")
    if parent and not die_with_parent(parent, policy.get("deathsig", 9)):
        return 137  # navtui is gone: run nothing

    def prepare() -> None:
        if policy.get("abi"):
            confine(policy)

    if policy.get("ns") or policy.get("tree"):
        ns = _namespaces()
        if policy.get("ns"):
            try:
                ns.enter(policy)
            except (ns.NamespaceError, OSError) as exc:
                print(f"navtui: the sandbox's namespaces could not be set up ({exc}); nothing was run", file=sys.stderr)
                return 126
            ns.run_init(policy, command, prepare)
        ns.run_reaper(policy, command, prepare)
    if policy.get("abi"):
        try:
            confine(policy)
        except (LandlockError, OSError, ValueError) as exc:
            # Fail closed: a command that asked for a sandbox never runs without one.
            print(f"navtui: the sandbox could not be applied ({exc}); nothing was run", file=sys.stderr)
            return 126
    _default_signals()
    return int(_namespaces().exec_command(command))  # returns only when the exec failed


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
