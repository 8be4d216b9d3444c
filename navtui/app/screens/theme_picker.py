"""The theme picker: a modal list that previews each theme as the cursor moves; Esc puts the old one back."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from navtui.styles import stylesheet

# Swatch order: what a user scans to tell themes apart.
_SWATCH_VARIABLES = ("nav-accent", "nav-border-accent", "nav-success", "nav-warning", "nav-error", "nav-syntax-keyword")


class ThemePickerScreen(ModalScreen[str | None]):
    """Dismisses with the chosen theme name (Enter) or ``None`` (Esc, after restoring the theme it opened with).

    ``names`` must be registered with the app. The screen implements ``update_theme_names`` so theme files added
    while it is open show up (see ``navtui.themes.live.ThemeReloader``).
    """

    CSS_PATH = stylesheet("theme_picker")

    BINDINGS = [Binding("escape", "cancel", "Cancel", show=False)]

    def __init__(self, names: Sequence[str], current: str | None = None) -> None:
        super().__init__()
        self._names = list(names)
        self._current = current
        self._original: str | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="theme-picker") as box:
            box.border_title = "Theme"
            box.border_subtitle = "↑↓ preview · enter choose · esc cancel"
            yield Label(id="theme-picker-current")
            yield OptionList(*self._options(), id="theme-picker-options")

    def on_mount(self) -> None:
        self._original = self.app.theme
        current = self._current if self._current is not None else self._original
        self.query_one("#theme-picker-current", Label).update(Text(f"now: {self._original}"))
        options = self.query_one(OptionList)
        if current not in self._names:
            # Listed first so that opening the picker (which highlights an option) changes nothing.
            self._names.insert(0, current)
            options.set_options(self._options())
        options.highlighted = self._names.index(current)
        options.focus()

    def update_theme_names(self, names: Sequence[str]) -> None:
        """Replace the list (new theme files), keeping the cursor on the same theme."""
        options = self.query_one(OptionList)
        highlighted = options.highlighted_option
        self._names = list(names)
        options.set_options(self._options())
        if highlighted is not None and highlighted.id in self._names:
            options.highlighted = self._names.index(highlighted.id)

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        name = event.option.id
        if name is not None and name != self.app.theme and self.app.get_theme(name) is not None:
            self.app.theme = name

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        if self._original is not None and self.app.theme != self._original:
            self.app.theme = self._original
        self.dismiss(None)

    def _options(self) -> list[Option]:
        return [Option(self._prompt(name), id=name) for name in self._names]

    def _prompt(self, name: str) -> Text:
        # Theme names come from user files: plain Text, never markup.
        prompt = Text(name.ljust(24))
        theme = self.app.get_theme(name)
        if theme is not None:
            for variable in _SWATCH_VARIABLES:
                colour = theme.variables.get(variable)
                if colour:
                    prompt.append(" ●", style=colour)
        return prompt
