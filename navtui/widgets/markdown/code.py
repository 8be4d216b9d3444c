"""An open code fence rendered a few lines at a time: a flush lexes and renders only the lines it may change.

While a reply streams, its open block is rendered again at every flush (``document.py``). A growing code block
was highlighted whole each time: Pygments over every line, then Rich's render of every line (~0.2 ms a line of
Python: ~2-4 ms for the bench's 4-12-line blocks, ~17 ms for a 150-line one, at every flush, on the UI loop).

``OpenFence`` keeps the rendered rows of the block's first lines and lexes and renders only the lines from the
last *checkpoint*: the start of a whole line (not the last one, which may still grow) at which the lexer began a
token in its root state, after a line that is neither blank nor ends in whitespace (a block's last line is
stripped of them, so a line must not be rendered as the last and kept). Rich renders each line of a code block on
its own (``Syntax`` with ``word_wrap``), so a line's rows depend only on its tokens; and a lexer that keeps every
construct spanning lines in a state of its own (Python's strings) lexes a line begun in its root state as it
would at the start of a text, so nothing after a checkpoint changes what came before it. Inside an open string no
line begins in the root state, so its lines are lexed again until it closes, as they must be: its closing quote
changes how they look. The lines from the checkpoint on are lexed once a flush, and Rich is handed those tokens
(``_replay``) for the lines kept and for the rest.

Only lexers checked to keep such constructs in states are followed (``_line_safe``: Python; and plain text): a
rule whose single match spans lines (a shell's '...', Go's `...`, a C-style /* */ in many lexers) lexes an
unclosed one as something else in the root state, and its close changes lines before a checkpoint. The state is
read from the lexer's generator (``RegexLexer.get_tokens_unprocessed``'s local ``statestack``:
``tests/app/test_markdown_code.py`` fails if a Pygments release changes that). Other lexers, fences that are
indented, hold a tab or an escape in their info string, are rendered whole, as before: ``render`` returns
``None`` and the caller renders the block with Rich.

A closed fence (its closing line, then nothing but blank lines) shows the lines before its closing line as an
open one does, so it is rendered the same way, from the rows kept: the document renders the finished fence
through ``render`` too. It used to be rendered whole twice at its end (as the open block once its closing line
came, and as a finished block), 2-4 ms each for the bench's blocks, 7-9 ms on a loaded machine (docs/speed.md,
"Ninth wave").
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from rich.segment import Segment
from rich.style import Style

from navtui.widgets.markdown.render import Line, MarkdownPalette

if TYPE_CHECKING:
    from rich.console import Console

# An opening fence at the block's start, its line ended: no indentation (an indented fence's lines lose up to as
# many spaces), no backtick in a backtick fence's info, no escape or entity in it (markdown-it would unescape it).
_OPENING = re.compile(r"(?:(`{3,})([^`\n\\&]*)|(~{3,})([^\n\\&]*))\n")
# What makes a tail one this module does not render: a tab (Rich expands tabs over the whole text), a carriage
# return or a byte-order mark (Pygments changes them before lexing).
_UNSUPPORTED = re.compile("[\t\r\ufeff]")


# Pygments compiles a lexer class's tables (its regular expressions) at its first instance, without a lock: ~30-50
# ms of CPU for Python. The Markdown warm-up (``warm.py``) compiles them on its thread holding this lock; a look-up on
# the UI loop meanwhile waits for those tables rather than compiling them a second time beside it (a flush that did
# took 31-53 ms of the loop's CPU: docs/speed.md, "Tenth wave").
LEXER_TABLES = threading.Lock()


@lru_cache(maxsize=32)
def _lexer(name: str) -> Any:
    """The lexer Rich's ``Syntax`` makes for ``name`` (the same options), or ``None`` when it is not one whose
    state this module can follow."""
    from pygments.lexer import RegexLexer
    from pygments.lexers import get_lexer_by_name
    from pygments.lexers.special import TextLexer
    from pygments.util import ClassNotFound

    try:
        with LEXER_TABLES:
            lexer = get_lexer_by_name(name, stripnl=False, ensurenl=True, tabsize=4)
    except ClassNotFound:
        return None
    if isinstance(lexer, TextLexer):
        return lexer  # one token of plain text (``lex`` cuts it at each line)
    # Only lexers checked to keep a construct that spans lines in a state of its own (Python's strings): a rule
    # whose one match spans lines (a shell's '...', Go's `...`, a C-style /* */ in many lexers) lexes an unclosed
    # one as something else, in the root state, and its close changes how the lines before a checkpoint look.
    plain = type(lexer).get_tokens_unprocessed is RegexLexer.get_tokens_unprocessed
    if type(lexer) not in _line_safe() or not plain or lexer.filters or not getattr(lexer, "flags", 0) & re.MULTILINE:
        return None
    return lexer


@lru_cache(maxsize=1)
def _line_safe() -> tuple[type, ...]:
    """The lexers whose lines ``OpenFence`` may keep (tests/app/test_markdown_code.py streams real code in each)."""
    from pygments.lexers.python import PythonLexer

    return (PythonLexer,)


Token = tuple[Any, str]  # a Pygments token type and its text


def lex(lexer: Any, lines: list[str]) -> tuple[list[Token], list[int]]:
    """``lines`` lexed from the lexer's root state (as Rich's ``Syntax`` lexes them: a newline after each), and the
    offsets in the token list of the lines that begin with a token lexed in the root state again (the token list's
    offset of that token; lines after the first only)."""
    from pygments.lexers.special import TextLexer
    from pygments.token import Text

    if isinstance(lexer, TextLexer):  # the whole text as one token: cut at each line, every line starts one
        return [(Text, line + "\n") for line in lines], list(range(len(lines)))
    text = "\n".join(lines) + "\n"
    starts = [0] * len(lines)
    for number in range(1, len(lines)):
        starts[number] = starts[number - 1] + len(lines[number - 1]) + 1
    roots = [0] * len(lines)
    found: list[Token] = []
    tokens = lexer.get_tokens_unprocessed(text)
    frame = tokens.gi_frame
    number = 1
    for index, kind, value in tokens:
        while number < len(lines) and starts[number] < index:
            number += 1  # no token began at that line's start (one spans it)
        if number < len(lines) and index == starts[number]:
            if frame.f_locals.get("statestack") == ["root"]:
                roots[number] = len(found)
            number += 1
        found.append((kind, value))
    return found, roots


@lru_cache(maxsize=1)
def _replay_class() -> type:
    from pygments.lexer import Lexer

    class Replay(Lexer):
        """A lexer for Rich's ``Syntax`` (it takes a ``Lexer``) that hands it tokens lexed already."""

        def __init__(self, tokens: list[Token]) -> None:  # no options: Rich reads only the tokens
            self.tokens = tokens

        def get_tokens(self, text: str, unfiltered: bool = False) -> Iterator[Token]:
            return iter(self.tokens)

    return Replay


