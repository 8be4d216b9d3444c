"""Streaming Markdown: the block splitter and MarkdownView render the same whatever the chunking."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.style import Style
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll

from navtui.app.theme_defaults import nav_defaults
from navtui.widgets.markdown import view as view_module
from navtui.widgets.markdown.blocks import Block, BlockSplitter, split_blocks
from navtui.widgets.markdown.document import RELEASED, MarkdownDocument, settled_fence
from navtui.widgets.markdown.render import palette_for, render_markdown
from navtui.widgets.markdown.view import MarkdownView
from navtui.widgets.pacing import ECHO_WAIT, InputPacer
from tests.app.conftest import wait_for

CONSOLE = Console(width=200, color_system=None, force_terminal=False)
PALETTE = palette_for({})

DOC = """# Plan

First we read the parser. It has a bug in `parse()` and **two** callers.

- step one
- step two
  - a nested step
1. numbered
2. again

```python
def parse(text):

    return text.split()  # a blank line above, inside the fence
```

> a quote

| a | b |
|---|---|
| 1 | 2 |

Done.
"""


def test_blocks_are_markdown_its_top_level_blocks_and_rejoin_to_the_document() -> None:
    blocks, tail = split_blocks(DOC)
    assert [b.source.splitlines()[0] for b in blocks] == [
        "# Plan",
        "First we read the parser. It has a bug in `parse()` and **two** callers.",
        "- step one",  # the whole bullet list, its nested item included, is one block
        "1. numbered",
        "```python",
        "> a quote",
        "| a | b |",
    ]
    assert tail.strip() == "Done."
    assert "".join(b.source for b in blocks) + tail == DOC


def test_a_blank_line_inside_a_fence_does_not_split_it() -> None:
    blocks, _ = split_blocks(DOC)
    fence = next(b for b in blocks if b.source.startswith("```"))
    assert fence.source.rstrip().endswith("```") and "return text.split()" in fence.source


def test_an_unclosed_fence_stays_open_in_the_tail() -> None:
    splitter = BlockSplitter()
    splitter.feed("intro\n\n```sh\nls\n\necho hi\n")
    assert splitter.tail.startswith("```sh") and splitter.tail.endswith("echo hi\n")


def test_a_loose_ordered_list_is_one_block() -> None:
    blocks, tail = split_blocks("1. one\n\n2. two\n\n3. three\n\nafter\n")
    assert len(blocks) == 1 and "3. three" in blocks[0].source and tail == "after\n"


def rendered(document: MarkdownDocument, width: int = 60) -> list[str]:
    document.render(CONSOLE, width, Style(), PALETTE)
    lines = [*document.lines, *([[]] if document.tail_blank else []), *document.tail_lines]
    return ["".join(segment.text for segment in line).rstrip() for line in lines]


def whole(text: str, width: int = 60) -> list[str]:
    """Rich's render of the whole document at once: what every cut must add up to."""
    return ["".join(s.text for s in line).rstrip() for line in render_markdown(text, CONSOLE, width, Style(), PALETTE)]


def streamed(text: str, cuts: list[int]) -> MarkdownDocument:
    document = MarkdownDocument()
    position = 0
    for size in cuts:
        document.feed(text[position : position + size])
        rendered(document)  # render between chunks, as the view does on each flush
        position += size
    document.feed(text[position:])
    return document


def test_a_closed_fence_is_a_finished_block_once_its_closing_line_is_complete() -> None:
    # Not once the next block's first line is: a paragraph's one long line took many flushes, and the fence was
    # rendered whole with it at each.
    splitter = BlockSplitter()
    assert splitter.feed("Intro.\n\n```python\nx = 1\n``") == [Block("Intro.\n\n")]
    assert splitter.feed("`") == []  # a closing line that may still grow ("````x" would be code)
    assert splitter.feed("\n") == [Block("```python\nx = 1\n```\n")] and splitter.tail == ""
    assert splitter.feed("\nA paragraph whose line goes on") == []
    assert splitter.tail == "\nA paragraph whose line goes on"
    assert splitter.feed("\n\n```python\n``\n") == [Block("\nA paragraph whose line goes on\n\n")]
    assert splitter.tail == "```python\n``\n"  # a shorter run of backticks closes nothing


