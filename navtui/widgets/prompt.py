r"""The prompt editor: a multi-line ``TextArea`` where Enter sends.

Enter sends; Alt+Enter, Shift+Enter (where the terminal reports it), ctrl+j and a ``\`` typed before Enter insert a
newline; ctrl+g and ctrl+x ctrl+e ask for the text to be edited in ``$VISUAL``/``$EDITOR`` (``EditorRequested``); Up on the first line and Down on the last walk the
history; ctrl+c first asks the screen's ``interrupter`` to stop what runs (a turn, a command's task), else
clears the prompt, and on an empty prompt asks the app to quit; ctrl+d on an empty prompt quits. What to do
with a prompt is the screen's business (messages go up).

Completion: while a ``/command``, its argument or an ``@path`` is typed, the screen's ``completer`` finds the
candidates and the ``CompletionMenu`` under the prompt lists them. With the list open, ↑↓ move in it, Tab
takes the highlighted candidate, Enter takes it when something was typed or picked (and sends a command that
needs nothing more, or an argument), Esc closes the list. Tab with the list closed completes what is unique.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from rich.style import Style
from textual import events
from textual.geometry import Offset, Region, Size
from textual.message import Message
from textual.reactive import Reactive, reactive
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import TextArea
from textual.widgets.text_area import Edit, EditResult, Location, Selection

from navtui.core.display import display_safe
from navtui.widgets.handlers import CachedHandlers
from navtui.widgets.pasted import PromptPastes, is_long
from navtui.widgets.prompt_lines import Look, PlainRows

if TYPE_CHECKING:
    from navtui.app.completion import Candidate, Completion
    from navtui.app.history import PromptHistory
    from navtui.widgets.completion_menu import CompletionMenu

Completer = Callable[[str, int], Awaitable["Completion | None"]]
CHORD_SECONDS = 1.5  # ctrl+x then ctrl+e within this time: the editor


def recognise_alt_enter() -> None:
    """Alt+Enter arrives as ESC CR; Textual's parser reads that as Enter, and the line would be sent.

    Naming the sequence lets the prompt see ``alt+enter`` (a new line, as in Claude Code and Codex).
    """
    from textual._ansi_sequences import ANSI_SEQUENCES_KEYS

    class _Key(str):
        @property
        def value(self) -> str:
            return str(self)

    keys: dict[str, object] = ANSI_SEQUENCES_KEYS  # type: ignore[assignment]
    keys.setdefault("\x1b\r", (_Key("alt+enter"),))


recognise_alt_enter()


class PromptEditor(CachedHandlers, TextArea):
    class Submitted(Message):
        def __init__(
            self, editor: PromptEditor, text: str, *, new_in_history: bool, pasted: list[str] | None = None
        ) -> None:
            super().__init__()
            self.editor = editor
            self.text = text  # long pastes put back in full
            self.new_in_history = new_in_history  # the screen appends it to the history file
            self.pasted = pasted or []  # those pastes: the transcript shows them collapsed

    class QuitRequested(Message):
        """ctrl+c on an empty prompt (``confirm``: the app asks for a second press) or ctrl+d."""

        def __init__(self, confirm: bool) -> None:
            super().__init__()
            self.confirm = confirm

    class Cleared(Message):
        """ctrl+c cleared the prompt."""

    class EditorRequested(Message):
        """ctrl+g (or ctrl+x ctrl+e): edit the prompt's text in the user's editor."""

    def __init__(self, *, history: PromptHistory | None = None, id: str | None = None) -> None:
        super().__init__(id=id, soft_wrap=True, show_line_numbers=False, tab_behavior="focus", compact=True)
        self.prompt_history = history
        self.completer: Completer | None = None
        self.menu: CompletionMenu | None = None  # the screen's list under the prompt
        self.interrupter: Callable[[], bool] | None = None  # ctrl+c: stops what runs (True) before clearing
        self.queue_taker: Callable[[], str] | None = None  # Up on an empty prompt: the queued messages, taken back
        # The screen's, at every change of the text (the border's mode): ``Changed`` then stops here (it went on
        # to the screen's queue at every key, a message loop's turn and an idle round of the screen's more)
        self.changed: Callable[[], None] | None = None
        # The screen's: paints a repaint of the prompt that is a key's echo from here (``_check_refresh``); False
        # when it is not one (the prompt then tells the screen by a message, as Textual does)
        self.echo: Callable[[Widget], bool] | None = None
        # The app's local echo (app/local_echo.py), told of every key the prompt takes
        self.key_taken: Callable[[events.Key], None] | None = None
        self._typed = False  # the next change comes from the keyboard (not history, not a prefill)
        self._picked = False  # ↑↓ moved in the list since it opened
        self.pastes = PromptPastes()
        self._chord_at = 0.0  # when ctrl+x was pressed (ctrl+x ctrl+e opens the editor)
        # Nothing listens to the cursor's moves: at every key the message went through the prompt's, the screen's
        # and the app's queues.
        self.disable_messages(TextArea.SelectionChanged)

    # ------------------------------------------------------------------ rendering
    _css_for: tuple[Style, object, object] | None = None  # what the theme's CSS fallbacks were last applied for

    _plain: PlainRows | None = None  # the rows' edges as Textual last drew them (widgets/prompt_lines.py)

    def notify_style_update(self) -> None:
        self._css_for = None  # the CSS changed (a theme, a class, focus): apply it to the theme again
        if self._plain is not None:
            self._plain.forget()
        super().notify_style_update()

    _styles_seen: tuple[int, ...] = ()  # each ancestor's styles' version when ``_rich_style_seen`` was worked out
    _rich_style_seen: Style | None = None

    def _rich_style(self) -> Style:
        """``rich_style``, kept while no ancestor's styles change: Textual works it out again through every ancestor
        at each call (~0.04 ms, at every render). It reads only their styles, and a style's change counts up its
        ``_cache_key`` (Textual's own cache key for a node's styles)."""
        seen = tuple([node.styles._cache_key for node in self.ancestors_with_self])
        style = self._rich_style_seen
        if style is None or seen != self._styles_seen:
            style = self._rich_style_seen = self.rich_style
            self._styles_seen = seen
        return style

    def render_lines(self, crop: Region) -> list[Strip]:
        # TextArea applies the CSS to its theme at every render: ~0.5 ms of the ~1 ms the prompt's three rows cost
        # each key's echo (measured). What it reads changes with the styles (``notify_style_update``), the
        # background beneath (``rich_style``), the app's theme or the editor's, so it is applied again only then.
        # A plain row (prose typed at the cursor: nearly every key's) is then built by navtui between the edges
        # Textual last drew (widgets/prompt_lines.py); any other row goes through Textual, which teaches the edges.
        rich_style = self._rich_style()
        key = (rich_style, self.app.current_theme, self._theme)
        plain = self._plain
        if plain is None:
            plain = self._plain = PlainRows()
        size = self.region.size  # the rows Textual's styles cache draws: border and padding included
        look = Look(key, size.width, size.height, self.has_focus)
        theme = self._theme
        base = theme.base_style if theme is not None and theme.base_style is not None else rich_style
        if key == self._css_for:
            if crop.x == 0 and crop.width == size.width:
                strips = plain.strips(self, look, base, crop.y, crop.bottom)
                if strips is not None:
                    return strips
            strips = Widget.render_lines(self, crop)
        else:
            self._css_for = key
            strips = super().render_lines(crop)
            base = theme.base_style if theme is not None and theme.base_style is not None else rich_style
        plain.learn(self, look, base, crop.y, crop.bottom)
        return strips

    # ------------------------------------------------------------------ repainting what changed
    # TextArea repaints itself whole at every move of the cursor (``selection`` is a repainting reactive), and so
    # at every key: its border rows too, rendered again and composited with the line that changed. Here a key
    # repaints the rows it changed: the edited line, the cursor's old and new lines, a bracket's match. An edit
    # across lines, one that changes the prompt's height or wrapping, a selection, undo, redo and new text
    # repaint the whole prompt, as before.
    selection: Reactive[Selection] = reactive(Selection(), init=False, always_update=True, repaint=False)
    _in_edit = False
    _edit_rows: set[int] | None = None  # inside ``edit``: the rows it repaints (None: an edit across lines)
    _bracket_at: Location | None = None  # the bracket matched to the cursor's when the selection last changed

    def watch_selection(self, previous: Selection, selection: Selection) -> None:
        if not self.is_mounted:
            return
        if self._in_edit and self._has_cursor:  # TextArea's watcher (it runs first) has just placed the cursor
            self._edit_cursor = (selection.end, self._cursor_offset)
        bracket, self._bracket_at = self._bracket_at, self._matching_bracket_location
        if previous.start != previous.end or selection.start != selection.end:
            self.refresh()  # a selection's highlight may span lines
            return
        rows = {previous.end[0], selection.end[0]}
        rows.update(location[0] for location in (bracket, self._bracket_at) if location is not None)
        if self._edit_rows is not None:
            self._edit_rows |= rows  # repainted once the edit is done
        elif not self._in_edit:  # (an edit across lines repaints the whole prompt)
            self._refresh_rows(rows)

    def _refresh_rows(self, rows: set[int], cursor: tuple[Location, tuple[int, int]] | None = None) -> None:
        """Repaint the rows these document lines wrap to (the whole prompt if one is gone: new text). ``cursor``:
        where the cursor is drawn, just worked out (an unwrapped cursor line's row is the cursor's)."""
        wrapped = self.wrapped_document
        if max(rows) >= self.document.line_count:
            self.refresh()
            return
        for row in rows:
            sections = len(wrapped.get_offsets(row)) + 1
            if cursor is not None and sections == 1 and cursor[0][0] == row:
                y = cursor[1][1]
            else:
                y = wrapped.location_to_offset((row, 0)).y
            self.refresh_lines(y, sections)

    def edit(self, edit: Edit) -> EditResult:
        edit.text = _inert(edit.text)  # typed, pasted, completed: every insertion passes here
        within_line = edit.top[0] == edit.bottom[0] and "\n" not in edit.text
        height = self.wrapped_document.height
        self._in_edit = True
        self._edit_rows = {edit.top[0]} if within_line else None
        self._edit_cursor = None
        try:
            result = super().edit(edit)
        finally:
            rows, self._edit_rows, self._in_edit = self._edit_rows, None, False
            cursor, self._edit_cursor = self._edit_cursor, None
        if rows is not None and self.wrapped_document.height == height:
            self._refresh_rows(rows, cursor if cursor is not None and cursor[0] == self.cursor_location else None)
        else:
            self.refresh()
        return result

    # An edit places the cursor once: TextArea worked out where it is drawn three times a key (the selection's
    # watcher, the cursor's remembered column, the repaint of its row), and looked at the scrollbars again though
    # the text's height had not changed.
    _edit_cursor: tuple[Location, tuple[int, int]] | None = (
        None  # inside ``edit``: the cursor's location and where drawn
    )

    def record_cursor_width(self) -> None:
        cursor = self._edit_cursor
        if cursor is not None and cursor[0] == self.cursor_location:
            self.navigator.last_x_offset = cursor[1][0]  # (TextArea: the same offset, worked out again)
            return
        super().record_cursor_width()

    def _refresh_size(self) -> None:
        if self._in_edit and self.soft_wrap and self.virtual_size == Size(0, self.wrapped_document.height):
            return  # the same virtual size as before the edit: the same scrollbars
        super()._refresh_size()

    def _check_refresh(self) -> None:
        # A repaint of the prompt alone (a key's edit or cursor move): the screen paints it now if it is a key's echo.
        if (
            self._repaint_required
            and self.echo is not None
            and not (self._layout_required or self._scroll_required or self._refresh_styles_required)
            and not self._recompose_required
            and self.display
            and self._parent is not None
            and not self._closing
        ):
            self._repaint_required = False
            if self.echo(self):
                return
            self._repaint_required = True
        super()._check_refresh()

    def scroll_cursor_visible(self, center: bool = False, animate: bool = False) -> Offset:
        # TextArea scrolls the cursor into view at every move of the cursor (~0.1 ms of each key's path). With the
        # whole text in view and nothing scrolled, the prompt's usual state (it grows with its text), there is
        # nowhere to scroll to: only where the cursor is drawn is worked out again, as TextArea does first.
        if (
            not center
            and self._has_cursor
            and self.soft_wrap
            and self.scroll_offset == (0, 0)
            and self.wrapped_document.height <= self.scrollable_content_region.height
        ):
            self._recompute_cursor_offset()
            return Offset(0, 0)
        return super().scroll_cursor_visible(center, animate)

    def undo(self) -> None:
        super().undo()
        self.refresh()  # a batch of edits, anywhere in the text

    def redo(self) -> None:
        super().redo()
        self.refresh()

    def load_text(self, text: str) -> None:
        super().load_text(_inert(text))  # history, a message taken back from the tree, $EDITOR's file
        self.refresh()

    @property
    def _menu_open(self) -> bool:
        return self.menu is not None and self.menu.open

    async def _on_key(self, event: events.Key) -> None:
        if self.key_taken is not None:
            self.key_taken(event)
        key = event.key
        handled = True
        chord, self._chord_at = time.monotonic() - self._chord_at < CHORD_SECONDS, 0.0
        if self._menu_open and key in ("up", "down", "tab", "enter", "escape"):
            await self._menu_key(key)
        elif key == "enter" and self._continued():
            self.replace("\n", _before(self.cursor_location), self.cursor_location)  # "\" + Enter: a new line
        elif key == "enter":
            self._submit()
        elif key in ("shift+enter", "ctrl+j", "alt+enter"):
            self.insert("\n")
        elif key == "ctrl+g" or (key == "ctrl+e" and chord):
            self.post_message(self.EditorRequested())
        elif key == "ctrl+x" and not self.selected_text:
            self._chord_at = time.monotonic()  # (with a selection ctrl+x cuts, as TextArea does)
        elif key == "up" and not self.text and self.queue_taker is not None and (queued := self.queue_taker()):
            self._recall(queued)  # as in Claude Code: a message queued while the agent works comes back to edit
        elif key == "up" and self.prompt_history and self._cursor_row() == 0 and not self.selected_text:
            self._recall(self.prompt_history.previous(self.text))
        elif (
            key == "down"
            and self.prompt_history
            and self._cursor_row() == self.wrapped_document.height - 1
            and not self.selected_text
        ):
            self._recall(self.prompt_history.next())
        elif key == "tab":
            await self._complete()
        elif key == "ctrl+c":
            if self.interrupter is not None and self.interrupter():
                pass  # a running turn stops first, as in Claude Code and Codex; the prompt keeps its text
            elif self.text:
                cleared, _pasted = self.pastes.expand(self.text)  # a collapsed paste's text, not its placeholder
                self.clear()
                self.pastes.clear()
                if self.prompt_history:
                    # Up brings it back (this session only: it was not sent): a draft cleared by a ctrl+c meant
                    # for a turn that had just ended was gone.
                    self.prompt_history.add(cleared)
                self.post_message(self.Cleared())
            else:
                self.post_message(self.QuitRequested(confirm=True))
        elif key == "ctrl+o" and self.pastes.texts and self.expand_pastes():
            pass  # with a collapsed paste in the prompt, ctrl+o opens it here (else: the transcript's details)
        elif key == "ctrl+d" and not self.text:
            self.post_message(self.QuitRequested(confirm=False))
        else:
            self._typed = event.is_printable or key in ("backspace", "delete")
            handled = not event.is_printable and await self._run_own_binding(key)
        if handled:
            event.stop()
            event.prevent_default()  # TextArea's own handler (and bindings) must not run too

    async def _run_own_binding(self, key: str) -> bool:
        """Run the prompt's own binding for ``key`` (backspace, delete, the arrows, undo ...) here; False if none.

        Textual looks a focused widget's non-priority bindings up once the key has bubbled to the app, the
        prompt's own first: two more message hops, and the whole binding chain built again, for every backspace
        (~0.8 ms of the UI loop before its echo). The same binding runs here, as Textual would run it. A keymap
        (``App.set_keymap``) renames keys along the whole chain: then Textual's own look-up decides."""
        if self.app._keymap:
            return False
        for binding in self._bindings.key_to_bindings.get(key, ()):
            if not binding.priority and await self.app.run_action(binding.action, self):
                return True
        return False

    def _cursor_row(self) -> int:
        """The row the cursor is on as drawn: a long line wrapped over rows is several (Up and Down move between
        them before they reach the history)."""
        return self.wrapped_document.location_to_offset(self.cursor_location).y

    def _continued(self) -> bool:
        """A ``\\`` just before the cursor at the end of its line: the user asks for a new line (as in Claude Code)."""
        row, column = self.cursor_location
        line = self.document.get_line(row)
        return column == len(line) and line.endswith("\\") and not self.selected_text

    # ------------------------------------------------------------------ completion
    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        if event.text_area is not self:
            return
        if self.changed is not None:
            event.stop()
            self.changed()
        if self._typed:
            self._typed = False
            line = self.document.get_line(self.cursor_location[0])
            if self._menu_open or line.startswith("/") or "@" in line:  # plain prose costs nothing per key
                self.run_worker(self._refresh_menu(), group="completion", exclusive=True)
        elif self._menu_open and self.menu is not None:
            self.menu.hide()  # history or a prefill replaced the text

    async def _refresh_menu(self) -> None:
        if self.menu is None or self.completer is None:
            return
        row, column = self.cursor_location
        completion = await self.completer(self.document.get_line(row), column)
        self._picked = False
        if completion is not None and completion.offers_more:
            self.menu.show(completion)
        else:
            self.menu.hide()

    def _menu_stale(self) -> bool:
        """Keys typed since the list was made (fast typing, a paste): it completes less than is there now."""
        completion = self.menu.completion if self.menu is not None else None
        row, column = self.cursor_location
        line = self.document.get_line(row)
        return (
            completion is None
            or column != completion.end
            or line[completion.start : completion.end] != completion.typed
        )

    async def _menu_key(self, key: str) -> None:
        menu = self.menu
        assert menu is not None
        if key in ("tab", "enter") and self._menu_stale():
            await self._refresh_menu()
            if not menu.open:  # nothing left to offer for what is typed now
                if key == "enter":
                    self._submit()
                else:
                    await self._complete()
                return
        assert menu.completion is not None
        completion, candidate = menu.completion, menu.candidate
        if key in ("up", "down"):
            menu.move(-1 if key == "up" else 1)
            self._picked = True
        elif key == "escape" or candidate is None:
            menu.hide()
        elif key == "tab":
            self.take(candidate, completion)
        elif self._picked or not _as_typed(completion, candidate):
            self.take(candidate, completion, send=candidate.submits)
        else:
            menu.hide()
            self._submit()

    def take(self, candidate: Candidate, completion: Completion | None = None, *, send: bool = False) -> None:
        """Put ``candidate`` in place of the token it completes (the list's, unless ``completion`` is given)."""
        completion = completion or (self.menu.completion if self.menu is not None else None)
        if completion is None:
            return
        row = self.cursor_location[0]
        text = candidate.value + (" " if candidate.ends_token and not send else "")
        if self.menu is not None:
            self.menu.hide()
        self._typed = not send  # what follows may have candidates of its own: an argument, a folder's files
        self.replace(text, (row, completion.start), (row, completion.end))
        if send:
            self._submit()

    def _submit(self) -> None:
        text, pasted = self.pastes.expand(self.text)
        if not text.strip():
            return
        new = self.prompt_history.add(text) if self.prompt_history else False
        self.post_message(self.Submitted(self, text, new_in_history=new, pasted=pasted))
        self.clear()
        self.pastes.clear()

    # ------------------------------------------------------------------ long pastes
    async def _on_paste(self, event: events.Paste) -> None:
        # Terminals (and tmux) send a pasted newline as CR.
        text = event.text.replace("\r\n", "\n").replace("\r", "\n")
        if self.read_only or not is_long(text):
            return  # TextArea's own handler inserts it (Textual calls each class's handler in turn)
        event.stop()
        event.prevent_default()
        self.insert(self.pastes.placeholder(text))

    def expand_pastes(self) -> bool:
        """Show the collapsed pastes' text in the prompt itself (ctrl+o). False when there is none."""
        text, pasted = self.pastes.expand(self.text)
        if not pasted:
            return False
        self.pastes.clear()
        self.load_text(text)
        self.move_cursor(self.document.end)
        return True

    def _recall(self, text: str | None) -> None:
        if text is None:
            return
        self._typed = False
        self.load_text(text)
        self.move_cursor(self.document.end)

    async def _complete(self) -> None:
        """Tab with the list closed: take the only candidate, or fill in what they share and list them."""
        if self.completer is None:
            return
        row, column = self.cursor_location
        completion = await self.completer(self.document.get_line(row), column)
        if completion is None or not completion.candidates:
            return
        if len(completion.candidates) == 1:
            self.take(completion.candidates[0], completion)
            return
        common = completion.common
        if len(common) > len(completion.typed):
            self.replace(common, (row, completion.start), (row, completion.end))
            completion.end, completion.typed = completion.start + len(common), common
        if self.menu is not None:
            self._picked = False
            self.menu.show(completion)


def _inert(text: str) -> str:
    """``text`` as the prompt may hold it: TextArea draws its text as it is, so a control character (an ESC in a
    file name @-completed from a repository, in a paste) reached the terminal. They are made visible
    (``display_safe``); a line break sent as CR (terminals paste newlines so) stays a line break."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return display_safe(text)


def _before(location: tuple[int, int]) -> tuple[int, int]:
    return location[0], location[1] - 1


def _as_typed(completion: Completion, candidate: Candidate) -> bool:
    """Enter sends the prompt as it is (the list only offered more): the highlighted candidate is what was
    typed, or no argument was typed at all ("/model" then Enter shows the model, it does not switch)."""
    return candidate.value == completion.typed or (completion.kind == "argument" and not completion.typed)
