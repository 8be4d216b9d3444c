"""The session tree screen (/tree, Esc Esc, /branch): pick an entry with the keyboard.

The screen dismisses with the chosen entry's id (``None`` on Esc); ``navtui.app.commands.tree`` does the rest.
Labels are written from here (shift+L) as soon as they are entered. Everything else is the ``TreeView``'s.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.reactive import var
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Input, Label, Static

from navtui.app.tree_actions import effective_leaf, set_label
from navtui.core.display import display_safe
from navtui.core.errors import NavtuiError
from navtui.session.manager import SessionManager
from navtui.styles import stylesheet
from navtui.widgets.tree_rows import FILTER_TITLES, FilterMode, TreeModel, TreeRow
from navtui.widgets.tree_view import TreeView

TreeMode = Literal["navigate", "branch"]

KEYS: tuple[tuple[str, str], ...] = (
    ("↑↓", "move"),
    ("PgUp/PgDn", "page"),
    ("Home/End", "first/last"),
    ("←→", "fold / branch"),
    ("Enter", "go"),
    ("Esc", "close"),
    ("type", "search"),
    ("⇧L", "label"),
    ("^O", "filter"),
)


class _Line(Widget):
    """One line of text that changes on every key: a repaint, never a layout pass (``Static.update`` does one)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.text = Text()

    def set(self, text: Text) -> None:
        self.text = text
        self.refresh()

    def render(self) -> Text:
        return self.text


class TreeScreen(ModalScreen[str | None]):
    """The whole session as an indented tree; dismisses with the selected entry id."""

    CSS_PATH = [stylesheet("pickers"), stylesheet("tree")]
    editing: var[bool] = var(False, toggle_class="-editing")  # the label row is open

    BINDINGS = [
        Binding("enter", "choose", "Go to entry", show=False),
        Binding("escape", "close", "Close", show=False),
        Binding("ctrl+o", "cycle_filter", "Filter mode", show=False),
        Binding("L,shift+l", "edit_label", "Label", show=False),
    ]

    def __init__(
        self,
        session: SessionManager,
        *,
        mode: TreeMode = "navigate",
        filter_mode: FilterMode | None = None,
        select: str | None = None,
        now: datetime | None = None,
    ) -> None:
        super().__init__()
        self.session = session
        self.mode = mode
        leaf = effective_leaf(session)
        active = set(session.branch_ids())
        self.model = TreeModel(session.get_tree(), leaf, active_ids={i for i in active if i})
        self.model.filter_mode = filter_mode or ("user-only" if mode == "branch" else "default")
        self._now = now
        self._select = select
        self._editing: TreeRow | None = None
        self._position = (0, 0)

    def compose(self) -> ComposeResult:
        with Vertical(id="tree-box", classes="picker-box") as box:
            box.border_title = "Branch from a message" if self.mode == "branch" else "Session tree"
            with Horizontal(id="tree-top", classes="picker-search"):
                yield _Line(id="tree-search")
                yield _Line(id="tree-status")
            yield TreeView(self.model, now=self._now, id="tree-view")
            with Horizontal(id="tree-label-row", classes="picker-edit"):
                yield Label("Label (empty clears):")
                yield Input(id="tree-label-input", select_on_focus=True)
            yield Static(self._keys_text(), id="tree-keys", classes="picker-keys")

    def on_mount(self) -> None:
        self._update_search()
        if self._select is not None:  # reopened after a cancelled dialog: back on the entry that was picked
            self.model.unfold_to(self._select)
            self.view.reload(keep=self._select)
        self.view.focus()

    @property
    def view(self) -> TreeView:
        return self.query_one("#tree-view", TreeView)

    # ------------------------------------------------------------------ typing filters
    def on_key(self, event: events.Key) -> None:
        # Backspace is taken here with the letters, not by a binding: Textual looks a binding up once the key has
        # bubbled on to the app, after the letters typed behind it were added ("ab" ⌫ "c" typed quickly gave "ab").
        if self._editing is not None:
            return
        if event.key == "backspace":
            self.action_backspace()
        elif not event.is_printable or not event.character or event.character == "L":
            return
        else:
            self._set_query(self.model.query + event.character)
        event.stop()
        event.prevent_default()

    def action_backspace(self) -> None:
        if self.model.query:
            self._set_query(self.model.query[:-1])

    def _set_query(self, query: str) -> None:
        self.model.query = query
        self.view.reload()
        self._update_search()

    # ------------------------------------------------------------------ actions
    def action_choose(self) -> None:
        row = self.view.cursor_row
        if row is None:
            return
        if self.mode == "branch" and row.kind != "user":
            self.app.bell()
            self.notify("/branch starts from one of your messages (❯)", severity="warning")
            return
        self.dismiss(row.id)

    def on_tree_view_activated(self, event: TreeView.Activated) -> None:
        self.action_choose()

    def action_close(self) -> None:
        if self._editing is not None:
            self._stop_editing()
        elif self.model.query:  # Esc clears the search first
            self._set_query("")
        else:
            self.dismiss(None)

    def action_cycle_filter(self) -> None:
        self.model.cycle_filter()
        self.view.reload()
        self._update_search()

    def action_edit_label(self) -> None:
        row = self.view.cursor_row
        if row is None or self._editing is not None:
            return
        self._editing = row
        self.editing = True
        field = self.query_one("#tree-label-input", Input)
        field.value = row.label or ""
        field.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        row = self._editing
        if row is None:
            return
        try:
            label = set_label(self.session, row.id, event.value)
        except NavtuiError as exc:
            self.notify(display_safe(exc.message), title="Label not saved", severity="error", markup=False)
        else:
            self.model.set_label(row.id, label)
            self.view.reload(keep=row.id)  # labeled-only mode may gain or lose the row
        self._stop_editing()

    def _stop_editing(self) -> None:
        self._editing = None
        self.editing = False
        self.view.focus()

    # ------------------------------------------------------------------ status
    def on_tree_view_cursor_moved(self, event: TreeView.CursorMoved) -> None:
        self._position = (event.position + 1 if event.count else 0, event.count)
        self._update_status()

    def _update_status(self) -> None:
        # A line of its own, not the border: a border change repaints the whole box on every key.
        position, count = self._position
        status = f"{position}/{count} · filter: {FILTER_TITLES[self.model.filter_mode]}"
        self.query_one("#tree-status", _Line).set(Text(status, justify="right"))

    def _update_search(self) -> None:
        search = Text()
        if self.model.query:
            search.append("Search: ")
            search.append(self.model.query, style="bold")
            search.append("▏")
        else:
            search.append("Type to search", style="dim")
        self.query_one("#tree-search", _Line).set(search)
        self._update_status()

    @staticmethod
    def _keys_text() -> Text:
        text = Text()
        for position, (key, what) in enumerate(KEYS):
            if position:
                text.append("  ")
            text.append(key, style="bold")
            text.append(f" {what}")
        return text
