"""Which model a session runs on: the one it was using when resumed, unless the command line says otherwise.

A resumed session (``-c``, ``-r``) continues on the provider, model and thinking level recorded in it (its latest
``model_change`` / ``thinking_level_change``, else its latest answer). ``-m`` replaces the model (and ``-p`` the
provider); ``-p`` alone keeps the session's model when it is of that provider; ``--thinking`` replaces the level.
A recorded provider navtui cannot talk to, or one that turns out unreachable, gives way to the configured model,
with a notice saying what was recorded, why it is not used, and what was chosen (``ModelControl`` in
``agent/model_control.py`` applies these decisions to the running provider).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from navtui.config.launch import THINKING_LEVELS

ThinkSetting = bool | Literal["low", "medium", "high"]  # what ``providers.think`` holds

if TYPE_CHECKING:
    from navtui.config.launch import LaunchOptions
    from navtui.config.settings import Settings

# navtui's providers take off/low/medium/high.
KNOWN_PROVIDERS = ("ollama", "anthropic", "openai")
_THINK_OF_LEVEL: dict[str, ThinkSetting] = {
    "off": False,
    "minimal": "low",
    "low": "low",
    "medium": "medium",
    "high": "high",
    "xhigh": "high",
}


def think_setting(level: str) -> ThinkSetting:
    """The providers' ``think`` value for a pi/omp thinking level."""
    return _THINK_OF_LEVEL.get(level, "medium")


def level_of(think: bool | str | None) -> str:
    """The thinking level a ``think`` setting amounts to (``None``: the model's default, shown as off)."""
    if think is True:
        return "medium"
    if isinstance(think, str) and think in THINKING_LEVELS:
        return think
    return "off"


@dataclass
class ModelChoice:
    """What the runtime starts on, and what the session had recorded."""

    provider: str | None  # None: detected from the model name / settings
    model: str
    thinking_level: str | None  # None: the settings decide
    recorded: tuple[str, str] | None = None  # (provider, model) the resumed session was using
    restored: bool = False  # the recorded model is the one chosen
    notice: str | None = None


def choose_model(context: Any, options: LaunchOptions, settings: Settings, default_model: str) -> ModelChoice:
    """The model for a run; ``context`` is the resumed session's ``SessionContext`` (``None`` for a new one)."""
    configured = ModelChoice(settings.provider, settings.model or default_model, options_thinking(options))
    if context is None:
        return configured
    level = options_thinking(options) or (context.thinking_level if context.thinking_level_recorded else None)
    configured.thinking_level = level
    if not context.model:
        return configured
    recorded = (context.provider or "", context.model)
    configured.recorded = recorded
    if options.model:  # -m: the command line wins
        return configured
    provider = context.provider
    if options.provider and options.provider != provider:  # -p another provider: its configured model
        return configured
    if provider not in KNOWN_PROVIDERS:
        configured.notice = (
            f"This session used {describe(recorded)}, which navtui cannot connect to (it speaks to "
            f"{', '.join(KNOWN_PROVIDERS)}); continuing on {describe((configured.provider or '', configured.model))}."
        )
        return configured
    return ModelChoice(provider, context.model, level, recorded=recorded, restored=True)


def options_thinking(options: LaunchOptions) -> str | None:
    return getattr(options, "thinking", None)


def describe(model: tuple[str, str]) -> str:
    provider, name = model
    return f"{provider}/{name}" if provider else name
