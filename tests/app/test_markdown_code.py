"""An open code fence rendered a few lines at a time (``widgets/markdown/code.py``) shows what a whole render shows."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.style import Style

from navtui.widgets.markdown.code import OpenFence, _lexer, lex
from navtui.widgets.markdown.document import MarkdownDocument
from navtui.widgets.markdown.render import palette_for, render_markdown

CONSOLE = Console(width=200, color_system="truecolor", force_terminal=True)
# Every token kind its own colour, so that a token lexed as another kind shows in the comparison.
PALETTE = palette_for(
    {
        "nav-code-bg": "#101010",
        "nav-md-code-block": "#c0c0c0",
        "nav-syntax-comment": "#808080",
        "nav-syntax-keyword": "#ff0000",
        "nav-syntax-function": "#0000ff",
        "nav-syntax-variable": "#654321",
        "nav-syntax-string": "#00ff00",
        "nav-syntax-number": "#00ffff",
        "nav-syntax-type": "#123456",
        "nav-syntax-operator": "#ff00ff",
        "nav-syntax-punctuation": "#aaaa00",
    }
)

# Real code, with what spans lines: docstrings, triple-quoted strings (one closed late), a continued line, blank
# lines, trailing whitespace, a line long enough to wrap, an f-string, decorators, comments.
PYTHON = '''"""A module docstring
that spans lines."""

from __future__ import annotations

import re  # a comment


@dataclass(frozen=True)
class Block:
    """One finished block."""

    source: str   \n
    def lines(self, width: int = 80) -> list[str]:
        text = f"{self.source!r:>{width}} and {{braces}}"
        query = """
            SELECT *
            FROM blocks  -- not a comment in Python
            WHERE width > 3
        """
        total = 1 + \\
            2
        return [text, query, 'single', b"bytes", r"raw\\d", 0x1F, 1_000.5e-3]  # a long line that wraps at a narrow width, past its end


def main():
    # TODO: more
    for i in range(3):
        print(i)  '''
TEXT = """Plain text in a fence with no language.
Its second line, then a blank one:

    an indented line   \n
