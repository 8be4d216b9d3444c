"""The scrolling transcript: every item is kept as a record, only a window of the newest is mounted.

Layout cost in Textual grows with the number of mounted widgets, so a long session mounts its newest
``window`` items; scrolling to the top mounts an earlier batch above without moving what is on screen.
The view follows new output only while it is scrolled to the bottom (Textual's anchor), so scrolling up
never jumps; reaching the bottom again (PgDn, the wheel, the scrollbar) resumes following, and while the view is
away a "↓ new output" hint says that more arrived. Mounts are batched into one DOM update per tick.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, MutableSequence
from typing import Any

from rich.text import Text
from textual import events
from textual.containers import VerticalScroll
from textual.geometry import Size
from textual.message import Message
from textual.scrollbar import ScrollBar
from textual.widget import Widget
from textual.widgets import Static

from navtui.widgets.cards import (
    AdvisorCard,
    ContextCard,
    Divider,
    ErrorCard,
    NoticeCard,
    ProviderHelpCard,
    UserMessageView,
    WelcomeCard,
)
from navtui.widgets.items import (
    AdvisorItem,
    AssistantItem,
    ContextItem,
    DividerItem,
    ErrorItem,
    NoticeItem,
    ProviderHelpItem,
    PullItem,
    ThinkingItem,
    ToolItem,
    TranscriptItem,
    TranscriptItems,
    UserItem,
    WelcomeItem,
    item_text,
)
from navtui.widgets.markdown.view import MarkdownView
from navtui.widgets.pull_card import PullCard
from navtui.widgets.scrollbar import LineScrollBar
from navtui.widgets.thinking import ThinkingView
from navtui.widgets.tool_card import ToolCard

SLACK = 20  # prune only once this many items above the window are mounted (prune in batches)
LOAD_BATCH = 40
FIRST_MOUNT = 30  # a loaded session shows this many items in its first frame; the rest of the window follows


class AssistantView(MarkdownView):
    """An assistant answer; writes its text back into its record when it finishes."""

    def __init__(self, item: AssistantItem) -> None:
        super().__init__(item.text, streaming=item.streaming)
        self.item = item

    def finish(self) -> None:
        super().finish()
        self.item.text = self.text
        self.item.streaming = False

    def share_text(self, text: str) -> None:
        super().share_text(text)
        self.item.text = self.text


class NewOutputHint(Static):
    """Docked at the transcript's foot while the user reads above and new output arrives; a click goes down."""

    class Clicked(Message):
        """The user asked to jump to the newest output."""

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.post_message(self.Clicked())


class EarlierMarker(Static):
    """Says how many older items are not mounted; a click (or scrolling to the top) loads them."""

    class Clicked(Message):
        """The user asked for the earlier items."""

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.post_message(self.Clicked())


def build_widget(
    item: TranscriptItem, *, spinner_index: int | None = None, describe: Callable[[ToolItem], str] | None = None
) -> Widget:
    """The widget that shows ``item`` (``describe`` fills in a tool card's title the first time it is shown)."""
    if isinstance(item, AssistantItem):
        return AssistantView(item)
    if isinstance(item, ToolItem):
        if item.title is None:
            item.title = describe(item) if describe is not None else ""
        return ToolCard(item, spinner_index=spinner_index)
    if isinstance(item, UserItem):
        return UserMessageView(item)
    if isinstance(item, ThinkingItem):
        return ThinkingView(item)
    if isinstance(item, NoticeItem):
        return NoticeCard(item)
    if isinstance(item, AdvisorItem):
        return AdvisorCard(item)
    if isinstance(item, ContextItem):
        return ContextCard(item)
    if isinstance(item, ErrorItem):
        return ErrorCard(item)
    if isinstance(item, DividerItem):
        return Divider(item)
    if isinstance(item, WelcomeItem):
        return WelcomeCard(item)
    if isinstance(item, PullItem):
        return PullCard(item)
    if isinstance(item, ProviderHelpItem):
        return ProviderHelpCard(item)
    raise TypeError(f"no widget for {type(item).__name__}")


