"""Ordinary programs an option turns destructive: ``tar`` that runs commands, ``rsync --delete``, ``kill -1``,
a container with the host's root mounted. Rules for ``rules.py``; each function takes one call's name and its
static arguments and says why it needs a prompt, or ``None``.
"""

from __future__ import annotations

from collections.abc import Callable

_TAR_RUNS = ("--checkpoint-action=exec", "--to-command", "--use-compress-program", "--rsh-command", "--info-script",
             "--new-volume-script")  # fmt: skip
_SAFE_COMPRESSORS = {"gzip", "bzip2", "xz", "zstd", "lz4", "lzma", "pigz", "pbzip2", "lzip", "lzop", "brotli"}
_CONTAINER = {"docker", "podman", "nerdctl", "finch"}
_HOST_SOURCES = {"/", "/etc", "/root", "/home", "/usr", "/var", "/boot", "/proc", "/sys", "/dev", "~", "$HOME",
                 "/var/run/docker.sock", "/run/docker.sock"}  # fmt: skip


def tar_reason(name: str, args: list[str]) -> str | None:
    if name not in ("tar", "gtar", "bsdtar"):
        return None
    for index, arg in enumerate(args):
        option = arg.split("=", 1)[0] if arg.startswith("--") else arg
        if arg.startswith("--checkpoint-action=exec") or (
            option == "--checkpoint-action" and index + 1 < len(args) and args[index + 1].startswith("exec")
        ):
            return f"runs a command from tar's checkpoints ({arg})"
        if option in _TAR_RUNS[1:] or arg == "-I" or arg == "-F":
            program = arg.partition("=")[2] or (args[index + 1] if index + 1 < len(args) else "")
            if option in ("--use-compress-program", "-I") and program.split(" ")[0] in _SAFE_COMPRESSORS:
                continue
            return f"runs a program through tar ({option} {program})".rstrip()
    return None


def rsync_reason(name: str, args: list[str]) -> str | None:
    if name != "rsync":
        return None
    deleting = [a for a in args if a.startswith(("--delete", "--del")) or a == "--remove-source-files"]
    if deleting and not any(a in ("-n", "--dry-run") for a in args):
        return f"deletes files in the destination that the source does not have (rsync {deleting[0]})"
    return None


def kill_reason(name: str, args: list[str]) -> str | None:
    if name not in ("kill", "pkill", "killall"):
        return None
    if name in ("pkill", "killall"):
        if any(a in ("-u", "--user") for a in args) and not any(not a.startswith("-") for a in args[2:]):
            return f"stops every process of a user ({name} {' '.join(args)})"
        return None
    pids = list(args)
    if pids and pids[0] in ("-s", "-n", "--signal"):
        pids = pids[2:]
    elif pids and pids[0].startswith("-") and pids[0] not in ("--", "-1"):
        pids = pids[1:]  # the signal: -9, -KILL, -SIGTERM
    elif pids[:1] == ["-1"] and len(pids) > 1:
        pids = pids[1:]  # `kill -1 PID` is SIGHUP to PID
    if "--" in pids:
        pids = pids[pids.index("--") + 1 :]
    if "-1" in pids:
        return "signals every process you may signal (kill -1): the session, navtui, everything"
    return None


def container_reason(name: str, args: list[str]) -> str | None:
    if name not in _CONTAINER or not args or args[0] not in ("run", "create", "exec", "container"):
        return None
    for index, arg in enumerate(args):
        if arg in ("--privileged", "--pid=host", "--userns=host") or (
            arg == "--pid" and args[index + 1 : index + 2] == ["host"]
        ):
            return f"starts a container with the host's privileges ({name} {arg})"
        value = None
        if arg in ("-v", "--volume", "--mount") and index + 1 < len(args):
            value = args[index + 1]
        elif arg.startswith(("--volume=", "--mount=")):
            value = arg.partition("=")[2]
        elif arg.startswith("-v") and len(arg) > 2:
            value = arg[2:]
        if value is None:
            continue
        source = value.split(":", 1)[0] if not value.startswith(("type=", "source=", "src=")) else _mount_source(value)
        if source.rstrip("/") in {s.rstrip("/") or "/" for s in _HOST_SOURCES} or source in ("/", "//"):
            shown = arg if value in arg else f"{arg} {value}"
            return f"mounts {source} of the host into a container ({name} {shown})"
    return None


def _mount_source(spec: str) -> str:
    for part in spec.split(","):
        key, _, value = part.partition("=")
        if key in ("source", "src"):
            return value
    return ""


OPTION_RULES: tuple[Callable[[str, list[str]], str | None], ...] = (
    tar_reason,
    rsync_reason,
    kill_reason,
    container_reason,
)