def test_a_block_is_finished_once_the_next_block_has_begun_on_a_line_not_ended_yet() -> None:
    # Not once that line ends: a long paragraph's one line took many flushes, and the heading, list or quote
    # before it was rendered again with it at each.
    splitter = BlockSplitter()
    assert splitter.feed("## Plan\n\nFirst we") == [Block("## Plan\n\n")] and splitter.tail == "First we"
    assert splitter.feed(" read.\n\n- one\n- two\n\nThe") == [Block("First we read.\n\n"), Block("- one\n- two\n\n")]
    assert splitter.feed(" end.\n\n> a quote\n\nAfter") == [Block("The end.\n\n"), Block("> a quote\n\n")]
    assert splitter.feed("\n## Next\nText") == [Block("After\n"), Block("## Next\n")]  # a heading is one line


def test_a_block_is_finished_by_the_next_blocks_first_character_fed_on_its_own() -> None:
    # A feed that ends at the blank line, then one that begins the next block: no new complete line in the second,
    # and the heading stayed in the open block for the paragraph's whole line (rendered with it at every flush).
    splitter = BlockSplitter()
    assert splitter.feed("## Plan\n\n") == []
    assert splitter.feed("F") == [Block("## Plan\n\n")] and splitter.tail == "F"
    assert splitter.feed("irst we read.\n\n") == []
    assert splitter.feed(" ") == [] and splitter.feed(" x") == []  # indented: may be the paragraph's own
    assert splitter.tail == "First we read.\n\n  x"


@pytest.mark.parametrize(
    "text",
    [
        "- one\n\n-",  # the list's next item (a loose list)
        "1. one\n\n2",
        "- one\n\n  more of one",  # the item's own text, indented
        "A paragraph\nand its next line",  # no blank line: a paragraph goes on
        "A paragraph\n=",  # a setext heading's underline
        "```python\nx = 1\n\nstill code",  # an open fence
        "    indented code\n\n    more",
    ],
)
def test_a_block_the_next_line_may_still_join_stays_open(text: str) -> None:
    splitter = BlockSplitter()
    assert splitter.feed(text) == [] and splitter.tail == text


def test_a_reference_link_defined_after_its_use_shows_as_a_link() -> None:
    text = "See [the docs][1].\n\nMore text.\n\n[1]: https://example.com\n"
    document = streamed(text, [20, 12, 9])
    shown = "\n".join(rendered(document))
    assert "the docs (https://example.com)" in shown and "[the docs][1]" not in shown


# ---------------------------------------------------------------- any document, any chunking
WORDS = st.sampled_from(["alpha", "beta", "`code`", "**bold**", "_em_", "x<y", "a|b", "[ref][r1]", "[miss][r9]"])
LINE = st.lists(WORDS, min_size=1, max_size=6).map(" ".join)
BLOCK = st.one_of(
    LINE.map(lambda t: t + "\n"),
    st.lists(LINE, min_size=2, max_size=3).map(lambda ls: "\n".join(ls) + "\n"),  # a paragraph of lines
    LINE.map(lambda t: "## " + t + "\n"),
    LINE.map(lambda t: t + "\n---\n"),  # a setext heading
    st.lists(LINE, min_size=1, max_size=4).map(lambda ls: "".join(f"- {item}\n" for item in ls)),
    st.lists(LINE, min_size=2, max_size=4).map(lambda ls: "\n".join(f"{i}. {t}\n" for i, t in enumerate(ls, 1))),
    st.lists(LINE, min_size=1, max_size=3).map(lambda ls: "```py\n" + "\n\n".join(ls) + "\n```\n"),
    LINE.map(lambda t: "> " + t + "\n> more\n"),
    LINE.map(lambda t: "| h | k |\n|---|---|\n| " + t.replace("|", "/") + " | 2 |\n"),
    st.just("[r1]: https://example.com/one\n"),
    st.just("***\n"),
)
DOCUMENT = st.lists(st.tuples(BLOCK, st.sampled_from(["\n", "", "\n\n"])), min_size=1, max_size=8).map(
    lambda parts: "".join(block + gap for block, gap in parts)
)


@settings(max_examples=50, deadline=None)
@given(DOCUMENT, st.lists(st.integers(min_value=1, max_value=30), max_size=40))
def test_any_chunking_renders_what_the_whole_document_renders(text: str, cuts: list[int]) -> None:
    document = streamed(text, cuts)
    at_once = MarkdownDocument()
    at_once.feed(text)
    assert rendered(document) == rendered(at_once)
    shown = [line for line in rendered(document) if line.strip()]
    assert shown == [line for line in whole(text) if line.strip()]