class Transcript(VerticalScroll):
    """Records in ``items``; widgets for ``items[first:]``."""

    COMPONENT_CLASSES = {"transcript--found"}  # /find's words in the entry it shows

    def __init__(self, *, window: int = 50, id: str | None = None) -> None:
        super().__init__(id=id)
        self.window = window
        self.items: MutableSequence[TranscriptItem] = []
        self.first = 0  # index of the first mounted item
        self._marker = EarlierMarker("", id="earlier")
        self._hint = NewOutputHint("↓ new output · PgDn or click to follow", id="new-output")
        self._pending: list[Widget] = []
        self._loading = False
        self.spinner_index: int | None = None
        self.describe: Callable[[ToolItem], str] | None = None
        self.last_found: tuple[str, int] | None = None  # /find's words and the index of the entry shown
        self._marked: Widget | None = None  # the entry whose /find words are marked

    @property
    def vertical_scrollbar(self) -> ScrollBar:
        # Textual's own, drawn from shared strips (widgets/scrollbar.py): the bar changes at every flush that
        # grows a streamed answer.
        if self._vertical_scrollbar is None:
            bar = LineScrollBar(vertical=True, name="vertical", thickness=self.scrollbar_size_vertical)
            bar.display = False
            self._vertical_scrollbar = bar
            self.app._start_widget(self, bar)
        return self._vertical_scrollbar

    def on_earlier_marker_clicked(self, message: EarlierMarker.Clicked) -> None:
        message.stop()
        self.load_earlier()

    def on_new_output_hint_clicked(self, message: NewOutputHint.Clicked) -> None:
        message.stop()
        self.jump_to_bottom()

    def on_mount(self) -> None:
        self._marker.display = False
        self._hint.display = False
        self.mount(self._marker, self._hint)
        self.anchor()

    # ------------------------------------------------------------------ adding
    def add(self, item: TranscriptItem) -> Widget:
        """Append a record and (batched with others of this tick) mount its widget."""
        self.items.append(item)
        widget = self._build(item)
        if not self._pending:
            self.call_later(self.mount_pending)
        self._pending.append(widget)
        return widget

    def add_notice(self, item: NoticeItem) -> Widget:
        """Append a notice; one with a ``tag`` replaces the last item instead when that is a notice with the same
        tag and level (shift+tab pressed five times: one notice that says the level reached)."""
        last = self.items[-1] if self.items else None
        widgets = self.item_widgets
        card = widgets[-1] if widgets else None
        if (
            item.tag is not None
            and isinstance(last, NoticeItem)
            and (last.tag, last.level) == (item.tag, item.level)
            and isinstance(card, NoticeCard)
            and card.item is last
        ):
            self.items[-1] = item
            card.show(item)
            return card
        return self.add(item)

    def _build(self, item: TranscriptItem) -> Widget:
        return build_widget(item, spinner_index=self.spinner_index, describe=self.describe)

    async def mount_pending(self) -> None:
        """Mount what ``add`` queued (it happens by itself on the next tick; the first frame does it now)."""
        widgets, self._pending = self._pending, []
        if not widgets:
            return
        with self.app.batch_update():
            await self.mount_all(widgets)
        self._prune_window()

    def load(self, items: Iterable[TranscriptItem]) -> None:
        """Replace everything with ``items`` (a resumed session): records for all, widgets for the newest."""
        self.clear()
        self.items = items if isinstance(items, TranscriptItems) else list(items)  # (the older ones made when read)
        # The first frame gets a screenful or two; the rest of the window mounts right after it.
        self.first = max(0, len(self.items) - min(self.window, FIRST_MOUNT))
        widgets = [self._build(item) for item in self.items[self.first :]]
        self._update_marker()
        if widgets:
            with self.app.batch_update():
                self.mount_all(widgets)
        self.anchor()
        rest = min(self.window, len(self.items)) - len(widgets)
        if rest > 0:
            self.call_after_refresh(self.load_earlier, rest)

    def clear(self) -> None:
        """Forget every item (``/clear``, ``/new``)."""
        self._pending.clear()
        with self.app.batch_update():
            for child in self._mounted_items():
                child.remove()
        self.items = []
        self.first = 0
        self.last_found = None
        self._marked = None
        self._update_marker()
        self.anchor()

    @property
    def item_widgets(self) -> list[Widget]:
        """The mounted item widgets, oldest first (pending mounts included)."""
        return self._mounted_items() + self._pending

    def _mounted_items(self) -> list[Widget]:
        return [child for child in self.children if child is not self._marker and child is not self._hint]

    # ------------------------------------------------------------------ following the newest output
    @property
    def following(self) -> bool:
        """The view sticks to the bottom (Textual's anchor, not released by the user scrolling up)."""
        return self.is_anchored and not self._anchor_released

    def jump_to_bottom(self) -> None:
        """Show the newest output and follow it again (sending a message does this)."""
        self._hint.display = False
        self.anchor()

    def page(self, direction: int) -> None:
        """PgUp (-1) / PgDn (1). Repeated presses add up while the scroll animates; a page that reaches the
        bottom follows again at once, even while output keeps streaming in below."""
        height = self.scrollable_content_region.height
        moving = self.app.animator.is_being_animated(self, "scroll_y")
        start = self.scroll_target_y if moving else self.scroll_y
        target = start + direction * height
        if direction > 0 and target >= self.max_scroll_y:
            self.jump_to_bottom()
            return
        self.scroll_to(y=max(0, target), animate=True, duration=0.15)

    def release_anchor(self) -> None:
        # Textual releases the anchor on every user scroll, even PgDn or the wheel at the very bottom, where
        # the position does not change and so nothing ever re-anchors: check once the scroll has been applied.
        super().release_anchor()
        self.call_after_refresh(self._resume_at_bottom)

    def _resume_at_bottom(self) -> None:
        if self._anchor_released and self.scroll_target_y >= self.max_scroll_y and self.scroll_y >= self.max_scroll_y:
            self._anchor_released = False
        if self.following:
            self._hint.display = False

    def _size_updated(self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True) -> bool:
        # Textual sets the virtual size with layout=True inside its own layout pass: every answer that grew the
        # transcript cost a second, identical layout on the next frame. The gutter is stable (the scrollbar never
        # takes or gives room), so the virtual size cannot change this layout; the watcher still runs.
        old = self.virtual_size
        updated = super()._size_updated(size, virtual_size, container_size, layout=False)
        if virtual_size != old:
            self.watch_virtual_size(old, virtual_size)
        return updated

    def watch_virtual_size(self, old: Size, new: Size) -> None:
        if new.height > old.height and self.is_anchored and self._anchor_released and self.items:
            self._hint.display = True

    # ------------------------------------------------------------------ the window

    def _prune_window(self) -> None:
        mounted = len(self.items) - self.first
        if mounted <= self.window + SLACK or not self.following:
            return
        drop = mounted - self.window
        widgets = self._mounted_items()[:drop]
        with self.app.batch_update():
            for widget in widgets:
                widget.remove()
        self.first += len(widgets)
        self._update_marker()

    def _update_marker(self) -> None:
        hidden = self.first
        self._marker.display = hidden > 0
        if hidden:
            noun = "entry" if hidden == 1 else "entries"
            self._marker.update(Text(f"▲ {hidden} earlier {noun} · scroll up or click to show"))

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if self._hint.display and self.following:
            self._hint.display = False
        if new_value < 1 and old_value >= 1 and self.first > 0:
            self.load_earlier()

    def load_earlier(self, count: int = LOAD_BATCH) -> None:
        """Mount up to ``count`` older items above, keeping the visible content in place."""
        if self._loading or self.first == 0:
            return
        self._loading = True
        self.run_worker(self._load_earlier(count), group="transcript-load", exclusive=True)

    async def _load_earlier(self, count: int) -> None:
        try:
            start = max(0, self.first - count)
            widgets = [self._build(item) for item in self.items[start : self.first]]
            mounted = self._mounted_items()
            height_before = self.virtual_size.height
            with self.app.batch_update():
                await self.mount_all(widgets, before=mounted[0] if mounted else None)
                self.first = start
                self._update_marker()
            self.call_after_refresh(self._keep_position, height_before)
            self.call_after_refresh(self.trim_offscreen)  # what the batch rendered away from the screen
        finally:
            self._loading = False

    def _keep_position(self, height_before: int) -> None:
        if self.following:
            return  # the anchor keeps the bottom in view by itself
        grown = self.virtual_size.height - height_before
        if grown > 0:
            self.scroll_to(y=self.scroll_y + grown, animate=False, immediate=True, release_anchor=False)

    # ------------------------------------------------------------------ search (/find)
    def find(self, words: str, before: int | None = None) -> int | None:
        """The index of the newest item before ``before`` (default: the end) whose text holds ``words``, in any
        case; None when none does. (The older items of a resumed session are made as it reads them.)"""
        wanted = words.casefold()
        end = len(self.items) if before is None else min(before, len(self.items))
        for index in range(end - 1, -1, -1):
            if wanted in item_text(self.items[index]).casefold():
                return index
        return None

    async def reveal(self, index: int, words: str) -> None:
        """Show item ``index``, mounting the older items down to it, with the line that holds ``words`` (as near as
        the text's place in it tells) on screen; the transcript stops following until PgDn or the next message."""
        if index < self.first:
            self.workers.cancel_group(self, "transcript-load")
            self._loading = True
            await self._load_earlier(self.first - index)
        widget = self._mounted_items()[index - self.first]
        self.mark_found(widget, words)
        self.call_after_refresh(self._scroll_to_found, widget, item_text(self.items[index]), words)

    def mark_found(self, widget: Widget | None, words: str = "") -> None:
        """Mark ``words`` in ``widget`` (an answer or a message of the user's: widgets with ``found``) in the
        theme's colours, and take the marks of the entry found before; ``None``: only take them."""
        for marked, found in ((self._marked, None), (widget, words)):
            if marked is not None and hasattr(marked, "found"):
                marked.found = (found, self.get_component_rich_style("transcript--found")) if found else None
                marked.refresh()
        self._marked = widget

    def _scroll_to_found(self, widget: Widget, text: str, words: str) -> None:
        place = text.casefold().find(words.casefold())
        into = int(widget.size.height * place / len(text)) if place > 0 and text else 0
        self._hint.display = False
        self.scroll_to(y=max(0, widget.virtual_region.y + into - 2), animate=False, immediate=True)

    # ------------------------------------------------------------------ memory
    def trim_offscreen(self) -> int:
        """Let finished answers release the rendered lines of their blocks that lie over a screen away from what
        the transcript shows (they render again if scrolled back to). Returns how many lines were released."""
        height = self.scrollable_content_region.height
        if not height:
            return 0
        top = round(self.scroll_y)
        keep_from, keep_to = top - height, top + 2 * height
        released = 0
        for widget in self.children:
            if isinstance(widget, MarkdownView) and not widget.streaming and widget.size.height:
                region = widget.virtual_region
                released += widget.trim(keep_from - region.y, keep_to - region.y)
        return released

    # ------------------------------------------------------------------ bulk actions
    def toggle_details(self) -> bool:
        """Expand every tool card and thought, or collapse them all when all are open. Returns the new state."""
        records: list[Any] = [e for e in self.items if isinstance(e, ToolItem | ThinkingItem | ContextItem)]
        widgets: list[Any] = [w for w in self.item_widgets if isinstance(w, ToolCard | ThinkingView | ContextCard)]
        pasted = [w for w in self.item_widgets if isinstance(w, UserMessageView) and w.pasted]  # long pastes
        records += [w.item for w in pasted]
        widgets += pasted
        expand = not all(w.expanded if isinstance(w, ToolCard) else w.item.expanded for w in widgets)
        for item in records:
            item.expanded = expand
        for widget in widgets:
            widget.set_expanded(expand)
        return expand

    def tick(self, index: int | None) -> None:
        """Advance the spinner of pending tool cards."""
        self.spinner_index = index
        for widget in self.item_widgets:
            if isinstance(widget, ToolCard) and widget.item.status == "pending":
                widget.tick(index)

    def widgets_of(self, kind: type[Any]) -> list[Any]:
        return [w for w in self.item_widgets if isinstance(w, kind)]
