"""What each simple command really calls: wrappers (``sudo``, ``env``, ``timeout`` ...) peeled off, and the
commands that ``xargs``, ``parallel`` and ``find -exec`` run, with their input standing in as unknown words.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field

from navtui.tools.danger.shellparse import Command, Script, Word

# A word read from standard input at run time (xargs): anything at all.
FROM_INPUT = Word(None, "<input>")
# ``{}`` of find -exec: a file find found under its start paths (the find rule judges the start paths).
FOUND_FILE = Word(("<found file>",), "{}")

# wrapper -> (options that take a value, how many positional words come before the command)
_WRAPPERS: dict[str, tuple[frozenset[str], int]] = {
    "sudo": (frozenset({"-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-T", "-U", "--user", "--group"}), 0),
    "doas": (frozenset({"-u", "-C"}), 0),
    "env": (frozenset({"-u", "-C", "--unset", "--chdir"}), 0),
    "nice": (frozenset({"-n", "--adjustment"}), 0),
    "nohup": (frozenset(), 0),
    "time": (frozenset({"-f", "-o", "--format", "--output"}), 0),
    "command": (frozenset(), 0),
    "builtin": (frozenset(), 0),
    "exec": (frozenset({"-a"}), 0),
    "timeout": (frozenset({"-s", "-k", "--signal", "--kill-after"}), 1),
    "stdbuf": (frozenset({"-i", "-o", "-e"}), 0),
    "ionice": (frozenset({"-c", "-n", "-p", "-P", "-u"}), 0),
    "setsid": (frozenset(), 0),
    "taskset": (frozenset(), 1),
    "chrt": (frozenset(), 1),
    "flock": (frozenset({"-w", "-E", "--timeout", "--conflict-exit-code"}), 1),
    "chroot": (frozenset({"--userspec", "--groups"}), 1),
    "unbuffer": (frozenset(), 0),
    "caffeinate": (frozenset({"-t", "-w"}), 0),
    "strace": (frozenset({"-o", "-e", "-p", "-s", "-u", "-E"}), 0),
    "ltrace": (frozenset({"-o", "-e", "-p", "-s", "-u"}), 0),
    "runuser": (frozenset({"-u", "-g", "-G", "--user", "--group"}), 0),
    "busybox": (frozenset(), 0),
    "catchsegv": (frozenset(), 0),
}
_XARGS_VALUE_OPTIONS = frozenset(
    {"-a", "-d", "-E", "-e", "-I", "-i", "-L", "-l", "-n", "-P", "-s", "--arg-file", "--delimiter", "--max-args",
     "--max-procs", "--max-lines", "--replace", "-j", "--jobs"}
)  # fmt: skip
_FIND_EXEC = ("-exec", "-execdir", "-ok", "-okdir")


@dataclass
class Call:
    """One program a command runs: its name (``None`` when computed at run time) and its arguments."""

    name: str | None
    args: list[Word]
    command: Command  # the simple command it came from (stdin, pipes)
    words: list[Word]  # the program word and its arguments, for messages
    via: str = ""  # "xargs", "find -exec", "sudo" ...
    wrapper_payloads: list[Word] = field(default_factory=list)  # env -S STRING: a command line to check

    @property
    def shown(self) -> str:
        text = " ".join(w.raw for w in self.words)
        return text if len(text) <= 80 else text[:79] + "…"

    def static_args(self) -> list[str]:
        """Argument values, a computed one as its text (for option checks, never for targets)."""
        return [w.value if w.value is not None else w.raw for w in self.args]


def calls(script: Script) -> Iterator[Call]:
    for command in script.commands:
        yield from _unwrap(command.words, command, "", [])


def _name(value: str) -> str:
    return os.path.basename(value.lstrip("\\")) or value


def _unwrap(words: list[Word], command: Command, via: str, payloads: list[Word]) -> Iterator[Call]:
    if not words:
        return
    first = words[0]
    if first.values is None:
        yield Call(None, words[1:], command, words, via, payloads)
        return
    for candidate in first.values:
        name = _name(candidate)
        if name in _WRAPPERS:
            rest, extra = _skip_wrapper(name, words[1:])
            if rest:
                yield from _unwrap(rest, command, via or name, payloads + extra)
            else:
                yield Call(name, words[1:], command, words, via, payloads + extra)
        elif name in ("xargs", "parallel"):
            yield Call(name, words[1:], command, words, via, payloads)
            yield from _unwrap(_xargs_payload(words[1:]), command, name, payloads)
        elif name == "find":
            yield Call(name, words[1:], command, words, via, payloads)
            for payload in find_payloads(words[1:]):
                yield from _unwrap(payload, command, "find -exec", payloads)
        else:
            yield Call(name, words[1:], command, words, via, payloads)


def _skip_wrapper(name: str, args: list[Word]) -> tuple[list[Word], list[Word]]:
    """The command after a wrapper's options and positional words, and any ``env -S`` string to check."""
    takes_value, positional = _WRAPPERS[name]
    extra: list[Word] = []
    index = 0
    while index < len(args):
        text = args[index].value or ""
        if text == "--":
            index += 1
            break
        if name == "env" and ("=" in text and not text.startswith("-")):
            index += 1
            continue
        if not text.startswith("-") or text == "-":
            break
        if name == "env" and text in ("-S", "--split-string") and index + 1 < len(args):
            extra.append(args[index + 1])
            index += 2
            continue
        index += 2 if text in takes_value else 1
    while positional and index < len(args):
        index += 1
        positional -= 1
    return args[index:], extra


def _xargs_payload(args: list[Word]) -> list[Word]:
    index = 0
    replace: str | None = None
    while index < len(args):
        text = args[index].value or ""
        if not text.startswith("-") or text == "-":
            break
        if text in ("-I", "--replace") and index + 1 < len(args):
            replace = args[index + 1].value
        elif text.startswith("-I") and len(text) > 2:
            replace = text[2:]
        index += 2 if text in _XARGS_VALUE_OPTIONS else 1
    payload = args[index:]
    if replace:
        return [FROM_INPUT if replace in (w.raw or "") else w for w in payload]
    return [*payload, FROM_INPUT] if payload else []


def find_payloads(args: list[Word]) -> list[list[Word]]:
    """The commands of each ``-exec``/``-execdir``/``-ok`` in a find command line."""
    payloads: list[list[Word]] = []
    index = 0
    while index < len(args):
        if args[index].value in _FIND_EXEC:
            end = index + 1
            while end < len(args) and args[end].value not in (";", "+"):
                end += 1
            payloads.append([FOUND_FILE if w.raw == "{}" or w.value == "{}" else w for w in args[index + 1 : end]])
            index = end
        index += 1
    return payloads
