"""Which model a session runs on: the one it was using when resumed, unless the command line says otherwise.

A resumed session (``-c``, ``-r``) continues on the provider, model and thinking level recorded in it (its latest
``model_change`` / ``thinking_level_change``, else its latest answer). ``-m`` replaces the model (and ``-p`` the
provider); ``-p`` alone keeps the session's model when it is of that provider; ``--thinking`` replaces the level.
A recorded provider navtui cannot talk to, or one that turns out unreachable, gives way to the configured model,
with a notice saying what was recorded, why it is not used, and what was chosen.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from navtui.config.launch import THINKING_LEVELS
from navtui.core.errors import NavtuiError
from navtui.core.events import Notice

ThinkSetting = bool | Literal["low", "medium", "high"]  # what ``providers.think`` holds

if TYPE_CHECKING:
    from navtui.agent.runtime import ProviderStatus, Runtime
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


def record_model(runtime: Runtime) -> None:
    """Before a run's first prompt: the session records the model and thinking level it runs on, when they are
    not what it already says (a new session, a new root after /clear, a flag or fallback that changed them)."""
    session = runtime.session
    if session is None or runtime.model_recorded:
        return
    runtime.model_recorded = True
    current = (runtime.provider.name, runtime.provider.model)
    if session.leaf_id is None or runtime.model_choice.recorded != current:
        session.append_model_change(*current)
    level = runtime.thinking_level
    if session.build_context().thinking_level != level:
        session.append_thinking_level_change(level)


async def fall_back(runtime: Runtime, failure: NavtuiError) -> ProviderStatus:
    """The resumed session's model cannot be reached: the configured one takes over if it can be reached."""
    from navtui.agent.runtime import DEFAULT_MODEL, ProviderStatus

    runtime.model_choice.restored = False
    recorded = describe((runtime.provider.name, runtime.provider.model))
    settings = runtime.settings
    try:
        fallback = runtime._build_provider(settings.model or DEFAULT_MODEL, settings.provider, settings.base_url)
        info = await fallback.model_info()
    except NavtuiError:
        return ProviderStatus(False, failure.message, failure.hint)
    await runtime.replace_provider(fallback, info)
    chosen = describe((fallback.name, fallback.model))
    notice = f"This session used {recorded}, which cannot be reached ({failure.message}); continuing on {chosen}."
    return ProviderStatus(True, notice=notice + " /model switches.")


async def adopt_session_model(runtime: Runtime) -> Notice | None:
    """After /resume: continue on the model and thinking level the opened session used; what to tell."""
    context = runtime.session.build_context() if runtime.session is not None else None
    if context is None:
        return None
    if context.thinking_level_recorded and context.thinking_level != runtime.thinking_level:
        runtime.set_thinking_level(context.thinking_level)
    provider = runtime.provider
    current = describe((provider.name, provider.model))
    if not context.model or (context.provider, context.model) == (provider.name, provider.model):
        return None
    recorded = (context.provider or "", context.model)
    runtime.model_choice = ModelChoice(provider.name, provider.model, runtime.model_choice.thinking_level, recorded)
    if context.provider not in KNOWN_PROVIDERS:
        text = f"This session used {describe(recorded)}, which navtui cannot connect to; staying on {current}."
        return Notice(text=text, level="warning")
    candidate = runtime._build_provider(context.model, context.provider, None)
    try:
        info = await candidate.model_info()
    except NavtuiError as exc:
        await candidate.aclose()
        reason = f"which cannot be reached ({exc.message})"
        return Notice(text=f"This session used {describe(recorded)}, {reason}; staying on {current}.", level="warning")
    await runtime.replace_provider(candidate, info)
    runtime.model_choice.restored = True
    return Notice(text=f"Continuing on {describe(recorded)}, the model this session used.")
