"""The small transcript widgets: user messages, notices, errors, dividers, the welcome and no-provider cards.

All text that came from a user, a model, a tool or a file is passed as ``Text`` (markup off) through
``display_safe`` (terminal escapes shown as visible characters, never interpreted); errors and notices also pass
through ``mask_secrets`` (they often quote a server's reply).
"""

from __future__ import annotations

import re

from rich.console import Group, RenderableType
from rich.style import Style
from rich.text import Text
from textual import events
from textual.widget import Widget
from textual.widgets import Static

from navtui.core.display import display_safe
from navtui.core.secrets import mask_secrets
from navtui.widgets.items import (
    AdvisorItem,
    ContextItem,
    DividerItem,
    ErrorItem,
    NoticeItem,
    ProviderHelpItem,
    UserItem,
    WelcomeItem,
)
from navtui.widgets.pasted import collapse, long_blocks

_ATTACHED = re.compile(r'<attached_file path="([^"]*)"[^>]*>.*?</attached_file>\n?', re.DOTALL)


def display_user_text(text: str) -> tuple[str, list[str]]:
    """The user's words without attached file bodies, and the attached paths."""
    paths = _ATTACHED.findall(text)
    return _ATTACHED.sub("", text).rstrip(), paths


class UserMessageView(Widget):
    COMPONENT_CLASSES = {"user-message--marker", "user-message--meta"}

    def __init__(self, item: UserItem) -> None:
        super().__init__(classes=f"-{item.kind}")
        self.item = item
        self.found: tuple[str, Style] | None = None  # /find's words shown here, and their style

    @property
    def pasted(self) -> list[str]:
        """The long pastes this message shows collapsed."""
        if self.item.pasted is not None:
            return self.item.pasted
        return long_blocks(display_user_text(self.item.text)[0])

    def render(self) -> RenderableType:
        text, paths = display_user_text(self.item.text)
        line = Text()
        line.append("❯ ", self.get_component_rich_style("user-message--marker", partial=True))
        meta = self.get_component_rich_style("user-message--meta", partial=True)
        pasted = self.pasted
        if not pasted:
            line.append(display_safe(text))
        elif self.item.expanded:
            line.append(display_safe(text))
            line.append("\n▾ pasted text shown · click or ctrl+o to fold it", meta)
        else:
            for part, summary in collapse(text, pasted):
                line.append(
                    display_safe(part) if summary is None else f"▸ {summary} · click or ctrl+o",
                    None if summary is None else meta,
                )
        if self.item.kind in ("queued", "steer", "nudge"):
            line.append(f"  ({self.item.kind})", meta)
        if paths:
            line.append("\n")
            line.append(display_safe("attached: " + ", ".join(paths)), meta)
        if self.found is not None:
            line.highlight_regex(re.compile(re.escape(self.found[0]), re.IGNORECASE), self.found[1])
        return line

    def set_expanded(self, expanded: bool) -> None:
        self.item.expanded = expanded
        self.refresh(layout=True)

    def on_click(self, event: events.Click) -> None:
        if self.pasted:
            event.stop()
            self.set_expanded(not self.item.expanded)


class NoticeCard(Static):
    def __init__(self, item: NoticeItem) -> None:
        super().__init__(self._text(item), classes=f"-{item.level}")
        self.item = item

    def show(self, item: NoticeItem) -> None:
        """Show ``item`` in place of the notice shown (same level)."""
        self.item = item
        self.update(self._text(item))

    @staticmethod
    def _text(item: NoticeItem) -> Text:
        text = Text()
        if item.title:
            text.append(display_safe(mask_secrets(item.title)) + "\n", "bold")
        text.append(display_safe(mask_secrets(item.text)))
        return text


