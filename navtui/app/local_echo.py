"""A typed key shown before the UI loop gets to it: a predictive local echo (as mosh does), for the prompt's plainest
edits only.

A key waits for the UI loop: Textual's queue and tasks, the prompt's edit, the frame around the prompt's row (~2 ms
of an idle key on the loop, and whatever stream frame or Markdown flush it lands behind). Yet for most keys the
outcome is certain before the loop sees them: a printable character typed at the end of a plain line of the prompt
is drawn in the cell under the cursor, and the cursor moves one cell right. So the driver's input thread, the moment
it reads such a key (``KeyNoticingDriver.process_message``), writes that echo itself (``read``), through the
``FrameWriter`` (its lock keeps the echo out of a frame's bytes); the loop then handles the key as before and its
frame confirms the echo.

What the loop publishes after each frame it writes (``EchoState``, one immutable object swapped under the lock) says
whether and where a key may be echoed: the main screen current, the prompt focused, nothing selected, no completion
list, the cursor at the end of a line of printable ASCII that does not wrap, no bracket matched, no placeholder,
the cells right of the cursor blank to the prompt's edge, and the looks of typed text, of the cursor's cell and of
the blanks, worked out as the prompt draws them and checked against the cells the terminal holds
(``ScreenImage``). Anything else (or any doubt) publishes nothing, and keys are echoed by the loop as before.
Keys echoed: printable ASCII but those something reacts to (``/`` and ``@``: completion; ``!`` and ``$`` on a blank
line: they may become the text's first character, the prompt's mode, shown on its border; any key a priority binding
takes), brackets too (at the end of the line the cursor's cell holds no bracket to match), and backspace at the
line's end (down to an empty prompt when the line is its only one, no placeholder shows and the character erased
is not the mode's ``!`` or ``$``; a line left blank among others may give the prompt its mode). Keys read one after
another chain (the next at the next cell), until the loop has handled them all and published again; any other input
read meanwhile (a key not echoed, a paste, a click) ends the chain.

Keeping the terminal and the image true:

* every input event the driver reads is numbered (``read``); the app notes each one it handles (``handled``) and
  the prompt each key it takes (``applied``; the app too, for a key a binding took);
* a frame that paints the echo's row shows the prompt as it is, every key it took: their echoes are done
  (``frame_begins_write``); the others were made before the prompt took their key, and the frame would wipe them
  (the row repainted as the prompt still has it): they are written again at its end, in the same write (inside
  its synchronized update, if the terminal has them; ``FrameWriter.end_frame``);
* the screen image takes the echoed cells in (``ScreenImage.put``) before each frame is diffed and after it is
  written, so that it never believes a cell the terminal no longer has: the frame that paints an echo's row next
  writes only what differs from the echo (nothing, when it was right) and puts a wrong echo right; when the app
  handles an echoed key it asks the prompt to repaint the echo's row, so that such a frame comes even if the key
  changed nothing (a binding took it);
* a frame of another screen (a dialog) or of a new size drops every pending echo (that frame is whole);
* a frame that paints the state's row keeps it only when the prompt it paints is what the echoes drew (the
  loop looks, ``verify``: the state's row, the line and the cursor after the last key the prompt took, the same
  looks and keys), and the terminal's row shows that once it is written (``row_shows``): keys read while it is
  made chain on, and are written again at its end. Else the state is withdrawn while the frame is made, and
  published again only when a frame shows every input handled and nothing read waits (the next keys chain from a
  screen the loop has drawn); a frame that leaves the row alone (a stream's) leaves the state, and keys are
  echoed while it is made.

``ui.local_echo`` (settings) or ``NAVTUI_LOCAL_ECHO=0`` turns it off: keys are then echoed by the loop alone.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rich.segment import Segment
from textual import events, messages
from textual.keys import _character_to_key
from textual.widget import Widget
from textual.widgets import TextArea

from navtui.widgets.prompt_lines import end_of_line_styles

if TYPE_CHECKING:
    from rich.style import Style
    from textual.screen import Screen

    from navtui.app.screen_image import ScreenImage
    from navtui.widgets.prompt import PromptEditor

# What a key typed at the end of the line must not be: something reacts to it beyond the edit (completion). The
# prompt's mode (``!`` or ``$`` first in its text, shown on its border) is checked per line (``_predict``); a bracket
# at the end of the line matches nothing (the cursor's cell, past the text, holds no bracket to match).
_REACTED_TO = frozenset("/@")
_MODES = "!$"  # (navtui/agent/user_commands.py: prompt_mode)
_PRINTABLE = tuple(chr(code) for code in range(0x20, 0x7F))
_SEQ = "_navtui_echo_seq"  # the number the input thread gave an event (an attribute of the event)
NUMBERED = (events.Key, events.Paste, events.MouseDown, events.MouseUp)  # the input events that end a chain
ECHO_RETRY = 0.02  # seconds after a frame that did not show the prompt settled, the loop looks at it again
GIVE_UP = 1.0  # seconds after the app handled an echoed key the prompt never took: no longer written again


def enabled_by(setting: bool) -> bool:
    """The setting, unless ``NAVTUI_LOCAL_ECHO`` says otherwise (0/off/false/no: off; anything else: on)."""
    value = os.environ.get("NAVTUI_LOCAL_ECHO")
    if value is None:
        return setting
    return value.strip().lower() not in ("0", "off", "false", "no")


@dataclass(frozen=True, slots=True)
class EchoState:
    """The prompt's cursor row as the last frame left it, when a key typed there has a certain echo."""

    seq: int  # the last input the frame shows handled
    generation: int  # the screen image's, when the looks were taken
    size: tuple[int, int]
    y: int  # the cursor's row on the screen
    left: int  # the screen column of the line's first character
    x: int  # the cursor's column (the line's end)
    end: int  # the first column past the prompt's text area
    line: str  # the cursor's line
    content_y: int  # the cursor's row inside the prompt (its repaint when the key is handled)
    text: int  # looks (ids in the screen image) of typed text, the cursor's cell and the blanks after it
    cursor: int
    blank: int
    sgr_text: str  # the SGR sequences an echo writes: the default looks to typed text's, on to the cursor's ...
    sgr_text_cursor: str
    sgr_cursor: str  # ... and the default to the cursor's, on to the blanks' (backspace)
    sgr_cursor_blank: str
    typed: frozenset[str]  # characters whose key has a certain echo here
    backspace: bool  # backspace has one (no binding takes it first)
    alone: bool  # the line is the prompt's only one and no placeholder shows when it is empty


