"""What the terminal shows now, so that a frame writes only the cells that changed.

Textual writes every line an update covers, whole: a streamed answer that grows by a word repaints the lines of
the transcript it touches, and a transcript that follows its end repaints every visible line as it scrolls
(~2.2 KB a frame at 120x40). ``ScreenImage`` remembers the cells the terminal holds; ``DiffUpdate`` compares a
frame's rows with them and writes

- a scroll of the band of rows whose content moved up or down (the terminal moves them: a scroll region and
  line feeds, a few bytes), when that saves rows;
- for each row that still differs, only the runs of cells that differ (a cursor move and the new cells);
- each run's looks as a change from the looks the terminal has just used (only the colours or attributes that
  differ, no reset after every run as Textual writes; a run of blanks keeps the foreground it finds, which
  a blank does not show), and one reset at the end of the frame;
- a long run of blanks as an erase (ECH: the terminal fills the cells with the background in use), on terminals
  whose terminfo says they erase with the background (``bce``: xterm and the terminals that take its name, the
  Linux console, rxvt-unicode); elsewhere as spaces.

The image is exact only while every byte that changes cells goes through it: any other update (another
screen's compositor, a resize, a suspend and resume) calls ``invalidate`` and the next frame writes its rows
whole. Nothing here changes what a frame shows, only how many bytes it takes (tests/app/test_screen_image.py
replays the bytes in a terminal emulator and compares the screen with a whole repaint's).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from rich.cells import get_character_cell_size
from rich.color import ColorSystem
from rich.console import Console, ConsoleOptions, RenderResult
from rich.control import Control
from rich.segment import Segment
from rich.style import Style
from textual._compositor import CompositorUpdate
from textual.strip import Strip

_PAD = "\x00"  # the second cell of a wide character (never a character of its own: display text has no NUL)
_MAX_STYLES = 4096  # distinct styles remembered; past that the image starts again (one whole repaint)
_GAP = 6  # unchanged cells between two changed runs cheaper to rewrite than to skip with a cursor move
_MAX_SCROLL = 12  # rows a frame may scroll by (a streamed answer moves one or two)
_ERASE_MIN = 12  # blanks worth an erase and a cursor move (ECH + CUF: ~10 bytes)
# TERM values whose terminfo has ``bce`` (an erase fills with the current background). Not xterm-kitty, tmux,
# screen, alacritty, foot, wezterm: their entries do not say so, and a terminal without it would erase to its
# own default background.
_BCE_TERMS = frozenset(
    ("xterm", "xterm-color", "xterm-256color", "xterm-direct", "linux", "rxvt-unicode", "rxvt-unicode-256color")
)
# Characters Rich measures one cell wide (printable ASCII, Latin, Greek, Cyrillic, box drawing, block elements,
# geometric shapes): a segment made only of them (a prompt's or a card's border, a line of accented text) needs
# no width look-up per character. The soft hyphen (U+00AD) is left out: it takes no cell.
# A character class, not a set of the ~1,200 characters (0.2 MB of every process; the class is faster too: a set's
# ``issuperset`` makes a string of each character past Latin-1).
_ONE_CELL_RANGES = ((0x20, 0x7F), (0xA0, 0xAD), (0xAE, 0x300), (0x370, 0x483), (0x2500, 0x25FD))
_one_cell = re.compile(
    "[" + "".join(f"{re.escape(chr(start))}-{re.escape(chr(end - 1))}" for start, end in _ONE_CELL_RANGES) + "]*"
).fullmatch


def erases_with_background(term: str | None) -> bool:
    """Whether a terminal named ``term`` (``$TERM``) fills erased cells with the current background."""
    return term in _BCE_TERMS


# Rich's attribute bits (``Style._attributes``), the SGR code that turns each off, and the bits that code turns off.
_OFF = ("22", "22", "23", "24", "25", "25", "27", "28", "29", "24", "54", "54", "55")
_OFF_BITS = {code: sum(1 << bit for bit, off in enumerate(_OFF) if off == code) for code in set(_OFF)}
_ON = ("1", "2", "3", "4", "5", "6", "7", "8", "9", "21", "51", "52", "53")
# Attributes a blank cell shows (underline, reverse, strike, double underline, frame, encircle, overline).
_SHOWN_ON_BLANK = sum(1 << bit for bit in (3, 6, 8, 9, 10, 11, 12))


@dataclass(frozen=True, slots=True)
class Pen:
    """What a look sets on the terminal: its attribute bits and its foreground and background SGR codes."""

    attributes: int = 0
    fg: str = ""
    bg: str = ""
    link: str = ""  # the OSC 8 sequence that opens the look's link ("" for none)

    def codes(self) -> str:
        on = [_ON[bit] for bit in range(self.attributes.bit_length()) if self.attributes >> bit & 1]
        return ";".join([*on, *(code for code in (self.fg, self.bg) if code)])


_DEFAULT_PEN = Pen()


def _change(current: Pen, new: Pen) -> str:
    """The shortest SGR sequence that turns the terminal's ``current`` pen into ``new`` (links aside)."""
    if (current.attributes, current.fg, current.bg) == (new.attributes, new.fg, new.bg):
        return ""
    codes: list[str] = []
    attributes = current.attributes
    removed = attributes & ~new.attributes
    if removed:
        for code in sorted({_OFF[bit] for bit in range(removed.bit_length()) if removed >> bit & 1}):
            codes.append(code)
            attributes &= ~_OFF_BITS[code]
    added = new.attributes & ~attributes
    codes.extend(_ON[bit] for bit in range(added.bit_length()) if added >> bit & 1)
    if new.fg != current.fg:
        codes.append(new.fg or "39")
    if new.bg != current.bg:
        codes.append(new.bg or "49")
    step = ";".join(codes)
    full = new.codes()
    reset = f"0;{full}" if full else "0"
    return f"\x1b[{step if len(step) <= len(reset) else reset}m"


