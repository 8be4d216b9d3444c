"""The session picker (/resume, ``navtui -r``): this directory's sessions, or every directory's (ctrl+a).

Dismisses with the chosen file's path (``None`` on Esc). Typing filters; ctrl+r renames and ctrl+d deletes
(after a y/n confirmation) the highlighted session. The list is read in a thread: summarising a few hundred
files must not freeze the screen.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, datetime
from functools import partial
from pathlib import Path

from rich.text import Text
from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.reactive import var
from textual.screen import ModalScreen
from textual.widgets import DataTable, Input, Label, Static

from navtui.core.display import display_safe
from navtui.core.errors import NavtuiError
from navtui.session.listing import SessionSummary, list_sessions, unreadable_folders
from navtui.session.manager import SessionManager
from navtui.styles import stylesheet

NAME_CHARS = 56
MIN_NAME = 16  # the narrowest the Session column gets (the model and the times show whole first)
MIN_DIRECTORY = 12
KEYS = "↑↓ move  Enter open  type filter  ^A all directories  ^R rename  ^D delete  Esc close"


def relative_time(moment: datetime, now: datetime) -> str:
    seconds = int((now - moment).total_seconds())
    if seconds < 60:
        return "just now"
    for size, unit in ((86400 * 365, "y"), (86400 * 30, "mo"), (86400 * 7, "w"), (86400, "d"), (3600, "h"), (60, "m")):
        if seconds >= size:
            return f"{seconds // size}{unit} ago"
    return "just now"


class SessionPickerScreen(ModalScreen[Path | None]):
    CSS_PATH = [stylesheet("pickers"), stylesheet("sessions")]

    editing: var[bool] = var(False, toggle_class="-editing")  # the rename row is open
    confirming: var[bool] = var(False, toggle_class="-confirming")  # asking y/n before a delete

    BINDINGS = [
        Binding("escape", "close", "Close", show=False),
        Binding("ctrl+a", "toggle_all", "All directories", show=False),
        Binding("ctrl+r", "rename", "Rename", show=False),
        Binding("ctrl+d", "delete", "Delete", show=False),
    ]

    def __init__(
        self,
        cwd: Path,
        *,
        current: SessionManager | None = None,
        all_dirs: bool = False,
        now: datetime | None = None,
        root: Path | None = None,
        query: str = "",
    ) -> None:
        super().__init__()
        self.cwd = Path(cwd).resolve()
        self.current = current
        self.all_dirs = all_dirs
        self.root = root
        self._now = now
        self._warned: set[str] = set()
        self.query_text = query.strip()  # the filter (/resume WORDS opens with them)
        self.sessions: list[SessionSummary] = []
        self.shown: list[SessionSummary] = []
        self._marked: set[Path] = set()  # the open session's path, as listed
        self._deleting: SessionSummary | None = None
        self._renaming: SessionSummary | None = None
        self._filled_width = 0  # the table's width when the columns were sized
        # Each session's row, made once a load (a name, labels and model made safe and styled): typing into the
        # filter only chooses which rows the table holds, under columns sized for every row (they do not jump).
        self._rows: dict[Path, list[Text]] = {}
        self._columns: tuple[int, bool] | None = None  # (width, all directories) the columns were made for

    def compose(self) -> ComposeResult:
        with Vertical(id="picker-box", classes="picker-box"):
            yield Static(id="picker-search", classes="picker-search")
            yield DataTable(id="picker-table", cursor_type="row", zebra_stripes=False)
            with Horizontal(id="picker-rename", classes="picker-edit"):
                yield Label("New name:")
                yield Input(id="picker-rename-input", select_on_focus=True)
            yield Static(KEYS, id="picker-keys", classes="picker-keys")

    def on_mount(self) -> None:
        self._update_title()
        self._update_search()
        self.table.focus()
        self.load()

    @property
    def table(self) -> DataTable[Text]:
        return self.query_one("#picker-table", DataTable)

    # ------------------------------------------------------------------ loading and showing
    @work(thread=True, exclusive=True, group="session-list")
    def load(self, keep: Path | None = None) -> None:
        scope = None if self.all_dirs else self.cwd
        sessions = list_sessions(scope, root=self.root)
        # A folder that cannot be listed: its sessions are left out, and the list alone said nothing of it.
        notes = unreadable_folders(scope, self.root)
        # The open session's row, found here once: resolving every row's path at each key typed into the filter
        # was three lstat calls a row, the most of a key's time with 500 sessions.
        current = self.current.path.resolve() if self.current is not None else None
        marked = {s.path for s in sessions if current is not None and s.path.resolve() == current}
        self.app.call_from_thread(self._loaded, sessions, marked, keep, notes)

    def _loaded(
        self, sessions: list[SessionSummary], marked: set[Path], keep: Path | None, notes: Sequence[str] = ()
    ) -> None:
        for note in notes:
            if note not in self._warned:  # once a picker: a reload after a delete says it again otherwise
                self._warned.add(note)
                self.notify(display_safe(note), title="Sessions left out", severity="warning", markup=False, timeout=10)
        self.sessions = sessions
        self._marked = marked
        self._rows = {}
        self._columns = None
        self._fill(keep)

    def _fill(self, keep: Path | None = None) -> None:
        table = self.table
        if keep is None and self.shown and table.row_count:
            keep = self.shown[min(table.cursor_row, len(self.shown) - 1)].path
        tokens = self.query_text.lower().split()
        shown = [s for s in self.sessions if all(token in _search_text(s) for token in tokens)]
        self.shown = sorted(shown, key=lambda s: _rank(s, tokens)) if tokens else shown  # newest first in a rank
        if not self._rows:
            self._rows = self._make_rows()
        if self._columns != (table.size.width, self.all_dirs):
            headers: list[Text] = [Text("Session"), Text("Modified"), Text("Entries", justify="right"), Text("Model")]
            keys = ["name", "modified", "entries", "model"]
            if self.all_dirs:
                headers.append(Text("Directory"))
                keys.append("cwd")
            widths = self._widths(headers, list(self._rows.values()))
            table.clear(columns=True)
            for header, key, width in zip(headers, keys, widths, strict=True):
                table.add_column(header, key=key, width=width)
            self._columns = (table.size.width, self.all_dirs)
        else:
            table.clear()
        for summary in self.shown:
            table.add_row(*self._rows[summary.path], key=str(summary.path))
        self._filled_width = table.size.width
        if keep is not None:
            for position, summary in enumerate(self.shown):
                if summary.path == keep:
                    table.move_cursor(row=position, animate=False)
                    break
        self._update_title()

    def _make_rows(self) -> dict[Path, list[Text]]:
        now = self._now or datetime.now(UTC)
        rows: dict[Path, list[Text]] = {}
        for summary in self.sessions:
            name = Text(no_wrap=True, overflow="ellipsis")
            name.append("● " if summary.path in self._marked else "  ", style="bold")
            title = summary.name or "(empty)"
            title = title if len(title) <= NAME_CHARS else title[: NAME_CHARS - 1] + "…"
            # Names, labels and first messages come from session files: escapes shown, never interpreted.
            name.append(display_safe(title), style="bold" if summary.named else "")
            if summary.labels:
                labels = " ".join(f"[{label}]" for label in summary.labels[:3])
                name.append("  " + display_safe(labels), style="italic")
            if summary.origin != "navtui":  # where it lives: pi's or omp's own folder (resumed there)
                name.append(f"  ({summary.origin})", style="dim")
            cells = [
                name,
                Text(relative_time(summary.modified, now)),
                Text(str(summary.entry_count), justify="right"),
                Text(display_safe(summary.model or ""), no_wrap=True),
            ]
            if self.all_dirs:
                cells.append(Text(display_safe(_home_relative(summary.cwd)), no_wrap=True, overflow="ellipsis"))
            rows[summary.path] = cells
        return rows

    def _widths(self, headers: list[Text], rows: list[list[Text]]) -> list[int | None]:
        """Column widths that fit the table: the time, the count and the model whole; the name (and the directory,
        with ctrl+a) give way, cut with an ellipsis. ``None``: as wide as its cells."""
        table = self.table
        natural = [max([header.cell_len, *(cells[n].cell_len for cells in rows)]) for n, header in enumerate(headers)]
        room = table.size.width - 2 * table.cell_padding * len(headers)
        if len(rows) > table.size.height - 1:  # (the header row) a scrollbar takes its column
            room -= table.styles.scrollbar_size_vertical
        room -= sum(natural[1:4])
        if room >= natural[0] + sum(natural[4:]):
            return [None] * len(headers)  # everything fits as it is
        if len(headers) == 4:
            return [max(MIN_NAME, room), None, None, None]
        directory = min(natural[4], max(MIN_DIRECTORY, room * 2 // 5))
        return [max(MIN_NAME, room - directory), None, None, None, directory]

    def on_resize(self, event: events.Resize) -> None:
        if self.sessions and self.table.size.width != self._filled_width:
            self._fill()  # the columns' widths follow the terminal's

    def _update_title(self) -> None:
        box = self.query_one("#picker-box")
        where = "all directories" if self.all_dirs else _home_relative(str(self.cwd))
        box.border_title = Text(display_safe(f"Resume a session · {where}"))  # Text: a title string is markup
        box.border_subtitle = f"{len(self.shown)} of {len(self.sessions)}"

    def _update_search(self) -> None:
        text = Text()
        if self.query_text:
            text.append("Filter: ")
            text.append(self.query_text, style="bold")
            text.append("▏")
        else:
            text.append("Type to filter", style="dim")
        self.query_one("#picker-search", Static).update(text)

    @property
    def highlighted(self) -> SessionSummary | None:
        table = self.table
        if not self.shown or not table.row_count:
            return None
        return self.shown[min(table.cursor_row, len(self.shown) - 1)]

    # ------------------------------------------------------------------ keys
    def on_key(self, event: events.Key) -> None:
        if self._deleting is not None:
            event.stop()
            event.prevent_default()
            self._finish_delete(event.key == "y")
            return
        if self._renaming is not None:
            return
        if event.key == "backspace":  # here with the letters, in the order typed (as in the tree's search)
            self.action_backspace()
        elif not event.is_printable or not event.character:
            return
        else:
            self.query_text += event.character
            self._update_search()
            self._fill_best()
        event.stop()
        event.prevent_default()

    def action_backspace(self) -> None:
        if self.query_text:
            self.query_text = self.query_text[:-1]
            self._update_search()
            self._fill_best()

    def _fill_best(self) -> None:
        """The filter changed: the list again, the best match (listed first) highlighted."""
        self._fill()
        if self.shown:
            self.table.move_cursor(row=0, animate=False)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        summary = self.highlighted
        if summary is not None:
            self.dismiss(summary.path)

    def action_close(self) -> None:
        if self._renaming is not None:
            self._stop_rename()
        elif self.query_text:
            self.query_text = ""
            self._update_search()
            self._fill()
        else:
            self.dismiss(None)

    def action_toggle_all(self) -> None:
        self.all_dirs = not self.all_dirs
        self.load(self.highlighted.path if self.highlighted else None)

    # ------------------------------------------------------------------ rename
    def action_rename(self) -> None:
        summary = self.highlighted
        if summary is None or self._renaming is not None:
            return
        self._renaming = summary
        self.editing = True
        field = self.query_one("#picker-rename-input", Input)
        field.value = summary.name if summary.named else ""
        field.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        summary = self._renaming
        self._stop_rename()
        if summary is None:
            return
        try:
            self._rename(summary.path, event.value)
        except NavtuiError as exc:
            self.notify(display_safe(exc.message), title="Not renamed", severity="error", markup=False)
            return
        self.load(summary.path)

    def _rename(self, path: Path, name: str) -> None:
        if self.current is not None and self.current.path.resolve() == path.resolve():
            self.current.set_name(name)  # the open session: through its own writer
            return
        with SessionManager.open(path) as session:
            session.set_name(name)
            session.sync()

    def _stop_rename(self) -> None:
        self._renaming = None
        self.editing = False
        self.table.focus()

    # ------------------------------------------------------------------ delete
    def action_delete(self) -> None:
        summary = self.highlighted
        if summary is None:
            return
        if self.current is not None and self.current.path.resolve() == summary.path.resolve():
            self.notify("This is the session in use; it cannot be deleted from here.", severity="warning")
            return
        self._deleting = summary
        keys = self.query_one("#picker-keys", Static)
        self.confirming = True
        name = display_safe(summary.name or summary.id)
        keys.update(Text(f"Delete “{name}”? y deletes the file · any other key keeps it"))

    def _finish_delete(self, confirmed: bool) -> None:
        summary, self._deleting = self._deleting, None
        keys = self.query_one("#picker-keys", Static)
        self.confirming = False
        keys.update(KEYS)
        if summary is None or not confirmed:
            return
        try:
            summary.path.unlink()
        except OSError as exc:
            self.notify(
                display_safe(f"Could not delete {summary.path}: {exc.strerror or exc}"), severity="error", markup=False
            )
            return
        self.sessions = [s for s in self.sessions if s.path != summary.path]
        self._fill()
        self.notify(display_safe(f"Deleted {summary.path.name}"), markup=False)
        if summary.cwd:  # its workspace checkpoints go with it
            self.run_worker(partial(_prune_checkpoints, Path(summary.cwd)), thread=True, group="prune")


def _prune_checkpoints(workspace: Path) -> None:
    from navtui.checkpoints.service import prune_workspace
    from navtui.core.errors import NavtuiError

    try:
        prune_workspace(workspace)
    except (NavtuiError, OSError):
        pass  # the next start prunes again


def _search_text(summary: SessionSummary) -> str:
    return " ".join([summary.name, summary.id, summary.model or "", summary.cwd, *summary.labels]).lower()


def _rank(summary: SessionSummary, tokens: list[str]) -> int:
    """Where a session that holds every word of a filter goes: its name (or a label) with the words as typed,
    whole (0), or as typed (1), or each of them (2), before one that holds them only in its id, model or folder
    (3): "task 7" lists "task 7: ..." first, not the newest session whose id holds a 7."""
    name = " ".join([summary.name, *summary.labels]).lower()
    phrase = " ".join(tokens)
    if re.search(rf"(?<!\w){re.escape(phrase)}(?!\w)", name):
        return 0
    if phrase in name:
        return 1
    return 2 if all(token in name for token in tokens) else 3


def _home_relative(path: str) -> str:
    home = str(Path.home())
    return "~" + path[len(home) :] if path == home or path.startswith(home + "/") else path
