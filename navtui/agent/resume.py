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
    base_url: str | None = None  # the endpoint to go back to (restored; None: the settings' / the default)
    recorded_base_url: str | None = None  # the endpoint the session recorded with its model


def session_endpoint(context: Any) -> tuple[str | None, str | None]:
    """(navtui provider, base URL) of a session's model: a pi/omp custom provider name (``lmstudio``) is looked up
    in their ``models.json``; a name they do not define, recorded with a base URL, is an OpenAI-compatible server."""
    from navtui.session.foreign import custom_provider

    provider, base_url = context.provider, context.base_url
    if provider in KNOWN_PROVIDERS or not provider:
        return provider, base_url
    custom = custom_provider(provider)
    if custom is not None:
        return custom[0], base_url or custom[1]
    return ("openai", base_url) if base_url else (provider, None)


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
    configured.recorded_base_url = context.base_url
    if options.model:  # -m: the command line wins
        return configured
    provider, base_url = session_endpoint(context)
    if options.provider and options.provider != provider:  # -p another provider: its configured model
        return configured
    if provider not in KNOWN_PROVIDERS:
        configured.notice = (
            f"This session used {describe(recorded)}, which navtui cannot connect to (it speaks to "
            f"{', '.join(KNOWN_PROVIDERS)}); continuing on {describe((configured.provider or '', configured.model))}."
        )
        return configured
    if getattr(options, "base_url", None):  # -b: the command line's endpoint wins
        base_url = None
    return ModelChoice(
        provider,
        context.model,
        level,
        recorded=(provider or "", context.model),
        restored=True,
        base_url=base_url,
        recorded_base_url=context.base_url,
    )


def options_thinking(options: LaunchOptions) -> str | None:
    return getattr(options, "thinking", None)


def describe(model: tuple[str, str]) -> str:
    provider, name = model
    return f"{provider}/{name}" if provider else name