@dataclass(frozen=True, slots=True)
class Prediction:
    """An echo written by the input thread: cells of one row, from column ``x``."""

    seq: int
    state: EchoState
    x: int
    cells: str
    looks: tuple[int, ...]
    cursor: int  # the cursor's column after the key
    line: str  # the cursor's line after the key
    text: str  # what was written (cells and looks, without the synchronized update around them)


class LocalEcho:
    """Shared by the driver's input thread and the UI loop; every method runs under ``lock`` (the frame writer's,
    taken by the caller on the input thread and by ``FrameWriter``; the loop's methods take it themselves)."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.state: EchoState | None = None
        self.read = 0  # the number of the last input event read (input thread)
        self.handled = 0  # the number of the last one the app handled (loop)
        self.applied = 0  # the number of the last key the prompt took (or the app kept from it)
        self.confirmed = 0  # echoes up to this number are shown by a frame the loop made after their key
        self.pending: list[Prediction] = []
        self.echoed = 0  # keys echoed (tests, the bench)
        self._covers = 0  # the frame being written shows the inputs up to this number
        self._size: tuple[int, int] = (0, 0)  # the size of the frame being written
        self._paints = True  # the frame being made paints an echo's row (``render_begins``)
        self._handled_at: dict[int, float] = {}  # when the app handled an echoed key
        self._typed_for: tuple[int, int, tuple[int, ...]] | None = (
            None  # (screen, focused, bindings) ``_typed`` was made for
        )
        self._typed: tuple[frozenset[str], bool] = (frozenset(), False)
        self.looks_for: tuple[object, ...] | None = None  # (loop) what ``looks`` were worked out for (``echo_state``)
        # (loop) Whether the prompt, as a frame about to paint its row shows it, is the state's row with this line
        # and the cursor at this column (the main screen's ``prompt_as_predicted``): the chain then goes on
        self.verify: Callable[[EchoState, str, int], bool] | None = None
        self._kept = False  # the state was kept through the frame being made, which paints its row
        self._shown: tuple[int, str, int] | None = None  # (key, line, cursor) that frame shows (``_shows_the_chain``)
        self.looks: tuple[int, int, int, list[str], list[str]] | None = None

    # ------------------------------------------------------------------ the input thread
    def read_event(self, message: object) -> str:
        """Number an input event; for a key with a certain echo, the bytes to write now (else "")."""
        if not isinstance(message, NUMBERED):
            return ""
        with self.lock:
            self.read += 1
            seq = self.read
            setattr(message, _SEQ, seq)
            if not isinstance(message, events.Key):
                return ""
            prediction = self._predict(message, seq)
            if prediction is None:
                return ""
            self.pending.append(prediction)
            self.echoed += 1
            return prediction.text

    def _predict(self, key: events.Key, seq: int) -> Prediction | None:
        state = self.state
        if state is None:
            return None
        if seq - 1 == state.seq:
            x, line = state.x, state.line
        else:
            last = self.pending[-1] if self.pending else None
            if last is None or last.seq != seq - 1 or last.state is not state:
                return None  # something read since the state was published was not echoed: the chain ends
            x, line = last.cursor, last.line
        character = key.character
        y = state.y
        if key.key == "backspace" and state.backspace:
            if x - 1 < state.left:
                return None
            if not line[:-1].strip(" ") and not (state.alone and line[-1] not in "!$"):
                return None  # blank: the prompt's mode may change (a line below would give it), a placeholder show
            start, cursor, line = x - 1, x - 1, line[:-1]
            cells, looks = "  ", (state.cursor, state.blank)
            text = f"\x1b[{y + 1};{x}H{state.sgr_cursor} {state.sgr_cursor_blank} "
        elif (
            character is not None
            and len(character) == 1
            and character in state.typed
            and key.key == _character_to_key(character)
        ):
            if x + 2 >= state.end:
                return None  # the line would reach the prompt's edge: it may wrap
            if character in _MODES and not line.strip(" "):
                return None  # it may be the first character of the text: the prompt's mode
            start, cursor, line = x, x + 1, line + character
            cells, looks = f"{character} ", (state.text, state.cursor)
            text = f"\x1b[{y + 1};{x + 1}H{state.sgr_text}{character}{state.sgr_text_cursor} "
        else:
            return None
        text += f"\x1b[0m\x1b[{y + 1};{cursor + 1}H"  # the looks reset, the (hidden) cursor where Textual leaves it
        return Prediction(seq, state, start, cells, looks, cursor, line, text)

    # ------------------------------------------------------------------ the frame writer (its lock held)
    def reapply(self) -> str:
        """The pending echoes a frame being written does not show, to write again at its end."""
        with self.lock:
            again = [
                prediction
                for prediction in self.pending
                if prediction.seq > self._covers and prediction.state.size == self._size
            ]
            if not again:
                return ""
            last = again[-1]
            return "".join(prediction.text for prediction in again) + f"\x1b[{last.state.y + 1};{last.cursor + 1}H"

    # ------------------------------------------------------------------ the loop
    def handled_event(self, event: object) -> Prediction | None:
        """The app handles an input event: note it; its echo, if it had one."""
        seq = getattr(event, _SEQ, None)
        if seq is None:
            return None
        with self.lock:
            self.handled = max(self.handled, seq)
            for prediction in self.pending:
                if prediction.seq == seq:
                    self._handled_at[seq] = time.monotonic()
                    return prediction
        return None

    def key_applied(self, event: object) -> None:
        """The prompt takes a key (or the app sends it elsewhere): its echo, if any, is not to be written again
        once the prompt's repaint is in a frame (``frame_begins_write``)."""
        seq = getattr(event, _SEQ, None)
        if seq is not None:
            with self.lock:
                self.applied = max(self.applied, seq)

    def render_begins(self, rows: Collection[int] | None, band: tuple[int, int, int] | None = None) -> None:
        """A frame is being made, painting ``rows`` and scrolling ``band`` (rows None: the whole screen). Keys are
        echoed meanwhile if it leaves the echo's row alone (a stream frame while the user types); else not until
        it is written (the state may no longer hold). A frame that paints an echo's row shows the prompt as it is
        (every key it took), so it shows or wipes that echo (``frame_begins_write``)."""

        def paints(y: int) -> bool:
            return rows is None or y in rows or (band is not None and band[0] <= y < band[1])

        with self.lock:
            state = self.state
            self._kept = False
            if state is not None and paints(state.y):
                if rows is not None and self._shows_the_chain(state):
                    self._kept = True
                else:
                    self.state = None
            self._paints = any(paints(prediction.state.y) for prediction in self.pending) or (
                state is not None and paints(state.y)
            )

    def _shows_the_chain(self, state: EchoState) -> bool:
        """The prompt, as the frame being made paints it, is what the echoes of the keys it took drew (the state's
        row, its line and cursor after the last key the prompt took): the frame shows those echoes (or the state,
        none taken since), and the chain goes on from the later ones, written again at its end."""
        verify, applied = self.verify, self.applied
        if verify is None or applied < state.seq:
            return False
        if applied == state.seq:
            at: tuple[int, str, int] | None = (state.seq, state.line, state.x)
        else:
            taken = next((p for p in self.pending if p.seq == applied and p.state is state), None)
            at = (taken.seq, taken.line, taken.cursor) if taken is not None else self._shown
        if at is None or at[0] != applied or not verify(state, at[1], at[2]):
            return False  # (the prompt took a key that was not echoed: the chain ended)
        self._shown = at
        return True

    def _frame_shows_the_chain(self, image: ScreenImage, state: EchoState) -> bool:
        """The frame just written left the state's row as the prompt was when it was made (``_shows_the_chain``)."""
        shown = self._shown
        return (
            shown is not None
            and image.generation == state.generation
            and row_shows(image, state.y, state.left, shown[1], state.end, (state.text, state.cursor, state.blank))
        )

    def overlay(self, image: ScreenImage) -> None:
        """Put the pending echoes' cells into ``image`` (the terminal holds them)."""
        with self.lock:
            for prediction in self.pending:
                image.put(
                    prediction.state.y, prediction.x, prediction.cells, prediction.looks, prediction.state.generation
                )

    def frame_begins_write(self, size: tuple[int, int], whole: bool = False) -> None:
        """A frame is about to be written, for a screen of ``size``. One that paints the echoes' row shows the keys
        the prompt took (``applied``): their echoes are done, the others written again at its end; one that does
        not leaves every echo where it is. A ``whole`` frame (another screen's) hides or shows every echo so far."""
        with self.lock:
            if whole or size != (self.state.size if self.state is not None else size):
                self.state = None
            covers = self.read if whole else self.applied if self._paints else self.confirmed
            self._covers = max(covers, self.confirmed)
            self._size = size

    def frame_written(self, image: ScreenImage, state: EchoState | None) -> None:
        """The frame is written: drop the echoes it shows (or cannot keep), take the rest into ``image``, and
        publish ``state`` when the frame shows every input read."""
        with self.lock:
            self.confirmed = self._covers
            chained = self.state if self._kept else None
            if chained is not None and not self._frame_shows_the_chain(image, chained):
                self.state = None  # (its echoes not shown are put right by the frames of their keys)
            # A key the prompt never took (a binding had it) is given up a while after the app handled it: its
            # row was repainted since (``NavtuiApp.on_event``), over the echo the screen image holds.
            stale = time.monotonic() - GIVE_UP
            self.pending = [
                prediction
                for prediction in self.pending
                if prediction.seq > self._covers
                and prediction.state.size == self._size
                and self._handled_at.get(prediction.seq, stale + 1) > stale
            ]
            if self._handled_at:
                kept = {prediction.seq for prediction in self.pending}
                self._handled_at = {seq: at for seq, at in self._handled_at.items() if seq in kept}
            for prediction in self.pending:
                image.put(
                    prediction.state.y, prediction.x, prediction.cells, prediction.looks, prediction.state.generation
                )
            if state is not None and not self.pending and state.seq == self.read == self.handled:
                self.state = state
            elif self._kept and not self.pending:
                self.state = None  # the chain is over: the state next keys chain from is the loop's to publish
            self._kept = False
            self._paints = True  # (a frame not made by ``DiffingCompositor.render_update``: as if it painted all)

    def publish(self, state: EchoState | None) -> None:
        """Publish ``state`` between frames (the loop looked again at a prompt that had not settled at its last
        frame), if it still holds: nothing read since, no echo pending."""
        with self.lock:
            if state is not None and self.state is None and not self.pending and state.seq == self.read == self.handled:
                self.state = state

    def typed_keys(self, screen: Screen[Any], focused: object) -> tuple[frozenset[str], bool]:
        """The printable characters whose key no priority binding of ``screen``'s chain takes (and none that
        something reacts to), and whether backspace is free too. Kept while the screen and focus are the same."""
        nodes = (*focused.ancestors_with_self, screen.app) if isinstance(focused, Widget) else (screen, screen.app)
        key = (id(screen), id(focused), tuple(len(node._bindings.key_to_bindings) for node in nodes))
        if self._typed_for != key:
            typed = frozenset(
                character
                for character in _PRINTABLE
                if character not in _REACTED_TO and not binds_with_priority(screen, _character_to_key(character))
            )
            self._typed = (typed, not binds_with_priority(screen, "backspace"))
            self._typed_for = key
        return self._typed