@pytest.mark.soak  # the same property over three times the documents
@settings(max_examples=150, deadline=None)
@given(DOCUMENT, st.lists(st.integers(min_value=1, max_value=30), max_size=40))
def test_soak_any_chunking_renders_what_the_whole_document_renders(text: str, cuts: list[int]) -> None:
    test_any_chunking_renders_what_the_whole_document_renders.hypothesis.inner_test(text, cuts)


@settings(max_examples=50, deadline=None)
@given(DOCUMENT.filter(lambda text: "]: " not in text), st.lists(st.integers(min_value=1, max_value=30), max_size=40))
def test_at_every_cut_the_streamed_document_shows_what_a_whole_render_of_its_text_shows(
    text: str, cuts: list[int]
) -> None:
    # Blocks finished while the next line has not ended yet are the blocks a whole render of the text so far shows.
    # (A link definition counts once its line has ended: a whole render of a line cut short takes it already.)
    document = MarkdownDocument()
    position = 0
    for size in [*cuts, len(text)]:
        document.feed(text[position : position + size])
        position += size
        shown = [line for line in rendered(document) if line.strip()]
        assert shown == [line for line in whole(text[:position]) if line.strip()], text[:position]
        if position >= len(text):
            break


@pytest.mark.soak  # the same property over three times the documents
@settings(max_examples=150, deadline=None)
@given(DOCUMENT.filter(lambda text: "]: " not in text), st.lists(st.integers(min_value=1, max_value=30), max_size=40))
def test_soak_at_every_cut_the_streamed_document_shows_what_a_whole_render_of_its_text_shows(
    text: str, cuts: list[int]
) -> None:
    test_at_every_cut_the_streamed_document_shows_what_a_whole_render_of_its_text_shows.hypothesis.inner_test(
        text, cuts
    )


@settings(max_examples=60, deadline=None)
@given(DOCUMENT, st.integers(min_value=0, max_value=40), st.integers(min_value=0, max_value=40))
def test_released_lines_render_again_as_they_were(text: str, keep_from: int, keep: int) -> None:
    document = MarkdownDocument()
    document.feed(text)
    before = rendered(document)
    document.close()  # the open last block becomes a finished one: the same lines, releasable
    assert rendered(document) == before and not document.tail_lines
    height = document.height
    document.release(keep_from, keep_from + keep)
    assert document.height == height
    lines = document.lines
    assert all(lines[y] is not RELEASED for y in range(keep_from, min(keep_from + keep, len(lines))))
    outside = [(a, b) for a, b in document.spans if a < b and (b <= keep_from or a >= keep_from + keep)]
    assert all(line is RELEASED for a, b in outside for line in lines[a:b]) and document.released == len(outside)
    again = ["".join(segment.text for segment in document.line(y)).rstrip() for y in range(len(document.lines))]
    assert again == before[: len(document.lines)] and document.released == 0
    assert rendered(document) == before  # a later render (nothing new) keeps the restored lines


@settings(max_examples=80, deadline=None)
@given(DOCUMENT, st.lists(st.integers(min_value=1, max_value=30), max_size=40))
def test_a_closed_document_reads_its_blocks_from_the_answers_own_text(text: str, cuts: list[int]) -> None:
    document = streamed(text, cuts)
    streaming = [document.blocks[i] for i in range(len(document.blocks))]
    document.close()
    answer = "".join(list(text))  # the answer's text as the view holds it: equal, not the same object
    document.blocks.share(answer)
    closed = [document.blocks[i] for i in range(len(document.blocks))]
    assert closed[: len(streaming)] == streaming
    kept = "".join(closed)
    assert text.startswith(kept) and not text[len(kept) :].strip()  # only a blank end is no block
    assert document.blocks.text is answer
    before = rendered(document)
    document.release(0, 0)  # every line, then each rendered again from the shared text
    again = ["".join(segment.text for segment in document.line(y)).rstrip() for y in range(len(document.lines))]
    assert again == before[: len(document.lines)]


def test_the_blank_lines_between_blocks_are_one_line_of_the_document() -> None:
    # One list, segment and string for each gap was ~0.1 MB of every 20,000-token answer the session kept.
    text = "\n\n".join(f"Paragraph {n}: {'word ' * n}" for n in range(30))
    document = streamed(text, [11] * 60)  # rendered between chunks: the gaps come from many renders
    document.close()
    rendered(document)
    gaps = [document.lines[start - 1] for start, _end in document.spans[1:]]
    assert len(gaps) >= 25 and all(gap is gaps[0] for gap in gaps)
    assert [segment.text for segment in gaps[0]] == [" " * 60]
    document.release(0, 0)
    document.line(len(document.lines) - 1)  # the last block rendered again: the gaps are as they were
    assert all(document.lines[start - 1] is gaps[0] for start, _end in document.spans[1:])
    document.reset()
    rendered(document, width=40)  # rendered again at another width: its own blank line
    assert [segment.text for segment in document.lines[document.spans[1][0] - 1]] == [" " * 40]


