"""Streaming Markdown: the block splitter and MarkdownView render the same whatever the chunking."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll

from navtui.app.theme_defaults import nav_defaults
from navtui.widgets.markdown.blocks import BlockSplitter, split_blocks
from navtui.widgets.markdown.view import MarkdownView

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


def test_blocks_rejoin_to_the_document() -> None:
    blocks, tail = split_blocks(DOC)
    assert [b.source.splitlines()[0] for b in blocks] == [
        "# Plan",
        "First we read the parser. It has a bug in `parse()` and **two** callers.",
        "- step one",
        "- step two",
        "1. numbered",
        "2. again",
        "```python",
        "> a quote",
        "| a | b |",
    ]
    assert tail.strip() == "Done."
    rebuilt = "".join(("\n\n" if b.gap else "\n") + b.source if i else b.source for i, b in enumerate(blocks))
    assert rebuilt + "\n\n" + tail == DOC


def test_a_blank_line_inside_a_fence_does_not_split_it() -> None:
    blocks, _ = split_blocks(DOC)
    fence = next(b for b in blocks if b.source.startswith("```"))
    assert fence.source.endswith("```") and "return text.split()" in fence.source


def test_an_unclosed_fence_stays_open_in_the_tail() -> None:
    splitter = BlockSplitter()
    splitter.feed("intro\n\n```sh\nls\n\necho hi\n")
    assert splitter.in_fence and splitter.tail.startswith("```sh")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(min_value=1, max_value=40), min_size=1, max_size=80))
def test_any_chunking_gives_the_same_blocks(cuts: list[int]) -> None:
    whole_blocks, whole_tail = split_blocks(DOC)
    splitter = BlockSplitter()
    blocks = []
    position = 0
    for size in cuts:
        blocks += splitter.feed(DOC[position : position + size])
        position += size
    blocks += splitter.feed(DOC[position:])
    assert blocks == whole_blocks and splitter.tail == whole_tail


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