def binds_with_priority(screen: Screen[Any], key: str) -> bool:
    """Whether a node of ``screen``'s binding chain (the focused widget and its ancestors, else the screen and
    the app) has a priority binding for ``key`` (the app's key look-up and the echo's keys both ask)."""
    focused = screen.focused
    nodes = focused.ancestors_with_self if focused is not None else (screen, screen.app)
    return any(binding.priority for node in nodes for binding in node._bindings.key_to_bindings.get(key, ()))


def prompt_painted(screen: Screen[Any], prompt: Widget) -> bool:
    """The prompt's last change is in the frame being made: no repaint or layout it asked for and has not posted, no
    ``Update`` of it waiting in the screen's queue. Reads Textual's refresh flags and queues (as
    ``widgets/pacing.py: key_on_its_way`` does; pinned by tests/app/test_echo_frames.py)."""
    if prompt._repaint_required or prompt._layout_required:
        return False
    queued = [screen._pending_message, *screen._message_queue.values]  # Textual's own queue: a deque
    return not any(isinstance(message, messages.Update) and message.widget is prompt for message in queued)


def prompt_idle(prompt: Widget) -> bool:
    """Nothing waits in the prompt's queue but its own ``Changed`` (a pump may take the next message off its queue
    to look at, ``_pending_message``, and then paint on idle: the edit's ``Changed`` then, which changes nothing
    on screen for a line a key is echoed on)."""
    pending = prompt._pending_message
    return (pending is None or isinstance(pending, TextArea.Changed)) and prompt._message_queue.empty()