class ViewApp(App[None]):
    CSS = "MarkdownView { height: auto; } VerticalScroll { layout: stream; }"

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return nav_defaults(self.current_theme.to_color_system().generate())

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield MarkdownView(DOC, id="whole")
            yield MarkdownView(streaming=True, id="streamed")


def lines(view: MarkdownView) -> list[str]:
    return [view.render_line(y).text.rstrip() for y in range(view.size.height)]


async def test_streamed_and_whole_documents_render_the_same() -> None:
    # Cuts that split the fence opener, the fence closer and a table row across chunks.
    cuts = [3, 1, 50, 2, 1, 1, 30, 7, 2, 60, 1, 1, 1, 25, 4]
    app = ViewApp()
    async with app.run_test(size=(80, 80)) as pilot:
        streamed = app.query_one("#streamed", MarkdownView)
        position = 0
        for size in [*cuts, len(DOC)]:
            streamed.append(DOC[position : position + size])
            position += size
            streamed.flush()
            await pilot.pause()
        streamed.finish()
        await pilot.pause()
        whole = app.query_one("#whole", MarkdownView)
        assert streamed.text == DOC
        assert lines(streamed) == lines(whole)
        shown = "\n".join(lines(whole))
        assert "def parse(text):" in shown and "```" not in shown and "│ a │ b │" in shown
        assert " 1. numbered" in shown and "• step one" in shown


async def test_appends_are_coalesced_into_few_renders() -> None:
    app = ViewApp()
    async with app.run_test(size=(80, 40)) as pilot:
        view = app.query_one("#streamed", MarkdownView)
        applied: list[str] = []
        original = view._apply
        view._coalescer._flush = lambda text: (applied.append(text), original(text))
        for index in range(200):
            view.append(f"w{index} ")
        await pilot.pause(0.1)
        assert 1 <= len(applied) <= 3 and "".join(applied) == "".join(f"w{i} " for i in range(200))
        assert view._coalescer._timer is None  # no timer left running once idle


def shown(document: MarkdownDocument) -> list[str]:
    """What a view shows of ``document`` (the rendered lines it has not caught up with are not shown)."""
    lines = [*document.lines[: document.shown], *([[]] if document.tail_blank else []), *document.tail_lines]
    return ["".join(segment.text for segment in line).rstrip() for line in lines]


def test_a_budgeted_render_shows_nothing_new_until_every_finished_block_is_rendered() -> None:
    document = MarkdownDocument()
    text = "first paragraph\n\nstill open"
    document.feed(text)
    document.render(CONSOLE, 60, Style(), PALETTE)
    before = shown(document)
    assert before == ["first paragraph", "", "still open"]
    more = " now closed\n\n" + "".join(f"paragraph {n}\n\n" for n in range(5)) + "new tail"
    document.feed(more)
    renders = 0
    while True:
        first = document.render(CONSOLE, 60, Style(), PALETTE, budget=0.0)  # one block per call
        renders += 1
        if not document.behind:
            break
        assert first is None and shown(document) == before  # neither a part of the answer nor the tail moves
    # the blocks the second feed finished (six: the first feed finished the first paragraph, the next line begun),
    # one a call, then the open block in a call of its own
    assert renders == 6 + 1 and len(document.blocks) == 7
    assert shown(document) == whole(text + more)


def test_a_budgeted_render_that_finished_a_block_leaves_the_open_block_to_the_next_call() -> None:
    # A flush renders the finished blocks, then the open one (a code block highlighted whole): in two calls, so a
    # key read during the first goes before the second. Nothing new shows until the second, then all of it.
    document = MarkdownDocument()
    text = "intro\n\n```python\ndef f():\n    return 1\n"
    document.feed(text)
    document.render(CONSOLE, 60, Style(), PALETTE, budget=1.0)
    assert document.behind and shown(document) == []  # intro finished, the fence waits
    assert document.render(CONSOLE, 60, Style(), PALETTE, budget=1.0) == 0 and not document.behind
    assert shown(document) == whole(text)
    document.feed("    x = 2\n")  # only the open block grew: one call
    document.render(CONSOLE, 60, Style(), PALETTE, budget=1.0)
    assert not document.behind and shown(document) == whole(text + "    x = 2\n")
    document.feed("```\n\nafter\n")  # without a budget (a finished reply, a test): one call
    document.render(CONSOLE, 60, Style(), PALETTE)
    assert not document.behind and shown(document) == whole(text + "    x = 2\n```\n\nafter\n")


