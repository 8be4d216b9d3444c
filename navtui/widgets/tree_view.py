"""The session tree widget: a Line API ``ScrollView`` that draws only the rows on screen.

It shows a ``TreeModel``'s visible rows with a cursor and handles moving, paging and folding. Each drawn row is
cached per (row, selected, width, label, folded) so scrolling a 5,000-entry tree costs a few rows a frame.
Entry text comes from the session (model output, tool arguments): it goes into ``rich.text.Text`` verbatim,
never through markup.
"""

from __future__ import annotations

from datetime import datetime

from rich.style import Style
from rich.text import Text
from textual.binding import Binding
from textual.cache import LRUCache
from textual.events import Click, Resize
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from navtui.core.display import display_safe
from navtui.widgets.tree_rows import TreeModel, TreeRow, short_time

_TEXT_STYLED = frozenset({"tool", "error", "meta"})  # kinds whose text (not only the icon) takes the colour


def empty_hint(model: TreeModel) -> str:
    """What to do when the filter or the search leaves no row to show."""
    if model.query:
        return f"Nothing matches “{display_safe(model.query)}”. Backspace edits the search, Esc clears it."
    if model.filter_mode == "labeled-only":
        return "No labeled entries yet. ctrl+o shows the others; shift+L labels the entry under the cursor."
    return "No entries in this filter. ctrl+o switches to the next one."