def echo_of(app: object) -> LocalEcho | None:
    echo = getattr(app, "local_echo", None)
    return echo if isinstance(echo, LocalEcho) else None


def _at_line_end(screen: Screen[Any], prompt: PromptEditor) -> tuple[str, int, int, int, int] | None:
    """The prompt's cursor at the end of a plain line, nothing else about (a list, a selection, a bracket's match
    ...): the line, the cursor's screen column and row, the line's first column and the text area's end."""
    app = screen.app
    if app._keymap or app._batch_count or screen.focused is not prompt or not prompt.has_focus:
        return None
    if prompt.read_only or prompt.disabled or not prompt.display or prompt.show_line_numbers or not prompt.soft_wrap:
        return None
    if prompt.menu is not None and prompt.menu.open:
        return None
    if screen.selections or screen._select_state is not None:
        return None
    selection = prompt.selection
    if selection.start != selection.end or prompt.suggestion:
        return None
    if prompt.scroll_offset != (0, 0) or prompt.show_vertical_scrollbar or prompt.show_horizontal_scrollbar:
        return None
    if not prompt._has_cursor or not prompt._draw_cursor or prompt._matching_bracket_location is not None:
        return None
    document = prompt.document
    row, column = selection.end
    line = document[row]
    if column != len(line) or not (line.isascii() and line.isprintable()) or "@" in line or line.startswith("/"):
        return None
    if prompt.placeholder and not prompt.text:
        return None
    wrapped = prompt.wrapped_document
    if wrapped.get_offsets(row) or prompt._highlights.get(row):
        return None
    content = prompt.content_region
    cursor = prompt.cursor_screen_offset
    x, y = cursor.x, cursor.y
    left = x - column
    if left != content.x or not content.y <= y < content.bottom or x + 1 >= content.right:
        return None
    return line, x, y, left, content.right


