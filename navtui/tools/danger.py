"""Destructive-command check: commands that force an approval prompt (outside yolo) whatever the settings say.

A safeguard, not a sandbox: it catches the classic disasters (``rm -rf ~``, ``curl ... | sh``, ``mkfs``,
force-pushing main) in the forms models actually write, including through ``sudo``, ``bash -c`` and ``eval``.
"""

from __future__ import annotations

import os
import re
import shlex

_SHELLS = {"sh", "bash", "zsh", "dash", "ksh", "fish", "ash", "busybox"}
_INTERPRETERS = r"(?:ba|z|da|k|fi)?sh|python[0-9.]*|perl|ruby|node"
_OPERATORS = {";", "&&", "||", "|", "&", "|&", "(", ")", ";;"}
_REDIRECTS = {">", ">>", ">|", "&>", "&>>"}
# Prefixes that run the rest of the line as a command.
_WRAPPERS = {"sudo", "doas", "env", "nohup", "nice", "time", "command", "exec", "xargs", "timeout", "stdbuf", "ionice"}
_SYSTEM_DIRS = {
    "/bin", "/boot", "/dev", "/etc", "/home", "/lib", "/lib32", "/lib64", "/opt", "/proc", "/root", "/sbin",
    "/srv", "/sys", "/usr", "/var", "/Users", "/System", "/Library", "/Applications",
}  # fmt: skip
_HOME_WORDS = {"~", "$HOME", "${HOME}"}
_DISK = r"/dev/(?:sd|hd|vd|xvd|nvme|mmcblk|disk|loop|md|dm-|mapper/)"

_RAW_CHECKS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r":\s*\(\s*\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;?\s*:"), "a fork bomb"),
    (re.compile(r"\b(\w+)\s*\(\s*\)\s*\{[^}]*\b\1\s*\|\s*\1\s*&"), "a fork bomb"),
    (
        re.compile(rf"\b(?:curl|wget|fetch)\b[^;&\n]*\|\s*(?:sudo\s+(?:-\S+\s+)*)?(?:env\s+)?(?:{_INTERPRETERS})\b"),
        "downloads a script and runs it (curl/wget piped into a shell)",
    ),
    (
        re.compile(rf"\b(?:{_INTERPRETERS})\s+(?:-\S+\s+)*<\(\s*(?:curl|wget)\b"),
        "downloads a script and runs it (a shell reading curl/wget output)",
    ),
    (
        re.compile(r"(?:\b(?:ba|z|da|k)?sh\s+-c|\beval)\s+[\"']?\$\(\s*(?:curl|wget)\b"),
        "downloads a script and runs it (eval/sh -c of curl/wget output)",
    ),
    (re.compile(r"\bdd\b[^;&|\n]*\bof=/dev/(?!null\b|zero\b|stdout\b|stderr\b|tty\b|fd/)"), "writes raw to a device (dd)"),
    (re.compile(rf"(?:>|\btee\b(?:\s+-\S+)*)\s*{_DISK}"), "writes to a disk device"),
    (re.compile(r"(?:>>?|>\||\btee\b(?:\s+-\S+)*)\s*[\"']?/etc/"), "writes to /etc"),
    (re.compile(r"\bsed\b[^;&|\n]*\s-i\S*\s[^;&|\n]*\s[\"']?/etc/"), "edits a file in /etc in place"),
    (
        re.compile(r"\b(?:mkfs(?:\.\w+)?|mke2fs|mkswap|wipefs|mkdosfs|mkntfs|mkfs_\w+)\b"),
        "formats a disk or partition",
    ),
    (re.compile(rf"\b(?:fdisk|sfdisk|gdisk|sgdisk|parted|shred)\b[^;&|\n]*{_DISK}"), "rewrites a disk"),
    (
        re.compile(r"(?:^|[;&|(`]|\$\()\s*(?:sudo\s+)?(?:shutdown|reboot|halt|poweroff)\b"),
        "shuts down or reboots the machine",
    ),
    (re.compile(r"\b(?:systemctl|loginctl)\s+(?:poweroff|reboot|halt|kexec|suspend|hibernate)\b"), "shuts down or reboots the machine"),
    (re.compile(r"(?:^|[;&|])\s*(?:sudo\s+)?(?:init|telinit)\s+[06]\b"), "shuts down or reboots the machine"),
]  # fmt: skip


def destructive_reason(command: str) -> str | None:
    """Why ``command`` looks destructive (a short phrase), or ``None``."""
    return _check(command, depth=0)


def _check(command: str, depth: int) -> str | None:
    for pattern, reason in _RAW_CHECKS:
        if pattern.search(command):
            return reason
    if depth > 3:
        return None
    for words, redirects in _simple_commands(command):
        for target in redirects:
            if _is_etc(target):
                return "writes to /etc"
        reason = _check_words(words, depth)
        if reason:
            return reason
    return None


def _tokens(command: str) -> list[str]:
    lexer = shlex.shlex(command.replace("\n", " ; "), posix=True, punctuation_chars=";&|()<>")
    lexer.whitespace_split = True
    try:
        return list(lexer)
    except ValueError:  # unbalanced quotes: still look at the words
        return command.replace("\n", " ; ").split()


