"""Frames that write only what changed (app/screen_image.py) leave the terminal as a whole repaint would.

A terminal emulator (pyte) replays the bytes: after every frame its cells must be the frame's cells, whatever
scrolled, changed or was unknown before. The app on a pty: a streamed answer's screen equals the screen after
a dialog forced every row to be written whole.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pyte
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.cells import get_character_cell_size
from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from navtui.app.screen_image import DiffUpdate, Row, ScreenImage, erases_with_background
from tests.fakes import FakeServer

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from terminal import Terminal  # noqa: E402

WIDTH, HEIGHT = 12, 8
STYLES = [
    Style(color="#ff0000", bgcolor="#000000"),
    Style(color="#00ff00", bold=True),
    Style(bgcolor="#0000ff"),
    Style(color="#00ff00", bgcolor="#0000ff", italic=True, underline=True),
    Style(color="#ff0000", bgcolor="#000000", reverse=True, strike=True),
]
CHARS = "ab x─│界  "  # box drawing, blanks (runs long enough to be erased below) and a wide character


CONSOLE = Console(force_terminal=True, color_system="truecolor", width=WIDTH)


def _line(items: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """``items`` cut or padded to WIDTH cells (a wide character that would straddle the edge becomes a space)."""
    out: list[tuple[str, int]] = []
    for char, style in items:
        size = 2 if char == "界" else 1
        if len(out) + size > WIDTH:
            break
        out.append((char, style))
        if size == 2:
            out.append(("", style))
    while len(out) < WIDTH:
        out.append((" ", 0))
    return out


def _strip(cells: list[tuple[str, int]]) -> Strip:
    return Strip([Segment(char, STYLES[style]) for char, style in cells if char])


lines = st.lists(st.tuples(st.sampled_from(CHARS), st.integers(0, len(STYLES) - 1)), max_size=WIDTH).map(_line)
screens = st.lists(lines, min_size=HEIGHT, max_size=HEIGHT)


@st.composite
def frames(draw: st.DrawFn) -> list[dict[int, list[tuple[str, int]]]]:
    """A first whole screen, then frames made as a streaming transcript makes them: a band scrolled by a few
    rows with new rows at its end, cells changed here and there, some frames covering only some rows."""
    screen = draw(screens)
    out = [dict(enumerate(screen))]
    for _ in range(draw(st.integers(1, 6))):
        top = draw(st.integers(0, HEIGHT - 2))
        bottom = draw(st.integers(top + 2, HEIGHT))
        by = draw(st.integers(-2, 3))
        band = screen[top:bottom]
        if by > 0:
            band = band[by:] + [draw(lines) for _ in range(min(by, len(band)))]
        elif by < 0:
            band = [draw(lines) for _ in range(min(-by, len(band)))] + band[:by]
        screen = screen[:top] + band[: bottom - top] + screen[bottom:]
        for _ in range(draw(st.integers(0, 3))):
            y, x = draw(st.integers(0, HEIGHT - 1)), draw(st.integers(0, WIDTH - 1))
            row = [(c, s) for c, s in screen[y] if c]
            row[min(x, len(row) - 1)] = (draw(st.sampled_from(CHARS)), draw(st.integers(0, len(STYLES) - 1)))
            screen[y] = _line(row)
        covered = draw(st.sets(st.integers(0, HEIGHT - 1), min_size=1)) if draw(st.booleans()) else range(HEIGHT)
        out.append({y: screen[y] for y in covered})
        screen = [out[-1].get(y, screen[y]) for y in range(HEIGHT)]
    return out


def _look(cell: pyte.screens.Char) -> tuple[object, ...]:
    """What a user sees of a cell: a blank shows only its background (unless underlined, struck or reversed)."""
    if cell.data == " " and not (cell.underscore or cell.strikethrough or cell.reverse):
        return (" ", cell.bg)
    return (cell.data, cell.fg, cell.bg, cell.bold, cell.italics, cell.underscore, cell.strikethrough, cell.reverse)


def _shown(term: pyte.Screen) -> list[list[tuple[object, ...]]]:
    return [[_look(term.buffer[y][x]) for x in range(WIDTH)] for y in range(HEIGHT)]


@settings(max_examples=150, deadline=None)
@given(frames(), st.booleans())
def test_every_frame_leaves_the_cells_a_whole_repaint_leaves(
    sequence: list[dict[int, list[tuple[str, int]]]], erase: bool
) -> None:
    image = ScreenImage(CONSOLE, erase=erase)
    image.erase_min = 3  # runs of blanks this short are erased too: more erases on a small screen
    diffed, whole = pyte.Screen(WIDTH, HEIGHT), pyte.Screen(WIDTH, HEIGHT)
    diffed_stream, whole_stream = pyte.Stream(diffed), pyte.Stream(whole)
    for frame in sequence:
        image.begin(WIDTH, HEIGHT)
        rows: dict[int, Row] = {y: image.row_of([(0, _strip(cells))]) for y, cells in frame.items()}
        written = DiffUpdate(image, rows).render_segments(CONSOLE)
        diffed_stream.feed(written)
        assert diffed.cursor.attrs == diffed.default_char  # the frame leaves the default looks for Textual's writes
        # What Textual writes: every row of the frame whole
        whole_stream.feed("".join(f"\x1b[{y + 1};1H" + _strip(cells).render(CONSOLE) for y, cells in frame.items()))
        assert _shown(diffed) == _shown(whole)


def test_a_scrolled_band_is_moved_by_the_terminal_not_rewritten() -> None:
    image = ScreenImage(CONSOLE)
    image.begin(WIDTH, HEIGHT)
    text = [f"line {n:02d}".ljust(WIDTH) for n in range(HEIGHT + 1)]
    first = {y: image.row_of([(0, Strip([Segment(text[y])]))]) for y in range(HEIGHT)}
    whole = DiffUpdate(image, first).render_segments(CONSOLE)
    assert all(line.strip() in whole for line in text[:HEIGHT])
    image.begin(WIDTH, HEIGHT)
    moved = {y: image.row_of([(0, Strip([Segment(text[y + 1])]))]) for y in range(HEIGHT)}
    written = DiffUpdate(image, moved).render_segments(CONSOLE)
    assert written.startswith(f"\x1b[1;{HEIGHT}r")  # a scroll region over the band, then one line feed
    assert "line 08" in written and "line 05" not in written
    # the new last line only, plus the scroll: far less than the rows it shows
    assert len(written) < len(whole) // 3


def test_the_transcript_scrolls_while_the_status_line_ticks_below_an_unchanged_prompt() -> None:
    image = ScreenImage(CONSOLE)
    image.begin(WIDTH, HEIGHT)
    text = [f"line {n:02d}".ljust(WIDTH) for n in range(HEIGHT)]

    def frame(first: int, status: str) -> dict[int, Row]:
        rows = [text[(first + y) % HEIGHT] for y in range(5)] + ["> prompt".ljust(WIDTH), "", status.ljust(WIDTH)]
        return {y: image.row_of([(0, Strip([Segment(line.ljust(WIDTH))]))]) for y, line in enumerate(rows)}

    DiffUpdate(image, frame(0, "working |")).render_segments(CONSOLE)
    image.begin(WIDTH, HEIGHT)
    written = DiffUpdate(image, frame(1, "working /")).render_segments(CONSOLE)
    assert written.startswith("\x1b[1;5r")  # the transcript's rows only: the prompt below stays put
    assert "prompt" not in written and "line 01" not in written and "line 05" in written


def test_a_changed_word_writes_only_its_cells() -> None:
    image = ScreenImage(CONSOLE)
    image.begin(40, 2)
    before = {0: image.row_of([(0, Strip([Segment("the answer grows by a word".ljust(40))]))])}
    DiffUpdate(image, before).render_segments(CONSOLE)
    after = {0: image.row_of([(0, Strip([Segment("the answer grows by a word more".ljust(40))]))])}
    written = DiffUpdate(image, after).render_segments(CONSOLE)
    assert written == "\x1b[1;28Hmore"  # the space before it was there already


def test_looks_are_written_as_changes_from_the_looks_before() -> None:
    image = ScreenImage(CONSOLE)
    image.begin(9, 1)
    plain = Style(color="#ffffff", bgcolor="#101010")
    bold = Style(color="#ff0000", bgcolor="#101010", bold=True)
    row = image.row_of(
        [(0, Strip([Segment("ab", plain), Segment("cd", bold), Segment("ef", plain), Segment("   ", bold)]))]
    )
    written = DiffUpdate(image, {0: row}).render_segments(CONSOLE)
    assert written == (
        "\x1b[1;1H\x1b[38;2;255;255;255;48;2;16;16;16mab"
        "\x1b[1;38;2;255;0;0mcd"  # only what differs: no reset, the background stays
        "\x1b[22;38;2;255;255;255mef"  # bold off
        "   "  # blanks in the same background: nothing to change
        "\x1b[0m"  # the default looks again at the end of the frame
    )


def test_long_blanks_are_erased_where_the_terminal_erases_with_the_background() -> None:
    image = ScreenImage(CONSOLE, erase=True)
    image.begin(40, 1)
    back = Style(color="#ffffff", bgcolor="#101010")
    row = image.row_of([(0, Strip([Segment("a" + " " * 20 + "b" + " " * 18, back)]))])
    written = DiffUpdate(image, {0: row}).render_segments(CONSOLE)
    # 20 blanks: an erase and a move past them; the 18 at the end of the row: an erase only
    assert written == "\x1b[1;1H\x1b[38;2;255;255;255;48;2;16;16;16ma\x1b[20X\x1b[20Cb\x1b[18X\x1b[0m"
    assert [erases_with_background(term) for term in ("xterm-256color", "linux", "tmux-256color", None)] == [
        True,
        True,
        False,  # not in its terminfo: spaces
        False,
    ]


def test_a_row_of_one_cell_characters_takes_no_width_look_up_and_the_same_cells(monkeypatch) -> None:
    # A segment of box drawing or accented letters (the prompt's border at every key) was measured character by
    # character; made only of characters one cell wide it is taken whole. The cells are those the look-ups give.
    from navtui.app import screen_image

    def listed(char: str) -> bool:
        return any(start <= ord(char) < end for start, end in screen_image._ONE_CELL_RANGES)

    every = [chr(code) for start, end in screen_image._ONE_CELL_RANGES for code in range(start, end)]
    assert all(get_character_cell_size(char) == 1 for char in every)
    assert screen_image._one_cell("".join(every)) is not None
    assert [char for char in map(chr, range(0x3000)) if screen_image._one_cell(char) is not None] == every
    texts = ["╭" + "─" * 30 + "╮", "déjà vu │ Ωμέγα │ Привет", "a界b", "e\u0301x", "soft\u00adhyphen", "▌█▐"]

    def expected(text: str) -> list[str]:
        cells: list[str] = []
        for char in text:
            size = get_character_cell_size(char)
            if size == 0 and cells:
                cells[-1] += char
            elif size:
                cells.extend([char, "\x00"][:size])
        return cells

    looked_up: list[str] = []
    measure = screen_image.get_character_cell_size

    def counted(char: str) -> int:
        looked_up.append(char)
        return measure(char)

    monkeypatch.setattr(screen_image, "get_character_cell_size", counted)
    image = ScreenImage(CONSOLE)
    image.begin(40, 1)
    for text in texts:
        looked_up.clear()
        row = image.row_of([(0, Strip([Segment(text, STYLES[0])]))])
        cells = expected(text)
        assert row.cells[: len(cells)] == cells and set(row.cells[len(cells) :]) <= {" "}
        one_cell = all(listed(char) or char.isascii() for char in text)
        assert (looked_up == []) == one_cell, text


# ---------------------------------------------------------------------- the app on a pty
MODEL = "qwen2.5-coder:7b"


def test_a_streamed_answer_looks_as_a_whole_repaint_of_it(workspace: Path, tmp_path: Path) -> None:
    paragraphs = [f"Paragraph {n}: " + " ".join(f"word{n}x{m}" for m in range(30)) for n in range(40)]
    answer = "\n\n".join(paragraphs) + "\n\nTHE END"
    with FakeServer() as server:
        server.set_model(MODEL, context_length=32768)
        server.script_stream(answer, tokens_per_second=4000, chunk_chars=4)
        env = dict(os.environ, TERM="xterm-256color", COLORTERM="truecolor", NAVTUI_HOME=str(tmp_path / "home"))
        argv = [sys.executable, "-m", "navtui", "-p", "ollama", "-b", server.url, "-m", MODEL]
        term = Terminal(argv, env=env, cwd=str(workspace), columns=90, lines=30)
        try:
            assert term.wait(lambda lines: MODEL in lines[-1], timeout=60) is not None
            term.write(b"tell me\r")
            assert term.wait(lambda lines: any("THE END" in line for line in lines), timeout=60) is not None
            assert term.wait(lambda lines: "working" not in lines[-1], timeout=30) is not None
            # The transcript's rows (the status line below keeps ticking: its clock and git summary)
            shown = term.display()[:-6]
            term.write(b"\x10")  # ctrl+p: the palette's frames are not the main screen's, so ...
            assert term.wait(lambda lines: "Search for commands" in "\n".join(lines), timeout=30) is not None
            term.write(b"\x1b")  # ... closing it repaints every row whole
            assert term.wait(lambda lines: "Search for commands" not in "\n".join(lines), timeout=30) is not None
            assert term.wait(lambda lines: lines[:-6] == shown, timeout=10) is not None, "\n".join(term.display())
        finally:
            term.close()