def _looks_key(screen: Screen[Any], prompt: PromptEditor, image: ScreenImage) -> tuple[object, ...]:
    """What the echo's looks come from: the styles of the prompt and its ancestors (``PromptEditor._rich_style``
    keeps their versions), the themes, focus, the line filters, the image's looks (its generation)."""
    return (
        prompt._styles_seen,
        prompt._rich_style(),
        screen.app.current_theme,
        id(prompt._theme),
        prompt.has_focus,
        tuple(id(line_filter) for line_filter in prompt.get_line_filters()),
        image.generation,
    )


def prompt_as_predicted(
    screen: Screen[Any], prompt: PromptEditor, image: ScreenImage, echo: LocalEcho, state: EchoState, line: str, x: int
) -> bool:
    """The prompt as a frame being made paints it is ``state``'s row with ``line`` and the cursor at column ``x``,
    in the looks the state's echoes take (runs on the loop: ``LocalEcho.verify``)."""
    app = screen.app
    stack = app.screen_stack
    if not stack or screen is not stack[0] or screen is not stack[-1] or state.generation != image.generation:
        return False
    if (app.size.width, app.size.height) != state.size:
        return False
    if _at_line_end(screen, prompt) != (line, x, state.y, state.left, state.end):
        return False
    if state.y - prompt.content_region.y != state.content_y:
        return False
    if echo.looks_for != _looks_key(screen, prompt, image) or echo.looks is None:
        return False
    if echo.looks[:3] != (state.text, state.cursor, state.blank):
        return False
    return echo.typed_keys(screen, prompt) == (state.typed, state.backspace)