def test_a_budgeted_render_gives_way_after_a_block_when_a_key_came() -> None:
    # A key read while a flush renders finished blocks ends the flush after the block in hand, as a spent budget
    # does: the key's echo goes before the rest, and nothing shows until all of it is rendered.
    document = MarkdownDocument()
    text = "".join(f"paragraph {n}\n\n" for n in range(4)) + "open"
    document.feed(text)
    asked: list[int] = []

    def key_came() -> bool:
        asked.append(document._rendered)
        return True

    assert document.render(CONSOLE, 60, Style(), PALETTE, budget=1.0, give_way=key_came) is None
    assert asked == [1] and document.behind and shown(document) == []
    while document.behind:
        document.render(CONSOLE, 60, Style(), PALETTE, budget=1.0)
    assert shown(document) == whole(text)


class PacedViewApp(ViewApp):
    """A view's app with navtui's input pacer (its frames do not tell it: the test says when an echo went out)."""

    def __init__(self) -> None:
        super().__init__()
        self.pacer = InputPacer()


async def test_a_flush_during_which_a_key_is_read_renders_after_the_keys_echo_and_shows_everything() -> None:
    # Textual's input thread reads a key while a flush feeds the new text (a parse of the open block): the flush
    # stops there, its render waits until the key's echo is out, then the view shows all of the text.
    app = PacedViewApp()
    async with app.run_test(size=(80, 80)) as pilot:
        view = app.query_one("#streamed", MarkdownView)
        view.append("First paragraph.\n\n```python\ndef f():\n")
        view.flush()
        await pilot.pause()
        before = lines(view)
        feed = view._feed

        def key_read_meanwhile(text: str) -> None:
            feed(text)
            app.pacer.read()

        view._feed = key_read_meanwhile  # type: ignore[method-assign]
        view.append("    return 1\n")  # only the open block grows: no finished block to split the flush at
        view._coalescer.flush_now()
        document = view._document
        assert not document.settled and view._catch_up_timer is not None and lines(view) == before
        app.pacer.read()  # (the key, read just now: a slow run must not see it older than ECHO_WAIT)
        view._catch_up()  # the timer's step, the echo still to come: nothing rendered, the step again later
        assert not document.settled and view._catch_up_timer is not None and lines(view) == before
        app.pacer.key()
        app.pacer.frame()  # the key's echo went out
        await wait_for(pilot, lambda: document.settled)
        await pilot.pause()
        assert [line.strip() for line in lines(view) if line.strip()] == [
            "First paragraph.",
            "def f():",
            "return 1",
        ]


async def test_a_flush_does_not_wait_for_an_echo_overdue(monkeypatch: Any) -> None:
    # A key older than ECHO_WAIT whose echo has not counted yet (keys typed without a pause, an echo painted while
    # the key was on its way) holds nothing back: the flush renders at once, as the coalescer lets it go. The
    # render's time budget is lifted: on a loaded machine the feed alone may outlast it, and this is not its test.
    monkeypatch.setattr(view_module, "RENDER_BUDGET", 60.0)
    app = PacedViewApp()
    async with app.run_test(size=(80, 80)) as pilot:
        view = app.query_one("#streamed", MarkdownView)
        view.append("```python\ndef f():\n")
        view.flush()
        await pilot.pause()
        app.pacer.read()
        app.pacer.read_at -= 2 * ECHO_WAIT  # read a while ago, its echo still pending
        assert app.pacer.echo_pending
        view.append("    return 1\n")
        view._coalescer.flush_now()
        assert view._document.settled and view._catch_up_timer is None