def _replay(tokens: list[Token]) -> Any:
    return _replay_class()(tokens)


class OpenFence:
    """The rendered rows of an open code fence's first lines, kept from one flush to the next."""

    def __init__(self) -> None:
        self._key: tuple[object, ...] | None = None
        self._prefix = ""  # the tail's text the kept rows were rendered from (the opening line, then whole lines)
        self._rows: list[Line] = []  # their rows, without the block's top padding row
        self._closing: re.Pattern[str] | None = None

    def clear(self) -> None:
        self._key, self._prefix, self._rows, self._closing = None, "", [], None

    def render(
        self,
        tail: str,
        console: Console,
        width: int,
        style: Style,
        palette: MarkdownPalette,
    ) -> list[Line] | None:
        """``tail``'s lines as ``render_markdown`` renders it, when ``tail`` is an open code fence whose lexer this
        can follow; ``None`` otherwise (the caller renders it whole)."""
        opening = _OPENING.match(tail)
        if opening is None or _UNSUPPORTED.search(tail):
            self.clear()
            return None
        fence = opening.group(1) or opening.group(3)
        info = (opening.group(2) if opening.group(1) else opening.group(4)).strip()
        lexer = _lexer(info.partition(" ")[0] or "text")
        if lexer is None:
            self.clear()
            return None
        key = (opening.group(0), width, style, palette, console)
        if key != self._key or not tail.startswith(self._prefix):
            self._key, self._prefix, self._rows = key, opening.group(0), []
            self._closing = re.compile(rf"^ {{0,3}}{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$", re.MULTILINE)
        rest = tail[len(self._prefix) :]  # the lines from the last checkpoint on
        assert self._closing is not None
        closing = self._closing.search(rest)
        if closing is not None:
            # Closed (or closing): markdown-it ends the block there, and the block shows the lines before it as
            # an open one would. Anything but blank lines after it is another block: rendered whole.
            if rest[closing.end() :].strip():
                return None
            rest = rest[: closing.start()]
        code = rest.rstrip()
        if not code:
            return None
        lines = code.split("\n")
        tokens, roots = lex(lexer, lines)
        # A checkpoint is the start of a whole line (not the last: a line still growing may yet join a token with
        # the line before it), begun in the root state, after a line the block's end would not strip.
        checkpoint = 0
        for number in range(len(lines) - 2, 0, -1):
            before = lines[number - 1]
            if roots[number] and before and not before[-1].isspace():
                checkpoint = number
                break
        if checkpoint:
            done = "\n".join(lines[:checkpoint])
            cut = roots[checkpoint]
            self._rows.extend(render_code(done, _replay(tokens[:cut]), console, width, style, palette)[1:-1])
            self._prefix += done + "\n"
            lines, tokens = lines[checkpoint:], tokens[cut:]
        rows = render_code("\n".join(lines), _replay(tokens), console, width, style, palette)
        return [rows[0], *self._rows, *rows[1:]]


def render_code(
    code: str, lexer: Any, console: Console, width: int, style: Style, palette: MarkdownPalette
) -> list[Line]:
    """A fenced code block's lines as ``render_markdown`` renders the fence (``code`` stripped at its end as Rich's
    ``CodeBlock`` strips it), without the Markdown around it: no parse, and ``lexer`` is not looked up again."""
    from rich.syntax import Syntax

    syntax = Syntax(code, lexer, theme=palette.syntax_theme, word_wrap=True, padding=1)
    options = console.options.update(width=width, height=None, highlight=False)
    lines = console.render_lines(syntax, options, style=style, pad=False)
    return [Segment.adjust_line_length(line, width, style) for line in lines]
