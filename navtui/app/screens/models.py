"""The model picker (/models, ctrl+l): what the provider lists plus the models named in settings."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from navtui.core.display import display_safe
from navtui.core.errors import NavtuiError
from navtui.core.secrets import mask_secrets
from navtui.styles import stylesheet

if TYPE_CHECKING:
    from navtui.app.ui_runtime import UiRuntime


def configured_models(runtime: UiRuntime) -> list[str]:
    settings = runtime.settings
    names = [settings.model] if settings.model else []
    names += [name for name in settings.model_roles.values() if name]
    return names


class ModelsScreen(ModalScreen[str | None]):
    CSS_PATH = stylesheet("models")
    BINDINGS = [Binding("escape", "cancel", "Cancel", show=False)]

    def __init__(self, runtime: UiRuntime) -> None:
        super().__init__()
        self.runtime = runtime

    def compose(self) -> ComposeResult:
        with Vertical(id="models") as box:
            box.border_title = "Models"
            box.border_subtitle = "↑↓ · enter switch · esc cancel"
            yield Label(
                Text(display_safe(f"now: {self.runtime.provider.model} ({self.runtime.provider.name})")),
                id="models-current",
            )
            yield Label(Text("asking the provider…"), id="models-status")
            yield OptionList(id="models-options")

    def on_mount(self) -> None:
        self._fill(configured_models(self.runtime), listed=[])
        self.query_one(OptionList).focus()
        self._load()

    @work(exclusive=True, group="list-models")
    async def _load(self) -> None:
        status = self.query_one("#models-status", Label)
        try:
            listed = await self.runtime.list_models()
        except NavtuiError as exc:
            status.update(Text(display_safe(f"{exc.message}" + (f" ({exc.hint})" if exc.hint else ""))))
            return
        except Exception as exc:  # the picker must stay usable whatever the endpoint does
            status.update(Text(display_safe(mask_secrets(f"could not list models: {exc}"))))
            return
        status.update(Text(f"{len(listed)} model{'s' * (len(listed) != 1)} from {self.runtime.provider.name}"))
        self._fill(configured_models(self.runtime), listed=listed)

    def _fill(self, configured: list[str], listed: list[str]) -> None:
        options = self.query_one(OptionList)
        seen: set[str] = set()
        rows: list[Option] = []
        for name in [*listed, *configured]:
            if name in seen:
                continue
            seen.add(name)
            label = Text(display_safe(name))  # names come from the server
            if name == self.runtime.provider.model:
                label.append("  (current)", "dim")
            elif name in configured and name not in listed:
                label.append("  (settings)", "dim")
            rows.append(Option(label, id=name))
        options.set_options(rows)
        current = self.runtime.provider.model
        if current in seen:
            options.highlighted = [o.id for o in rows].index(current)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)
