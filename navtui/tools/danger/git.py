"""The git commands that lose work or run programs: destructive pushes, discarding changes, dangerous config."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from navtui.tools.danger.shellparse import Script

# Config keys whose value git runs as a program (or that point git at programs to run).
_RUNS_PROGRAM = re.compile(
    r"^(?:core\.(?:fsmonitor|hookspath|sshcommand|pager|editor|askpass|gitproxy)|sequence\.editor|diff\.external"
    r"|credential(?:\..+)?\.helper|gpg(?:\.\w+)?\.program|uploadpack\.packobjectshook|include(?:if\..+)?\.path"
    r"|(?:filter|diff|merge)\..+\.(?:clean|smudge|process|textconv|command|driver)|pager\..+)$"
)
_GLOBAL_WITH_VALUE = {"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path", "--config-env"}
_MAIN = ("main", "master")
_FORCE = ("--force", "--force-with-lease", "--force-if-includes")


def git_reason(args: list[str]) -> str | None:
    """Why ``git ARGS`` needs a prompt, or ``None``."""
    index = 0
    while index < len(args) and args[index].startswith("-"):
        option = args[index]
        if option == "-c" and index + 1 < len(args):
            reason = _config_reason(*args[index + 1].partition("=")[::2])
            if reason:
                return reason
        index += 2 if option in _GLOBAL_WITH_VALUE else 1
    if index >= len(args):
        return None
    command, rest = args[index], args[index + 1 :]
    flags = [a for a in rest if a.startswith("-")]
    operands = [a for a in rest if not a.startswith("-")]
    if command == "push":
        return _push_reason(flags, operands)
    if command == "reset" and "--hard" in flags:
        return "discards uncommitted changes (git reset --hard)"
    # Any clean but a dry run: with clean.requireForce=false (or -c), `git clean -d` deletes without -f.
    if command == "clean" and not (_short(flags, "n", "--dry-run") or _short(flags, "i", "--interactive")):
        return f"deletes untracked files (git clean {' '.join(flags)})".replace(" )", ")")
    if command == "stash" and operands[:1] == ["clear"]:
        return "deletes every stash (git stash clear): stashed work is lost"
    if command == "branch" and (
        _short(flags, "D", "") or (_short(flags, "d", "--delete") and _short(flags, "f", "--force"))
    ):
        return "force-deletes a branch, even with commits not merged anywhere (git branch -D)"
    whole = any(path in (".", ":/", "*", "./", ":") for path in operands)
    if command == "rm" and whole and "--cached" not in flags and _short(flags, "r", "-r"):
        return f"deletes every tracked file from the work tree (git rm {' '.join(rest)})"
    if command in ("checkout", "restore") and _whole_tree(command, flags, operands, rest):
        return f"discards uncommitted changes to every file (git {command} {' '.join(rest)})"
    if command == "config" and operands:
        key = operands[0]
        value = operands[1] if len(operands) > 1 else ""
        return _config_reason(key, value)
    return None


def _short(flags: list[str], letter: str, long: str) -> bool:
    return any(f == long or (not f.startswith("--") and letter in f[1:]) for f in flags)


def _push_reason(flags: list[str], operands: list[str]) -> str | None:
    refspecs = operands[1:]
    if "--mirror" in flags:
        return "mirrors the repository, overwriting and deleting every branch on the remote (git push --mirror)"
    if _short(flags, "d", "--delete") or any(ref.startswith(":") and len(ref) > 1 for ref in refspecs):
        deleted = [ref.lstrip(":") for ref in refspecs] or ["a branch"]
        return f"deletes {', '.join(deleted)} on the remote (git push)"
    forced = [ref for ref in refspecs if ref.startswith("+")]
    if not (forced or _short(flags, "f", "--force") or any(f.startswith(_FORCE) for f in flags)):
        return None
    if not refspecs or "--all" in flags:
        return "force-pushes the current branch (it may be main or master)"
    for ref in refspecs:
        branch = ref.lstrip("+").split(":")[-1].removeprefix("refs/heads/")
        if branch in _MAIN:
            return f"force-pushes {branch}"
    return None


def _whole_tree(command: str, flags: list[str], operands: list[str], rest: list[str]) -> bool:
    everything = any(path in (".", ":/", "*", "./") for path in operands)
    if command == "restore":
        return everything and (not _short(flags, "S", "--staged") or _short(flags, "W", "--worktree"))
    return everything and ("--" in rest or len(operands) == 1) or "-f" in flags and not operands


def _config_reason(key: str, value: str) -> str | None:
    key = key.lower()
    if _RUNS_PROGRAM.match(key) or (key.startswith("alias.") and value.startswith("!")):
        return f"sets git's {key}, which makes git run a program"
    return None


_CONFIG_KEY_VAR = re.compile(r"^GIT_CONFIG_KEY_\d+$")
_PARAMETER_KEY = re.compile(r"'([^'=]+)'(?:=|\s|$)")


def git_env_reason(script: Script) -> str | None:
    """``git -c`` smuggled through the environment: ``GIT_CONFIG_COUNT``/``KEY_n``/``VALUE_n`` or
    ``GIT_CONFIG_PARAMETERS``, set as a prefix, with ``export`` or through ``env``."""
    assigned: dict[str, list[str] | None] = dict(script.variables)
    for command in script.commands:
        for word in command.words:
            for value in word.values or ():
                name, sep, text = value.partition("=")
                if sep and (_CONFIG_KEY_VAR.match(name) or name == "GIT_CONFIG_PARAMETERS"):
                    assigned.setdefault(name, [])
                    known = assigned[name]
                    if known is not None:
                        known.append(text)
    for name, values in assigned.items():
        if _CONFIG_KEY_VAR.match(name):
            if values is None:
                return f"sets {name} to a key computed at run time: git would take it as a -c setting"
            for key in values:
                if _config_reason(key, ""):
                    return f"sets git's {key.lower()} through {name}, which makes git run a program"
        elif name == "GIT_CONFIG_PARAMETERS":
            for text in values or ["?"]:
                keys = _PARAMETER_KEY.findall(text) if values is not None else ["?"]
                if values is None or any(_config_reason(key, "") for key in keys):
                    return "sets git settings through GIT_CONFIG_PARAMETERS, which can make git run a program"
    return None