@dataclass(slots=True)
class Row:
    """One row of cells: the text of each cell ("" never occurs: a wide character's second cell is ``_PAD``)
    and the id of its look (``ScreenImage`` maps looks to styles)."""

    cells: list[str]
    looks: list[int]

    def same(self, other: Row | None) -> bool:
        return other is not None and self.cells == other.cells and self.looks == other.looks


class ScreenImage:
    """The terminal's cells as the last frames left them (``None``: a row whose content is not known)."""

    def __init__(self, console: Console | None = None, erase: bool = False) -> None:
        self.console = console
        self.erase = erase  # long runs of blanks are written as an erase (the terminal has ``bce``)
        self.erase_min = _ERASE_MIN
        self.width = 0
        self.height = 0
        self.rows: list[Row | None] = []
        self._look_of: dict[Style | None, int] = {}
        self._look_ids: dict[tuple[str, str | None], int] = {}
        self.styles: list[Style | None] = []
        self.pens: list[Pen] = []
        self.color_system = ColorSystem.TRUECOLOR
        self.generation = 0  # counts ``invalidate``: look ids and rows taken before it may be stale

    def invalidate(self) -> None:
        """Forget what the terminal shows: the next frame writes every row it covers whole."""
        self.rows = [None] * self.height
        self.generation += 1

    def put(self, y: int, x: int, cells: str, looks: Sequence[int], generation: int) -> None:
        """Cells written to the terminal outside a frame (``app/local_echo.py``): one-cell characters from column
        ``x`` of row ``y``, their looks taken at ``generation``; a row known only since a later generation is
        forgotten instead (its next frame writes it whole)."""
        if not 0 <= y < len(self.rows):
            return
        row = self.rows[y]
        if row is None:
            return
        if generation != self.generation or x < 0 or x + len(cells) > len(row.cells):
            self.rows[y] = None
            return
        new = Row(list(row.cells), list(row.looks))  # rows may be shared (a scroll's ``shifted``): not in place
        new.cells[x : x + len(cells)] = list(cells)
        new.looks[x : x + len(cells)] = list(looks)
        self.rows[y] = new

    def sgr_run(self, steps: Sequence[tuple[int, bool]]) -> list[str]:
        """The SGR sequences a frame writes before each of ``steps`` (a look, and whether its cells are blanks),
        starting from the default looks: a run of blanks keeps the foreground it finds, as ``_render_cells``
        writes them (``app/local_echo.py`` writes its cells the same way)."""
        pen, out = _DEFAULT_PEN, []
        for look, blank in steps:
            new = self.pens[look]
            if blank and not (new.attributes | pen.attributes) & _SHOWN_ON_BLANK:
                new = Pen(pen.attributes, pen.fg, new.bg)
            out.append(_change(pen, new))
            pen = new
        return out

    def begin(self, width: int, height: int) -> None:
        """Start building a frame for a ``width`` x ``height`` screen (a new size: nothing is known)."""
        if self.console is not None:  # the colours Textual renders with (it caches a style's codes)
            self.color_system = self.console._color_system or ColorSystem.TRUECOLOR
        if (width, height) != (self.width, self.height):
            self.width, self.height = width, height
            self.invalidate()
        if len(self._look_of) >= _MAX_STYLES:  # styles with per-line meta come and go: start again
            self._look_of.clear()
            self._look_ids.clear()
            self.styles.clear()
            self.pens.clear()
            self.invalidate()

    # ------------------------------------------------------------------ cells
    def look(self, style: Style | None) -> int:
        """A small id for what ``style`` looks like on the terminal (its SGR codes and link; meta ignored)."""
        found = self._look_of.get(style)
        if found is not None:
            return found
        if style is None:
            key: tuple[str, str | None] = ("", None)
        else:
            ansi = style._ansi if style._ansi is not None else Strip.render_ansi(style, self.color_system)
            key = (ansi, style._link)
        look = self._look_ids.get(key)
        if look is None:
            look = self._look_ids[key] = len(self.styles)
            self.styles.append(style)
            self.pens.append(self._pen(style))
        self._look_of[style] = look
        return look

    def _pen(self, style: Style | None) -> Pen:
        if style is None:
            return _DEFAULT_PEN
        system = self.color_system
        fg = ";".join(style._color.downgrade(system).get_ansi_codes()) if style._color is not None else ""
        bg = ";".join(style._bgcolor.downgrade(system).get_ansi_codes(False)) if style._bgcolor is not None else ""
        link = f"\x1b]8;id={style._link_id};{style._link}\x1b\\" if style._link else ""
        return Pen(style._attributes & style._set_attributes, fg, bg, link)

    def paints_same(self, strips: Iterable[tuple[int, Strip]], base: Row) -> bool:
        """Whether narrow ``strips`` (each at a column, a few cells of one-cell characters) paint what ``base``
        shows there already (the scrollbar's column beside a scrolled band, most of its rows)."""
        for x, strip in strips:
            if strip.cell_length > 4:
                return False
            for segment in strip:
                text = segment.text
                if segment.control or not (text.isascii() or _one_cell(text) is not None):
                    return False
                end = x + len(text)
                if base.cells[x:end] != list(text) or base.looks[x:end] != [self.look(segment.style)] * len(text):
                    return False
                x = end
        return True

    def row_of(self, strips: Iterable[tuple[int, Strip]], base: Row | None = None) -> Row:
        """The row that ``strips`` (each at a column) paint over ``base`` (blank where neither covers)."""
        if base is not None:
            cells, looks = list(base.cells), list(base.looks)
        else:
            cells, looks = [" "] * self.width, [self.look(None)] * self.width
        for x, strip in strips:
            line_cells: list[str] = []
            line_looks: list[int] = []
            for segment in strip:
                text, style = segment.text, segment.style
                if not text or segment.control:
                    continue
                look = self.look(style)
                if text.isascii() or _one_cell(text) is not None:
                    line_cells.extend(text)
                    line_looks.extend([look] * len(text))
                    continue
                for char in text:
                    size = get_character_cell_size(char)
                    if size == 0 and line_cells:
                        line_cells[-1] += char  # a combining mark rides on the cell before it
                    elif size == 2:
                        line_cells.extend((char, _PAD))
                        line_looks.extend((look, look))
                    elif size == 1:
                        line_cells.append(char)
                        line_looks.append(look)
            end = min(x + len(line_cells), self.width)
            if end > x:
                cells[x:end] = line_cells[: end - x]
                looks[x:end] = line_looks[: end - x]
        return Row(cells, looks)