class AdvisorCard(Static):
    """Advice from the advisor model, styled apart (custom-message colours; concern/blocker borders)."""

    ICONS = {"nit": "·", "concern": "!", "blocker": "‼"}

    def __init__(self, item: AdvisorItem) -> None:
        text = Text()
        text.append(f"{self.ICONS.get(item.severity, '·')} advisor · {item.severity}\n", "bold")
        text.append(display_safe(item.note))  # model output: plain text, never markup
        super().__init__(text, classes=f"-{item.severity}")
        self.item = item


class ContextCard(Widget):
    """Context the model was given before it started; click (or ctrl+o) shows the text itself."""

    def __init__(self, item: ContextItem) -> None:
        super().__init__()
        self.item = item

    def render(self) -> RenderableType:
        item = self.item
        files = ", ".join(item.files[:8]) + (f" (+{len(item.files) - 8} more)" if len(item.files) > 8 else "")
        head = Text()
        head.append("▾ " if item.expanded else "▸ ", "bold")
        head.append(f"{item.source} context", "bold")
        head.append(display_safe(f" · ~{item.tokens} tokens · {files or 'no files'}"))
        return Group(head, Text(display_safe(item.text))) if item.expanded else head

    def set_expanded(self, expanded: bool) -> None:
        self.item.expanded = expanded
        self.refresh(layout=True)

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.set_expanded(not self.item.expanded)


class ErrorCard(Static):
    def __init__(self, item: ErrorItem) -> None:
        text = Text()
        text.append("✗ ", "bold")
        text.append(display_safe(mask_secrets(item.message)))
        if item.hint:
            text.append("\n")
            text.append(display_safe(mask_secrets(item.hint)), "italic")
        super().__init__(text)
        self.item = item


class Divider(Widget):
    """A slim rule with a label (handover, compaction); click shows the notes behind it."""

    def __init__(self, item: DividerItem) -> None:
        super().__init__()
        self.item = item

    def render(self) -> RenderableType:
        width = max(0, self.size.width)
        label = f" {display_safe(self.item.label)} "
        side = max(2, (width - len(label)) // 2)
        rule = Text("─" * side + label + "─" * max(2, width - side - len(label)), no_wrap=True, overflow="crop")
        if self.item.expanded and self.item.detail:
            return Group(rule, Text(display_safe(self.item.detail)))
        return rule

    def on_click(self, event: events.Click) -> None:
        event.stop()
        if self.item.detail:
            self.item.expanded = not self.item.expanded
            self.refresh(layout=True)


# What the keys really do (widgets/prompt.py, screens/main.py); /help and the README say it at length.
WELCOME_KEYS = (
    (("Enter", "send"), ("Alt+Enter", "new line"), ("ctrl+g", "$EDITOR"), ("Esc", "interrupt")),
    (("ctrl+c", "interrupt; idle: clear the prompt, empty: twice to quit"),),
    (("/help", "commands"), ("@path", "attach a file"), ("ctrl+p", "palette"), ("ctrl+l", "models")),
)


class WelcomeCard(Static):
    def __init__(self, item: WelcomeItem) -> None:
        text = Text()
        text.append("navtui", "bold")
        text.append("  ·  ")
        text.append(display_safe(item.model))
        text.append(f" ({item.provider})")
        text.append("\n")
        text.append(display_safe(item.cwd))
        text.append("\n")
        for row in WELCOME_KEYS:
            text.append("\n")
            for index, (key, what) in enumerate(row):
                text.append(" · " if index else "", "dim")
                text.append(key, "bold")
                text.append(" " + what)
        super().__init__(text)
        self.item = item


class ProviderHelpCard(Static):
    """Shown when the provider cannot be reached: what is wrong and exactly what to do."""

    def __init__(self, item: ProviderHelpItem) -> None:
        text = Text()
        text.append("The model is not reachable yet\n", "bold")
        text.append(display_safe(mask_secrets(item.message)))
        if item.hint:
            text.append("\n")
            text.append(display_safe(mask_secrets(item.hint)), "italic")
        if item.steps:
            text.append("\n\nTo get going:", "bold")
            for step in item.steps:
                text.append("\n  • " + display_safe(step))
        super().__init__(text)
        self.item = item