def _simple_commands(command: str) -> list[tuple[list[str], list[str]]]:
    """Split into simple commands: (words, redirect targets)."""
    result: list[tuple[list[str], list[str]]] = []
    words: list[str] = []
    redirects: list[str] = []
    tokens = _tokens(command)
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if token in _OPERATORS:
            if words:
                result.append((words, redirects))
            words, redirects = [], []
        elif token in _REDIRECTS or token.endswith(">") and set(token) <= set("0123456789&>|"):
            if index + 1 < len(tokens):
                redirects.append(tokens[index + 1])
                index += 1
        else:
            words.append(token)
        index += 1
    if words:
        result.append((words, redirects))
    return result


def _strip_wrappers(words: list[str]) -> list[str]:
    index = 0
    while index < len(words):
        word = words[index]
        name = os.path.basename(word)
        if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", word):
            index += 1
        elif name in _WRAPPERS:
            index += 1
            # Options of the wrapper itself (sudo -u root, nice -n 5, timeout 10), but not the command.
            while index < len(words) and (
                words[index].startswith("-") or re.fullmatch(r"[0-9.]+[smhd]?", words[index])
            ):
                if words[index] in ("-u", "-g", "-n", "-s", "-k", "-I", "-L", "-P") and index + 1 < len(words):
                    index += 1
                index += 1
        else:
            break
    return words[index:]


def _split_flags(args: list[str]) -> tuple[list[str], list[str]]:
    flags: list[str] = []
    operands: list[str] = []
    only_operands = False
    for arg in args:
        if only_operands or not arg.startswith("-") or arg == "-":
            operands.append(arg)
        elif arg == "--":
            only_operands = True
        else:
            flags.append(arg)
    return flags, operands


def _has_short(flags: list[str], letters: str, long: tuple[str, ...]) -> bool:
    for flag in flags:
        if flag in long:
            return True
        if not flag.startswith("--") and any(letter in flag[1:] for letter in letters):
            return True
    return False


def _critical_target(path: str) -> str | None:
    """What ``path`` would destroy if removed recursively: the root, home, a system dir, the whole cwd."""
    stripped = path.rstrip("/") or "/"
    base = stripped[:-2] if stripped.endswith("/*") else stripped
    base = base.rstrip("/") or "/"
    home = os.path.expanduser("~").rstrip("/")
    if base in ("/", "") or stripped == "/*":
        return "the whole filesystem"
    if base in _HOME_WORDS or base.startswith("~") and base.lstrip("~").strip("/") == "" or base == home:
        return "your home directory"
    if base in _SYSTEM_DIRS:
        return f"the system directory {base}"
    if stripped in ("*", ".", "..", "./*", "../*", ".*"):
        return "everything in the current directory"
    return None


def _is_etc(path: str) -> bool:
    return path == "/etc" or path.startswith("/etc/")


def _check_words(words: list[str], depth: int) -> str | None:
    words = _strip_wrappers(words)
    if not words:
        return None
    name = os.path.basename(words[0])
    args = words[1:]
    if name in _SHELLS and "-c" in args:
        position = args.index("-c")
        if position + 1 < len(args):
            return _check(args[position + 1], depth + 1)
    if name == "eval":
        return _check(" ".join(args), depth + 1)
    flags, operands = _split_flags(args)
    if name == "rm":
        if "--no-preserve-root" in flags:
            return "deletes with --no-preserve-root"
        if _has_short(flags, "rR", ("--recursive",)):
            for operand in operands:
                target = _critical_target(operand)
                if target:
                    return f"recursively deletes {target} ({' '.join(['rm', *flags, operand])})"
    if name in ("chmod", "chown", "chgrp") and _has_short(flags, "R", ("--recursive",)):
        for operand in operands:
            target = _critical_target(operand)
            if target and target != "everything in the current directory":
                return f"recursively changes permissions of {target} ({name} -R {operand})"
    if name == "mv":
        for operand in operands[:-1]:
            target = _critical_target(operand)
            if target and target != "everything in the current directory":
                return f"moves {target} away (mv {operand})"
    if name in ("cp", "mv", "install", "ln", "rsync") and operands and _is_etc(operands[-1]):
        return "writes to /etc"
    if name in ("tee", "truncate") and any(_is_etc(operand) for operand in operands):
        return "writes to /etc"
    if name == "find" and ("-delete" in args or ("-exec" in args and "rm" in args)):
        for operand in args:
            if operand.startswith("-") or operand in ("(", "!"):
                break
            target = _critical_target(operand)
            if target and target != "everything in the current directory":  # `find . -name x -delete` is routine
                return f"deletes files throughout {target} (find {operand} -delete)"
    if name == "git" and "push" in args:
        return _force_push_reason(args[args.index("push") + 1 :])
    return None


def _force_push_reason(args: list[str]) -> str | None:
    flags, operands = _split_flags(args)
    forced_refs = [ref for ref in operands if ref.startswith("+")]
    forced = forced_refs or any(f in ("--force", "--force-with-lease", "--force-if-includes", "--mirror") or
                                f.startswith("--force-with-lease=") or
                                (not f.startswith("--") and "f" in f[1:]) for f in flags)  # fmt: skip
    if not forced:
        return None
    refspecs = operands[1:]
    if not refspecs:
        return "force-pushes the current branch (it may be main or master)"
    for ref in refspecs:
        destination = ref.lstrip("+").split(":")[-1]
        branch = destination.removeprefix("refs/heads/")
        if branch in ("main", "master"):
            return f"force-pushes {branch}"
    return None