class DiffUpdate(CompositorUpdate):
    """A frame as the rows it changes; written as the difference from what the terminal shows."""

    def __init__(self, image: ScreenImage, rows: Mapping[int, Row]) -> None:
        self.image = image
        self.rows = rows
        # Bands the terminal scrolls first, known before the frame (``DiffingCompositor``: a transcript that
        # followed its end), the rows given as they are after it
        self.scrolls: list[tuple[int, int, int]] = []

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        # The rows whole (what the frame shows), for a console that prints the update instead of writing it.
        for y in sorted(self.rows):
            row = self.rows[y]
            yield Control.move_to(0, y).segment
            x = 0
            while x < len(row.looks):
                end = x
                while end < len(row.looks) and row.looks[end] == row.looks[x]:
                    end += 1
                text = "".join(cell for cell in row.cells[x:end] if cell != _PAD)
                yield Segment(text, self.image.styles[row.looks[x]])
                x = end

    def render_segments(self, console: Console) -> str:
        image = self.image
        out: list[str] = []
        pen = _DEFAULT_PEN  # scrolls go first, with the terminal's default looks (a new line is blank)
        old = image.rows
        for top, bottom, by in self.scrolls:
            out.append(_scroll_sequence(top, bottom, by))
            old = shifted(old, top, bottom, by)
        for top, bottom, by in _scrolls(old, self.rows):
            out.append(_scroll_sequence(top, bottom, by))
            old = shifted(old, top, bottom, by)
        for y in sorted(self.rows):
            row = self.rows[y]
            before = old[y] if y < len(old) else None
            if row.same(before):
                continue
            for start, end in _changed_runs(before, row):
                out.append(f"\x1b[{y + 1};{start + 1}H")
                pen = _render_cells(out, image, row, start, end, pen)
        if pen != _DEFAULT_PEN:
            out.append("\x1b[0m")  # Textual's own writes start from the default looks
        new_rows = list(old)
        for y, row in self.rows.items():
            if y < len(new_rows):
                new_rows[y] = row
        image.rows = new_rows
        return "".join(out)