and a last one, long enough to wrap when the view is narrow, past its end"""


def whole(tail: str, width: int) -> list[object]:
    return render_markdown(tail, CONSOLE, width, Style(), PALETTE)


def streamed(tail: str, cuts: list[int], width: int) -> tuple[OpenFence, list[int]]:
    """Feed ``tail`` to an ``OpenFence`` in pieces, checking each render against the whole one; returns the fence
    and the positions it rendered (it may say ``None`` while the last line looks like a closing fence)."""
    fence = OpenFence()
    position, rendered = 0, []
    for size in [*cuts, len(tail)]:
        position = min(len(tail), position + size)
        rows = fence.render(tail[:position], CONSOLE, width, Style(), PALETTE)
        if rows is not None:
            assert rows == whole(tail[:position], width), tail[:position]
            rendered.append(position)
    return fence, rendered


@settings(max_examples=25, deadline=None)
@given(
    st.sampled_from([("```python\n", PYTHON), ("~~~py\n", PYTHON), ("```\n", TEXT), ("````text title\n", TEXT)]),
    st.lists(st.integers(min_value=1, max_value=90), max_size=30),
    st.sampled_from([24, 60, 118]),
)
def test_a_fence_rendered_a_few_lines_at_a_time_shows_what_a_whole_render_shows(
    fence_and_code: tuple[str, str], cuts: list[int], width: int
) -> None:
    opening, code = fence_and_code
    _, rendered = streamed(opening + code, cuts, width)
    assert rendered  # not all left to the whole render


def test_every_prefix_of_real_code_renders_as_a_whole_render() -> None:
    tail = "```python\n" + PYTHON
    fence, rendered = streamed(tail, [7] * (len(tail) // 7), 40)
    assert len(rendered) > len(tail) // 7 - 3


def test_the_lines_kept_are_not_rendered_again() -> None:
    # A growing block keeps the rows of its first lines: the next flush hands back the same row objects.
    fence = OpenFence()
    code = "".join(f"value_{n} = compute({n}, 'x')\n" for n in range(40))
    first = fence.render("```python\n" + code, CONSOLE, 60, Style(), PALETTE)
    assert first is not None and len(first) == 42  # padding, 40 lines, padding
    second = fence.render("```python\n" + code + "more = 1", CONSOLE, 60, Style(), PALETTE)
    assert second is not None and len(second) == 43
    assert all(new is old for new, old in zip(second[1:39], first[1:39], strict=True))
    assert second == whole("```python\n" + code + "more = 1", 60)


def test_inside_an_unclosed_string_no_line_is_kept_until_it_closes() -> None:
    # The lines of a string still open are lexed again at each flush: its close changes how they look.
    fence = OpenFence()
    head = "x = 1\nquery = '''\nSELECT 1\nFROM t\n"
    rows = fence.render("```python\n" + head, CONSOLE, 60, Style(), PALETTE)
    assert rows is not None and rows == whole("```python\n" + head, 60)
    closed = head + "'''\ny = 2\nz = 3\n"
    assert fence.render("```python\n" + closed, CONSOLE, 60, Style(), PALETTE) == whole("```python\n" + closed, 60)


def test_pygments_lexer_state_is_read_at_each_line_start() -> None:
    # ``lex`` reads the state stack from ``RegexLexer.get_tokens_unprocessed``'s frame (a local): a Pygments release
    # that renames it must fail here, not quietly keep no lines.
    lexer = _lexer("python")
    lines = ["x = 1", 's = """', "inside", '"""', "y = 2", "    z = 3"]
    tokens, roots = lex(lexer, lines)
    assert "".join(value for _, value in tokens) == "\n".join(lines) + "\n"
    assert [bool(root) for root in roots] == [False, True, False, False, True, True]
    assert tokens[roots[4]][1] == "y"


def test_what_it_does_not_follow_is_left_to_the_whole_render() -> None:
    fence = OpenFence()
    for tail in [
        "```python\nx = 1\n```\nafter",  # closed, and another block after it
        "```sh\necho 'a\nb'\n",  # a lexer whose one match spans lines
        "  ```python\nx = 1\n",  # an indented fence
        "```python\n\tx = 1\n",  # a tab
        "```pyth\\on\nx = 1\n",  # an escape in the info string
        "```python",  # the opening line not ended
        "some text\n",
    ]:
        assert fence.render(tail, CONSOLE, 60, Style(), PALETTE) is None, tail
    assert _lexer("sh") is None and _lexer("no-such-language") is None and _lexer("text") is not None


@settings(max_examples=25, deadline=None)
@given(
    st.sampled_from([("```python\n", "```"), ("~~~py\n", "~~~~"), ("````\n", "`````  ")]),
    st.lists(st.integers(min_value=1, max_value=90), max_size=30),
    st.sampled_from([24, 60, 118]),
)
def test_a_closed_fence_renders_as_a_whole_render_from_the_rows_kept(
    fence_and_closing: tuple[str, str], cuts: list[int], width: int
) -> None:
    # Closed by a whole line, or its closing line still coming, with blank lines after it: the same rows as the
    # whole render of each prefix (``streamed`` compares them), and the closed block itself is rendered.
    opening, closing = fence_and_closing
    tail = opening + PYTHON + "\n" + closing + "\n\n"
    _, rendered = streamed(tail, cuts, width)
    assert len(tail) in rendered


def test_a_finished_fence_keeps_the_rows_its_open_block_had() -> None:
    # Once a fence closes it is a finished block of the document: its rows are the ones the open block kept, only
    # its last lines rendered again (it was highlighted whole twice at its end: as the closing open block, and
    # as a finished block).
    code = "".join(f"value_{n} = compute({n}, 'x')\n" for n in range(40))
    document = MarkdownDocument()
    document.feed("Intro.\n\n```python\n" + code)
    document.render(CONSOLE, 60, Style(), PALETTE)
    open_rows = document.tail_lines
    document.feed("```\n")
    document.render(CONSOLE, 60, Style(), PALETTE)
    assert document.tail_lines == [] and len(document.blocks) == 2  # the fence finished with its closing line
    finished = document.lines[document._starts[1] : document._ends[1]]
    assert finished == whole("```python\n" + code + "```\n", 60)
    assert sum(new is old for new, old in zip(finished, open_rows, strict=True)) >= 35


def test_a_streamed_document_with_a_growing_fence_renders_as_a_whole_one() -> None:
    text = "Intro.\n\n```python\n" + PYTHON + "\n```\n\nAfter the code.\n"
    document = MarkdownDocument()
    for position in range(0, len(text), 37):
        document.feed(text[position : position + 37])
        document.render(CONSOLE, 60, Style(), PALETTE)
        lines = [*document.lines, *([[]] if document.tail_blank else []), *document.tail_lines]
        shown = ["".join(segment.text for segment in line).rstrip() for line in lines]
        upto = text[: position + 37]
        assert [line for line in shown if line] == [
            "".join(segment.text for segment in line).rstrip()
            for line in whole(upto, 60)
            if "".join(segment.text for segment in line).strip()
        ]
