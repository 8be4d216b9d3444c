"""The model picker (/models, ctrl+l): what the provider lists plus the models named in settings; for Ollama,
which are in memory (● with their size and context) and each one's size on disk."""

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
from navtui.widgets.pull_card import human_bytes

if TYPE_CHECKING:
    from navtui.app.ui_runtime import UiRuntime
    from navtui.providers.base import ListedModel


def describe(model: ListedModel) -> str:
    """What /models says of a model: in memory (size, context) or on disk (size, parameters, quantization)."""
    if model.loaded:
        parts = ["in memory"]
        if model.memory:
            on_gpu = f", {model.vram * 100 // model.memory}% GPU" if model.vram else ""
            parts.append(f"{human_bytes(model.memory)}{on_gpu}")
        if model.context:
            parts.append(f"ctx {model.context:,}")
        return " · ".join(parts)
    parts = [human_bytes(model.size)] if model.size else []
    parts += [part for part in (model.parameter_size, model.quantization) if part]
    return " · ".join(parts)


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
        self.listed: set[str] = set()  # the names the server listed (the others: named in the settings)

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
            listed = await self.runtime.describe_models()
        except NavtuiError as exc:
            status.update(Text(display_safe(f"{exc.message}" + (f" ({exc.hint})" if exc.hint else ""))))
            return
        except Exception as exc:  # the picker must stay usable whatever the endpoint does
            status.update(Text(display_safe(mask_secrets(f"could not list models: {exc}"))))
            return
        loaded = sum(model.loaded for model in listed)
        summary = f"{len(listed)} model{'s' * (len(listed) != 1)} from {self.runtime.provider.name}"
        if loaded:
            summary += f", {loaded} in memory"
        if self.runtime.provider.name == "ollama":
            summary += " · /models pull NAME downloads another"
        status.update(Text(summary))
        self._fill(configured_models(self.runtime), listed=listed)

    def _fill(self, configured: list[str], listed: list[ListedModel]) -> None:
        options = self.query_one(OptionList)
        facts = {model.name: model for model in listed}
        self.listed = set(facts)
        names = list(dict.fromkeys([*facts, *configured]))
        width = max((len(name) for name in names), default=0) + 2
        rows = [Option(self._label(name, facts.get(name), name in configured, width), id=name) for name in names]
        options.set_options(rows)
        current = self.runtime.provider.model
        if current in names:
            options.highlighted = names.index(current)
        elif names:
            options.highlighted = 0  # a row is always selected: Enter switches (the current model may be missing)

    def _label(self, name: str, facts: ListedModel | None, configured: bool, width: int) -> Text:
        label = Text(no_wrap=True, overflow="ellipsis")
        label.append("● " if facts is not None and facts.loaded else "  ", "green")
        label.append(display_safe(name).ljust(width))  # names come from the server
        details = describe(facts) if facts is not None else ("in settings, not on the server" if configured else "")
        if name == self.runtime.provider.model:
            details = "current · " + details if details else "current"
        label.append(display_safe(details), "dim")
        return label

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)