class TreeView(ScrollView, can_focus=True):
    """Rows of a ``TreeModel``; the screen owns filtering, search, labels and Enter."""

    COMPONENT_CLASSES = {
        "tree-view--cursor",
        "tree-view--prefix",
        "tree-view--marker",
        "tree-view--label",
        "tree-view--leaf",
        "tree-view--time",
        "tree-view--user",
        "tree-view--assistant",
        "tree-view--tool",
        "tree-view--error",
        "tree-view--summary",
        "tree-view--custom",
        "tree-view--meta",
        "tree-view--empty",
    }

    DEFAULT_CSS = """
    TreeView {
        background: $surface;
        color: $nav-text;
        overflow-x: hidden;
        scrollbar-size-vertical: 1;
    }
    TreeView > .tree-view--cursor { background: $nav-selected-bg; text-style: bold; }
    TreeView > .tree-view--prefix { color: $nav-dim; }
    TreeView > .tree-view--marker { color: $nav-accent; }
    TreeView > .tree-view--label { color: $nav-warning; }
    TreeView > .tree-view--leaf { color: $nav-accent; text-style: bold; }
    TreeView > .tree-view--time { color: $nav-dim; }
    TreeView > .tree-view--user { color: $nav-accent; }
    TreeView > .tree-view--assistant { color: $nav-success; }
    TreeView > .tree-view--tool { color: $nav-muted; }
    TreeView > .tree-view--error { color: $nav-error; }
    TreeView > .tree-view--summary { color: $nav-warning; }
    TreeView > .tree-view--custom { color: $nav-custom-message-label; }
    TreeView > .tree-view--meta { color: $nav-dim; }
    TreeView > .tree-view--empty { color: $nav-muted; text-style: italic; }
    """

    BINDINGS = [
        Binding("up", "cursor_up", "Up", show=False),
        Binding("down", "cursor_down", "Down", show=False),
        Binding("pageup", "page_up", "Page up", show=False),
        Binding("pagedown", "page_down", "Page down", show=False),
        Binding("home", "first", "First", show=False),
        Binding("end", "last", "Last", show=False),
        Binding("left,ctrl+left", "fold_or_back", "Fold / previous branch", show=False),
        Binding("right,ctrl+right", "unfold_or_next", "Unfold / next branch", show=False),
    ]

    class CursorMoved(Message):
        """The cursor is on another row (or the rows changed)."""

        def __init__(self, row: TreeRow | None, position: int, count: int) -> None:
            super().__init__()
            self.row = row
            self.position = position
            self.count = count

    class Activated(Message):
        """A row was double-clicked."""

        def __init__(self, row: TreeRow) -> None:
            super().__init__()
            self.row = row

    def __init__(self, model: TreeModel, *, now: datetime | None = None, id: str | None = None) -> None:
        super().__init__(id=id)
        self.model = model
        self.now = now or datetime.now().astimezone()
        self.rows: list[TreeRow] = []
        self.cursor = 0
        self._strips: LRUCache[tuple[int, bool, int, str | None, bool], Strip] = LRUCache(1024)
        self._times: dict[int, str] = {}
        self._last_id: str | None = None  # the cursor's entry, remembered through a filter that shows nothing

    # ------------------------------------------------------------------ state
    @property
    def cursor_row(self) -> TreeRow | None:
        return self.rows[self.cursor] if 0 <= self.cursor < len(self.rows) else None

    def reload(self, keep: str | None = None) -> None:
        """Recompute the visible rows; the cursor stays on ``keep`` (default: its entry) when still shown."""
        current = self.cursor_row
        wanted = keep if keep is not None else (current.id if current is not None else self._last_id)
        self.rows = self.model.visible()
        position = self._position_of(wanted) if wanted else None
        self.cursor = position if position is not None else min(self.cursor, max(len(self.rows) - 1, 0))
        self.virtual_size = Size(0, len(self.rows))
        self._strips.clear()
        self._scroll_to_cursor(center=True)
        self.refresh()
        self._announce()

    def _position_of(self, entry_id: str) -> int | None:
        """The shown row of ``entry_id``, or of its nearest shown ancestor (the leaf a resumed session ends on is
        often hidden: a model change, a setting), or ``None``."""
        positions = {row.index: position for position, row in enumerate(self.rows)}
        row = self.model.row(entry_id)
        while row is not None and row.index not in positions:
            row = self.model.rows[row.parent] if row.parent >= 0 else None
        return positions[row.index] if row is not None else None

    def select_entry(self, entry_id: str) -> bool:
        for position, row in enumerate(self.rows):
            if row.id == entry_id:
                self._move_to(position, center=True)
                return True
        return False

    # ------------------------------------------------------------------ actions
    def action_cursor_up(self) -> None:
        self._move_to(self.cursor - 1 if self.cursor > 0 else len(self.rows) - 1)  # wraps, as omp

    def action_cursor_down(self) -> None:
        self._move_to(self.cursor + 1 if self.cursor < len(self.rows) - 1 else 0)

    def action_page_up(self) -> None:
        self._move_to(max(self.cursor - self._page(), 0))

    def action_page_down(self) -> None:
        self._move_to(min(self.cursor + self._page(), len(self.rows) - 1))

    def action_first(self) -> None:
        self._move_to(0)

    def action_last(self) -> None:
        self._move_to(len(self.rows) - 1)

    def action_fold_or_back(self) -> None:
        """Fold the branch under the cursor; on a folded or unfoldable row jump to the previous branch start."""
        row = self.cursor_row
        if row is None:
            return
        if self.model.fold(row):
            self.reload(keep=row.id)
            return
        for position in range(self.cursor - 1, -1, -1):
            if self.rows[position].segment_start:
                self._move_to(position)
                return

    def action_unfold_or_next(self) -> None:
        """Unfold a folded row; otherwise jump to the next branch start."""
        row = self.cursor_row
        if row is None:
            return
        if self.model.unfold(row):
            self.reload(keep=row.id)
            return
        for position in range(self.cursor + 1, len(self.rows)):
            if self.rows[position].segment_start:
                self._move_to(position)
                return

    # ------------------------------------------------------------------ events
    def on_mount(self) -> None:
        if not self.rows:
            self.reload(keep=self.model.leaf_id)

    def on_resize(self, _event: Resize) -> None:
        self._strips.clear()
        self._scroll_to_cursor(center=True)

    def on_click(self, event: Click) -> None:
        position = event.y + self.scroll_offset.y
        if 0 <= position < len(self.rows):
            self._move_to(position)
            if event.chain >= 2:
                self.post_message(self.Activated(self.rows[position]))

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._strips.clear()

    # ------------------------------------------------------------------ drawing
    def render_line(self, y: int) -> Strip:
        position = y + self.scroll_offset.y
        width = self.scrollable_content_region.width
        if not self.rows and y == 1:
            hint = Text(no_wrap=True, end="")
            hint.append("  " + empty_hint(self.model), self._style("empty"))
            hint.truncate(width, overflow="ellipsis", pad=True)
            return Strip(list(hint.render(self.app.console)), width).apply_style(self.rich_style)
        if not 0 <= position < len(self.rows):
            return Strip.blank(width, self.rich_style)
        row = self.rows[position]
        selected = position == self.cursor
        key = (row.index, selected, width, row.label, self.model.is_folded(row))
        strip = self._strips.get(key)
        if strip is None:
            strip = self._render_row(row, selected, width)
            self._strips[key] = strip
        return strip

    def _style(self, name: str) -> Style:
        return self.get_component_rich_style(f"tree-view--{name}", partial=True)

    def _render_row(self, row: TreeRow, selected: bool, width: int) -> Strip:
        described = self.model.describe(row)
        left = Text(no_wrap=True, overflow="ellipsis", end="")
        left.append("› " if selected else "  ", self._style("marker"))
        connector = self.model.connector_of(row)
        left.append(self._prefix(row, connector), self._style("prefix"))
        if self.model.is_folded(row) and not connector:
            left.append("⊞ ", self._style("marker"))
        if row.active:
            left.append("• ", self._style("marker"))
        if row.label:
            left.append(f"[{display_safe(row.label)}] ", self._style("label"))
        icon_style = self._style(described.style)
        left.append(described.icon + " ", icon_style)
        # Session text (messages, tool arguments, names) from a file: escapes shown, never interpreted.
        left.append(display_safe(described.text), icon_style if described.style in _TEXT_STYLED else Style())
        right = Text(no_wrap=True, end="")
        if row.index == self.model.shown_leaf:
            right.append(" ← active", self._style("leaf"))
        stamp = self._time(row)
        if stamp:
            right.append(f"  {stamp} ", self._style("time"))
        room = max(width - right.cell_len, 0)
        left.truncate(room, overflow="ellipsis", pad=True)
        line = left + right
        line.truncate(width, pad=True)
        if selected:
            line.stylize_before(self._style("cursor"))
        segments = list(line.render(self.app.console))
        return Strip(segments, width).apply_style(self.rich_style)

    def _prefix(self, row: TreeRow, connector: str) -> str:
        if row.depth == 0:
            return ""
        gutters = self.model.gutters_of(row)
        parts = []
        for level in range(row.depth):
            if level == row.depth - 1 and connector:
                middle = "─"
                if self.model.is_folded(row):
                    middle = "⊞"
                elif self.model.foldable(row):
                    middle = "⊟"
                parts.append(f"{connector}{middle} ")
            elif level in gutters:
                parts.append("│  ")
            else:
                parts.append("   ")
        return "".join(parts)

    def _time(self, row: TreeRow) -> str:
        stamp = self._times.get(row.index)
        if stamp is None:
            stamp = self._times[row.index] = short_time(row.entry.timestamp, self.now)
        return stamp

    # ------------------------------------------------------------------ helpers
    def _page(self) -> int:
        return max(self.scrollable_content_region.height - 1, 1)

    def _move_to(self, position: int, *, center: bool = False) -> None:
        if not self.rows:
            return
        position = max(0, min(position, len(self.rows) - 1))
        old, self.cursor = self.cursor, position
        self.refresh_line(old)
        self.refresh_line(position)
        self._scroll_to_cursor(center=center)
        self._announce()

    def _scroll_to_cursor(self, *, center: bool = False) -> None:
        height = self.scrollable_content_region.height
        if height <= 0:
            return
        top = self.scroll_offset.y
        if center and not top <= self.cursor < top + height:
            self.scroll_to(y=max(self.cursor - height // 2, 0), animate=False, immediate=True)
        elif self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False, immediate=True)
        elif self.cursor >= top + height:
            self.scroll_to(y=self.cursor - height + 1, animate=False, immediate=True)

    def _announce(self) -> None:
        if self.cursor_row is not None:
            self._last_id = self.cursor_row.id
        self.post_message(self.CursorMoved(self.cursor_row, self.cursor, len(self.rows)))
