"""A shell command parsed into what it would run: every simple command, its words, its redirects, its pipes.

tree-sitter-bash does the parsing (MIT, maintained, wheels for every common platform, and it keeps going after
a syntax error, marking it). This module turns its tree into plain records for ``danger.py``:

* every simple command anywhere in the text (lists, pipelines, subshells, ``{ }``, ``if``/``for``/``case``
  bodies, functions, ``$( )``, backticks and ``<( )``), in source order;
* each word's static value, or ``None`` when it is computed at run time (``$(...)``, an unknown ``$VAR``);
  brace expansion and variables assigned a literal in the same text give several candidate values;
  ``$HOME`` stands for ``~``;
* where each command's standard input comes from (the stage before it in a pipeline, a here-document or a
  here-string);
* every output redirection target, and the functions that pipe into themselves (fork bombs).
"""

from __future__ import annotations

import codecs
import itertools
import re
from dataclasses import dataclass, field
from functools import cache
from typing import Any

_MAX_CANDIDATES = 32  # brace and variable expansion stop here (the rest counts as computed)
_WRITE_OPS = {">", ">>", "&>", "&>>", ">|", "<>", ">&", "&>|"}
_BRACE = re.compile(r"\{([^{}]*,[^{}]*)\}")
_KNOWN_VARIABLES = {"HOME": "~", "PWD": "."}


@dataclass(frozen=True)
class Word:
    """One argument: its possible static values (``None``: computed at run time) and its text as written."""

    values: tuple[str, ...] | None
    raw: str
    process_substitution: bool = False  # ``<(...)``: a file name that is the output of a command

    @property
    def static(self) -> bool:
        return self.values is not None

    @property
    def value(self) -> str | None:
        """The value when there is exactly one."""
        return self.values[0] if self.values and len(self.values) == 1 else None


@dataclass
class Command:
    """A simple command as written (wrappers such as ``sudo`` are still in ``words``)."""

    words: list[Word]
    text: str
    stdin_text: str | None = None  # a here-document or here-string with a static body
    stdin_dynamic: bool = False  # a here-document or here-string that expands something at run time
    piped_from: list[Command] = field(default_factory=list)  # the commands of the pipeline stage before


@dataclass
class Script:
    commands: list[Command]
    writes: list[Word]  # targets of >, >>, &> ... anywhere
    self_piping_functions: list[str]
    error: str | None  # the first text tree-sitter could not parse
    variables: dict[str, list[str] | None] = field(default_factory=dict)  # assigned anywhere (prefix, export)


@cache
def _parser() -> Any:
    import tree_sitter
    import tree_sitter_bash

    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))


def _text(node: Any) -> str:
    return node.text.decode("utf-8", "replace")


def _walk(node: Any) -> Any:
    yield node
    for child in node.children:
        yield from _walk(child)


def _unescape_word(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text.replace("\\\n", ""))


def _unescape_double(text: str) -> str:
    return re.sub(r'\\([$`"\\])', r"\1", text.replace("\\\n", ""))


def _ansi_c(text: str) -> str | None:
    try:
        return codecs.decode(text.encode("latin-1", "backslashreplace"), "unicode_escape")
    except (UnicodeDecodeError, ValueError):
        return None


def _expand_braces(value: str) -> list[str]:
    match = _BRACE.search(value)
    if match is None:
        return [value]
    out: list[str] = []
    for option in match.group(1).split(","):
        out.extend(_expand_braces(value[: match.start()] + option + value[match.end() :]))
        if len(out) >= _MAX_CANDIDATES:
            break
    return out


class _Builder:
    def __init__(self, root: Any) -> None:
        self.variables: dict[str, list[str] | None] = {}
        self._collect_variables(root)

    # ------------------------------------------------------------------ variables
    def _assign(self, name: str, values: list[str] | None) -> None:
        if name in self.variables and self.variables[name] is None:
            return
        if values is None:
            self.variables[name] = None
            return
        known = self.variables.setdefault(name, [])
        assert known is not None
        known.extend(v for v in values if v not in known)

    def _collect_variables(self, root: Any) -> None:
        for node in _walk(root):
            if node.type == "variable_assignment":
                name = node.child_by_field_name("name")
                value = node.child_by_field_name("value")
                if name is not None:
                    self._assign(_text(name), self.values(value) if value is not None else [""])
            elif node.type == "for_statement":
                variable = node.child_by_field_name("variable")
                if variable is not None:
                    self._assign(_text(variable), None)  # a loop variable: any of several values
            elif node.type == "command":
                words = [c for c in node.named_children if c.type not in ("command_name", "variable_assignment")]
                name = node.child_by_field_name("name")
                if name is not None and _text(name) in ("read", "mapfile", "readarray", "getopts"):
                    for word in words:
                        if not _text(word).startswith("-"):
                            self._assign(_text(word), None)

    def _variable(self, name: str) -> list[str] | None:
        if name in self.variables:
            return self.variables[name]
        known = _KNOWN_VARIABLES.get(name)
        return [known] if known is not None else None

    # ------------------------------------------------------------------ words
    def values(self, node: Any) -> list[str] | None:
        kind = node.type
        if kind == "word":
            text = _text(node)
            if text.startswith("~-") and text[2:3] in ("", "/"):
                return None  # $OLDPWD: wherever the shell was before
            return _expand_braces(_unescape_word(text))
        if kind == "raw_string":
            return [_text(node)[1:-1]]
        if kind == "ansi_c_string":
            decoded = _ansi_c(_text(node)[2:-1])
            return [decoded] if decoded is not None else None
        if kind in ("string", "translated_string"):
            parts: list[list[str] | None] = []
            for child in node.named_children:
                if child.type == "string_content":
                    parts.append([_unescape_double(_text(child))])
                else:
                    parts.append(self.values(child))
            return self._product(parts)
        if kind == "concatenation":
            joined = self._product([self.values(child) for child in node.named_children])
            if joined is None:
                return None
            return [expanded for value in joined for expanded in _expand_braces(value)][:_MAX_CANDIDATES]
        if kind == "simple_expansion":
            name = node.named_children[-1] if node.named_children else None
            return self._variable(_text(name)) if name is not None and name.type == "variable_name" else None
        if kind == "expansion":
            children = node.named_children
            if len(children) == 1 and children[0].type == "variable_name":
                return self._variable(_text(children[0]))
            return None
        if kind in ("command_substitution", "process_substitution", "arithmetic_expansion"):
            return None
        if kind == "command_name":
            return self.values(node.named_children[0]) if node.named_children else None
        return [_text(node)]

    @staticmethod
    def _product(parts: list[list[str] | None]) -> list[str] | None:
        if any(part is None for part in parts):
            return None
        combos = itertools.islice(itertools.product(*parts), _MAX_CANDIDATES)  # type: ignore[arg-type]
        return ["".join(combo) for combo in combos] or [""]

    def word(self, node: Any) -> Word:
        values = self.values(node)
        return Word(
            tuple(values) if values is not None else None,
            _text(node),
            process_substitution=node.type == "process_substitution",
        )