def echo_state(screen: Screen[Any], prompt: PromptEditor, image: ScreenImage, echo: LocalEcho) -> EchoState | None:
    """What the frame just written leaves at the prompt's cursor, when a key typed there has a certain echo; else
    None. Runs on the loop after every frame of the main screen that shows every input handled."""
    app = screen.app
    found = _at_line_end(screen, prompt)
    if found is None:
        return None
    line, x, y, left, end = found
    document = prompt.document
    filters = prompt.get_line_filters()
    # The looks, worked out again only when what they come from changes (``_looks_key``), and after a state the
    # terminal's cells did not bear out. (Worked out at every frame, filtered styles could be new objects each
    # time, each a new entry of the image's table of looks.)
    key = _looks_key(screen, prompt, image)
    if echo.looks_for == key and echo.looks is not None:
        text, at_cursor, blank, typing, erasing = echo.looks
    else:
        theme = prompt._theme
        rich_style = prompt._rich_style()
        base = theme.base_style if theme is not None and theme.base_style is not None else rich_style
        styles = end_of_line_styles(prompt, base)
        if styles is None:
            return None
        background = prompt.background_colors[1]
        looks = []
        for style in styles:
            for line_filter in filters:
                style = line_filter.apply([_one(style)], background)[0].style or style
            looks.append(image.look(style))
        text, at_cursor, blank = looks
        if any(image.pens[look].link for look in looks):
            return None
        typing = image.sgr_run(((text, False), (at_cursor, True)))  # as a frame writes them
        erasing = image.sgr_run(((at_cursor, True), (blank, True)))
        echo.looks_for, echo.looks = key, (text, at_cursor, blank, typing, erasing)
    if not row_shows(image, y, left, line, end, (text, at_cursor, blank)):
        echo.looks_for = None  # (the looks are worked out again next time)
        return None
    typed, backspace = echo.typed_keys(screen, prompt)
    return EchoState(
        seq=echo.handled,
        generation=image.generation,
        size=(app.size.width, app.size.height),
        y=y,
        left=left,
        x=x,
        end=end,
        line=line,
        content_y=y - prompt.content_region.y,
        text=text,
        cursor=at_cursor,
        blank=blank,
        sgr_text=typing[0],
        sgr_text_cursor=typing[1],
        sgr_cursor=erasing[0],
        sgr_cursor_blank=erasing[1],
        typed=typed,
        backspace=backspace,
        alone=document.line_count == 1 and not prompt.placeholder,
    )


def row_shows(image: ScreenImage, y: int, left: int, line: str, end: int, looks: tuple[int, int, int]) -> bool:
    """The terminal's row ``y`` (as ``image`` holds it) shows ``line`` from column ``left`` in typed text's looks,
    the cursor's cell after it and blanks to column ``end`` (``looks``: of the text, the cursor's cell, blanks)."""
    row = image.rows[y] if 0 <= y < len(image.rows) else None
    if row is None or len(row.cells) < end:
        return False
    text, at_cursor, blank = looks
    x = left + len(line)
    cells, row_looks = row.cells, row.looks
    return (
        cells[left:x] == list(line)
        and all(look == text for look in row_looks[left:x])
        and cells[x] == " "
        and row_looks[x] == at_cursor
        and all(cell == " " for cell in cells[x + 1 : end])
        and all(look == blank for look in row_looks[x + 1 : end])
    )


def _one(style: Style) -> Segment:
    return Segment("x", style)