async def test_a_streaming_view_renders_a_backlog_of_blocks_a_budget_at_a_time(monkeypatch: Any) -> None:
    # A stream that fell behind hands the view dozens of finished blocks at once. They are rendered a budget
    # at a time (a key's echo may go between two), by a timer, until the view shows them all.
    monkeypatch.setattr(view_module, "RENDER_BUDGET", 0.0)
    app = ViewApp()
    async with app.run_test(size=(80, 80)) as pilot:
        view = app.query_one("#streamed", MarkdownView)
        text = "".join(f"Paragraph {n} of the backlog.\n\n" for n in range(20)) + "the open end"
        view.append(text)
        await pilot.pause(0.05)  # the coalescer's flush: one block rendered, the rest left for the timer
        for _ in range(200):
            if not view._document.behind:
                break
            await pilot.pause(0.01)
        assert not view._document.behind
        await pilot.pause()
        assert [line for line in lines(view) if line] == [f"Paragraph {n} of the backlog." for n in range(20)] + [
            "the open end"
        ]
        assert view._catch_up_timer is None


async def test_a_frame_renders_no_document_that_nothing_was_fed_since() -> None:
    # Every frame's layout and paint ask the view for its height and lines; a document with nothing new was
    # rendered again each time (the open block's lines compared with themselves) while the reply streamed.
    app = ViewApp()
    async with app.run_test(size=(80, 40)) as pilot:
        view = app.query_one("#streamed", MarkdownView)
        document = view._document
        renders: list[int] = []
        render = document.render

        def counted(*args: Any, **kwargs: Any) -> int | None:
            renders.append(1)
            return render(*args, **kwargs)

        document.render = counted  # type: ignore[method-assign]
        view.append("A paragraph.\n\n```python\ndef f():\n    return 1\n")
        view.flush()
        await pilot.pause()
        assert renders and document.settled
        before, renders[:] = lines(view), []
        for _ in range(3):
            view.refresh(layout=True)
            await pilot.pause()
        assert renders == [] and lines(view) == before
        view.append("    # more\n")  # new text: the next flush renders it, and the frame shows it
        view.flush()
        await pilot.pause()
        assert renders and any("# more" in line for line in lines(view))


def test_a_released_answer_keeps_its_blocks_small() -> None:
    # An answer scrolled away keeps its blocks' sources to render them again; each block is its source and a
    # few bytes more (one with a __dict__ cost ~350 bytes: ~130 KB for a 20,000-token answer).
    import sys

    splitter = BlockSplitter()
    blocks = splitter.feed("".join(f"paragraph {n}\n\n" for n in range(100)))
    assert len(blocks) >= 99
    own = [sys.getsizeof(block) + (sys.getsizeof(vars(block)) if hasattr(block, "__dict__") else 0) for block in blocks]
    assert max(own) <= 64


CUT_FENCE = """
import json, sys
from rich.console import Console
from rich.style import Style
from navtui.widgets.markdown.document import MarkdownDocument
from navtui.widgets.markdown.render import palette_for
document = MarkdownDocument()
console = Console(width=60, color_system=None)
for chunk in ("Some text.\\n\\n```python\\nprint(1)\\n```\\n\\n```pyt", "hon\\nprint(2)\\n```\\n"):
    document.feed(chunk)
    document.render(console, 60, Style(), palette_for({}), None)  # a flush: the second fence's language cut short
print(json.dumps({"plugins_looked_up": "importlib.metadata" in sys.modules, "height": document.height}))
"""


def test_a_fence_whose_language_a_flush_cut_short_looks_up_no_lexer() -> None:
    # Pygments, asked for a lexer of a name it does not know ("pyt"), reads every installed package's entry
    # points for plugin lexers: ~60 ms the first time, on the UI loop, mid-reply.
    out = subprocess.run(
        [sys.executable, "-c", CUT_FENCE], capture_output=True, text=True, check=True, cwd=Path(__file__).parents[2]
    )
    result = json.loads(out.stdout)
    assert result == {"plugins_looked_up": False, "height": result["height"]} and result["height"] > 3


@given(language=st.sampled_from(["python", "pyt", "p", "", "no-such-language", " ts title"]))
@settings(max_examples=12, deadline=None)
def test_a_fence_cut_short_shows_what_it_would_show_whole(language: str) -> None:
    for fence in ("```", "~~~~"):
        cut = f"Some text.\n\n{fence}{language}"
        assert settled_fence(cut) == f"Some text.\n\n{fence}"
        assert render_markdown(settled_fence(cut), CONSOLE, 60, Style(), PALETTE) == render_markdown(
            cut, CONSOLE, 60, Style(), PALETTE
        )
    for untouched in ("```py```", "a ```pyt", "    ```py", "```python\nprint(1)"):
        assert settled_fence(untouched) == untouched