def _stdin(builder: _Builder, command: Any) -> tuple[str | None, bool]:
    """The static body of a here-document or here-string feeding ``command`` (or whether it is dynamic)."""
    holders = [command]
    if command.parent is not None and command.parent.type == "redirected_statement":
        holders.append(command.parent)
    for holder in holders:
        for child in holder.named_children:
            if child.type == "herestring_redirect":
                body = [c for c in child.named_children if c.type != "herestring_redirect"]
                values = builder.values(body[-1]) if body else None
                return (values[0], False) if values and len(values) == 1 else (None, True)
            if child.type == "heredoc_redirect":
                bodies = [c for c in child.named_children if c.type == "heredoc_body"]
                if not bodies:
                    continue
                dynamic = any(c.type != "heredoc_content" for c in bodies[0].named_children)
                return (None, True) if dynamic else (_text(bodies[0]), False)
    return None, False


def _stage_of(node: Any) -> tuple[Any, Any] | None:
    """(pipeline, stage node) when ``node`` is a stage of a pipeline."""
    current = node
    while current.parent is not None and current.parent.type == "redirected_statement":
        current = current.parent
    parent = current.parent
    if parent is None or parent.type != "pipeline":
        return None
    return parent, current


def parse(command: str) -> Script:
    tree = _parser().parse(command.encode("utf-8"))
    root = tree.root_node
    builder = _Builder(root)
    commands: dict[int, Command] = {}
    order: list[Any] = []
    writes: list[Word] = []
    self_piping: list[str] = []
    error: str | None = None
    for node in _walk(root):
        kind = node.type
        if kind == "command":
            words = [builder.word(c) for c in node.named_children if c.type not in _NOT_WORDS]
            stdin_text, stdin_dynamic = _stdin(builder, node)
            commands[node.id] = Command(words, _text(node), stdin_text, stdin_dynamic)
            order.append(node)
        elif kind == "file_redirect":
            operator = next((c for c in node.children if not c.is_named), None)
            destination = node.child_by_field_name("destination")
            op = _text(operator) if operator is not None else ""
            if op in _WRITE_OPS and destination is not None and not (op == ">&" and _text(destination).isdigit()):
                writes.append(builder.word(destination))
        elif kind == "function_definition":
            name = node.child_by_field_name("name")
            body = node.child_by_field_name("body")
            if name is not None and body is not None and _pipes_into_itself(_text(name), body):
                self_piping.append(_text(name))
        elif (kind == "ERROR" or node.is_missing) and error is None:
            error = _text(node) or kind
    for node in order:
        _link_pipe(node, commands)
    return Script([commands[node.id] for node in order], writes, self_piping, error, builder.variables)


_NOT_WORDS = {"variable_assignment", "file_redirect", "heredoc_redirect", "herestring_redirect", "comment"}


def _commands_in(node: Any) -> list[Any]:
    return [n for n in _walk(node) if n.type == "command"]


def _link_pipe(node: Any, commands: dict[int, Command]) -> None:
    found = _stage_of(node)
    if found is None:
        return
    pipeline, stage = found
    stages = [c for c in pipeline.children if c.is_named and c.type != "comment"]
    position = next((i for i, s in enumerate(stages) if s.id == stage.id), 0)
    if position > 0:
        producers = _commands_in(stages[position - 1])
    elif pipeline.children and pipeline.children[0].type == "|":
        # ``cat <<EOF | sh``: tree-sitter puts the pipeline inside the here-document of the producer
        holder = pipeline.parent.parent if pipeline.parent is not None else None
        producers = [c for c in holder.named_children if c.type == "command"] if holder is not None else []
    else:
        return
    commands[node.id].piped_from = [commands[p.id] for p in producers if p.id in commands]


def _pipes_into_itself(name: str, body: Any) -> bool:
    """A fork bomb: the function pipes into itself, calls itself twice, or calls itself in the background."""
    calls = [n for n in _commands_in(body) if _text(n.child_by_field_name("name") or n) == name]
    if len(calls) >= 2:
        return True
    for call in calls:
        following = call.next_sibling
        if following is not None and following.type == "&":
            return True
    return False