def _scrolls(old: Sequence[Row | None], new: Mapping[int, Row]) -> list[tuple[int, int, int]]:
    """Bands ``(top, bottom, by)`` to scroll (``by`` > 0: content moves up) so that fewer rows are left to
    write. A band lies inside one run of rows the frame covers whole (rows outside the frame would move
    unseen), so a transcript that scrolls while the status line ticks below an unchanged prompt is still
    moved by the terminal."""
    bands = []
    for run in _runs(sorted(y for y in new if y < len(old))):
        changed = [y for y in run if not new[y].same(old[y])]
        if len(changed) < 4:
            continue
        band = _best_band(old, new, changed[0], changed[-1] + 1)
        if band is not None:
            bands.append(band)
            old = shifted(old, *band)
    return bands


def _runs(rows: list[int]) -> list[list[int]]:
    runs: list[list[int]] = []
    for y in rows:
        if runs and runs[-1][-1] == y - 1:
            runs[-1].append(y)
        else:
            runs.append([y])
    return runs


def _best_band(old: Sequence[Row | None], new: Mapping[int, Row], top: int, bottom: int) -> tuple[int, int, int] | None:
    best, best_gain = None, 2  # a scroll costs a few bytes: worth it from three rows saved
    limit = min(_MAX_SCROLL, (bottom - top) // 2)
    for by in (*range(1, limit + 1), *range(-1, -limit - 1, -1)):
        matched = [y for y in range(top, bottom) if top <= y + by < bottom and new[y].same(old[y + by])]
        if len(matched) <= best_gain:
            continue
        # The band: the matched rows and the rows they come from.
        band_top = min(matched[0], matched[0] + by)
        band_bottom = max(matched[-1], matched[-1] + by) + 1
        kept = sum(1 for y in range(band_top, band_bottom) if new[y].same(old[y]))  # rows a scroll would spoil
        gain = len(matched) - kept
        if gain > best_gain:
            best, best_gain = (band_top, band_bottom, by), gain
    return best


def _scroll_sequence(top: int, bottom: int, by: int) -> str:
    # DECSTBM limits the scroll to the band; line feeds at its bottom (reverse index at its top) move it.
    # Resetting the margins homes the cursor; every write after this moves the cursor itself.
    if by > 0:
        return f"\x1b[{top + 1};{bottom}r\x1b[{bottom};1H" + "\n" * by + "\x1b[r"
    return f"\x1b[{top + 1};{bottom}r\x1b[{top + 1};1H" + "\x1bM" * -by + "\x1b[r"


def shifted(rows: Sequence[Row | None], top: int, bottom: int, by: int) -> list[Row | None]:
    """``rows`` as the terminal holds them after scrolling the band (rows scrolled in: not known)."""
    moved = list(rows)
    for y in range(top, bottom):
        source = y + by
        moved[y] = rows[source] if top <= source < bottom else None
    return moved


def _changed_runs(before: Row | None, after: Row) -> list[tuple[int, int]]:
    """Column ranges ``[start, end)`` to write so that ``before`` becomes ``after`` (whole row if unknown)."""
    width = len(after.cells)
    if before is None or len(before.cells) != width:
        return [(0, width)]
    runs: list[tuple[int, int]] = []
    a_cells, a_looks, b_cells, b_looks = after.cells, after.looks, before.cells, before.looks
    x = 0
    while x < width:
        if a_cells[x] == b_cells[x] and a_looks[x] == b_looks[x]:
            x += 1
            continue
        start = x
        while x < width and (a_cells[x] != b_cells[x] or a_looks[x] != b_looks[x]):
            x += 1
        if runs and start - runs[-1][1] <= _GAP:
            runs[-1] = (runs[-1][0], x)
        else:
            runs.append((start, x))
    # Never start or end inside a wide character: its two cells are written together.
    fixed = []
    for start, end in runs:
        while start > 0 and a_cells[start] == _PAD:
            start -= 1
        while end < width and a_cells[end] == _PAD:
            end += 1
        fixed.append((start, end))
    return fixed


def _render_cells(out: list[str], image: ScreenImage, row: Row, start: int, end: int, pen: Pen) -> Pen:
    """Append the cells ``[start, end)`` of ``row`` to ``out``, the terminal's looks being ``pen``; returns the
    looks it leaves."""
    cells, looks, pens = row.cells, row.looks, image.pens
    x = start
    while x < end:
        look = looks[x]
        run_end = x
        while run_end < end and looks[run_end] == look:
            run_end += 1
        text = "".join(cell for cell in cells[x:run_end] if cell != _PAD)
        new = pens[look]
        if new.link:
            out.append(_change(pen, new))
            out.append(f"{new.link}{text}\x1b]8;;\x1b\\")
            pen = new
        else:
            plain = not (new.attributes | pen.attributes) & _SHOWN_ON_BLANK
            if plain and not text.strip(" "):
                new = Pen(pen.attributes, pen.fg, new.bg)  # blanks: only the background shows
            out.append(_change(pen, new))
            pen = new
            if plain and image.erase and " " * image.erase_min in text:
                _write_erasing(out, cells, x, run_end, end, image.erase_min)
            else:
                out.append(text)
        x = run_end
    return pen


def _write_erasing(out: list[str], cells: list[str], x: int, run_end: int, end: int, least: int) -> None:
    """Write cells ``[x, run_end)`` (one look) with each run of ``least`` blanks or more as an erase, and a cursor
    move past it when more cells follow in the write."""
    blanks = [" "] * least
    while x < run_end:
        blank = x
        while blank < run_end and not (cells[blank] == " " and cells[blank : blank + least] == blanks):
            blank += 1
        out.append("".join(cell for cell in cells[x:blank] if cell != _PAD))
        if blank == run_end:
            return
        stop = blank
        while stop < run_end and cells[stop] == " ":
            stop += 1
        out.append(f"\x1b[{stop - blank}X")
        if stop < end:
            out.append(f"\x1b[{stop - blank}C")
        x = stop
