"""Which provider and model a session runs on: chosen at start, checked, switched, and given way when unreachable.

``ModelControl`` owns the provider object, the model's facts once fetched (``info``) and the ``ModelChoice``
(``agent/resume.py`` decides it from the session and the command line). It knows nothing of the agent or the
session file: a method that replaces the provider returns the old one, and the caller points the agent at the
new one before closing the old.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from navtui.agent.resume import (
    KNOWN_PROVIDERS,
    ModelChoice,
    choose_model,
    describe,
    level_of,
    session_endpoint,
    think_setting,
)
from navtui.config.launch import DEFAULT_MODEL
from navtui.core.errors import NavtuiError
from navtui.core.events import Notice
from navtui.providers.network import NetworkProvider

if TYPE_CHECKING:
    from navtui.agent.resume import ThinkSetting
    from navtui.config.launch import LaunchOptions
    from navtui.config.settings import Settings
    from navtui.providers.base import ModelInfo, Provider
    from navtui.providers.network import NetworkThread
    from navtui.session.context import SessionContext


@dataclass
class ProviderStatus:
    ok: bool
    message: str = ""
    hint: str | None = None
    notice: str | None = None  # e.g. the resumed session's model was unreachable and another was chosen
    kind: str | None = None  # the error's kind when not ok: "not_found" (a model to pull), "auth", "connection" …


class ModelControl:
    def __init__(
        self,
        settings: Settings,
        options: LaunchOptions,
        resumed: SessionContext | None,
        network: NetworkThread | None = None,
    ) -> None:
        """``resumed``: the context of the session being continued (``None`` for a new one). With ``network``,
        every provider built runs its connections on that thread (``providers/network.py``)."""
        self.settings = settings
        self.network = network
        self.choice: ModelChoice = choose_model(resumed, options, settings, DEFAULT_MODEL)
        if self.choice.thinking_level is not None:
            settings.providers.think = think_setting(self.choice.thinking_level)
        self.info: ModelInfo | None = None
        # The session's own model goes back to the endpoint it recorded (else the configured one when that serves
        # its provider).
        base_url = self.choice.base_url if self.choice.restored else settings.base_url
        self.provider: Provider = self.build(self.choice.model, self.choice.provider, base_url)

    def build(self, model: str, provider: str | None, base_url: str | None) -> Provider:
        from navtui.providers.registry import build_provider

        return self._on_network(build_provider(self.settings, model=model, provider=provider, base_url=base_url))

    def _on_network(self, provider: Provider) -> Provider:
        if self.network is None or isinstance(provider, NetworkProvider):
            return provider
        return NetworkProvider(provider, self.network)

    # ------------------------------------------------------------------ thinking
    @property
    def thinking_level(self) -> str:
        """off, minimal, low, medium, high or xhigh (pi's names): what the prompt border shows."""
        return self.choice.thinking_level or level_of(self.settings.providers.think)

    def set_thinking_level(self, level: str) -> ThinkSetting:
        """Run at ``level`` from now on; returns the providers' ``think`` value for it."""
        from navtui.config.launch import THINKING_LEVELS

        if level not in THINKING_LEVELS:
            raise NavtuiError(f"Unknown thinking level '{level}'", hint="use one of: " + ", ".join(THINKING_LEVELS))
        self.choice.thinking_level = level
        self.settings.providers.think = think_setting(level)
        return self.settings.providers.think

    # ------------------------------------------------------------------ facts
    async def load_info(self) -> ModelInfo | None:
        """The model's facts (window, capabilities); ``None`` when the server cannot say."""
        try:
            self.info = await self.provider.model_info()
        except NavtuiError:
            self.info = None
        return self.info

    async def check(self, *, may_fall_back: bool) -> tuple[ProviderStatus, Provider | None]:
        """Can the provider be reached with this model? A resumed session's model that cannot gives way to the
        configured one when ``may_fall_back``; returns the status and, when the provider was replaced, the old one."""
        try:
            self.info = await self.provider.model_info()
        except NavtuiError as exc:
            if self.choice.restored and may_fall_back:
                return await self.fall_back(exc)
            return ProviderStatus(False, exc.message, exc.hint, kind=getattr(exc, "kind", None)), None
        return ProviderStatus(True), None

    # ------------------------------------------------------------------ replacing the provider
    def replace(self, provider: Provider, info: ModelInfo | None) -> Provider:
        """Run on ``provider`` from now on; returns the old one (to close once nothing uses it)."""
        old, self.provider = self.provider, self._on_network(provider)
        self.info = info
        return old

    def switch(self, model: str, provider: str | None = None) -> Provider:
        """``/model``: switch model (and provider, detected from the name unless given); returns the old provider."""
        from navtui.config.endpoints import detect_provider

        # Another model on the same server keeps its URL; a different provider takes that provider's endpoint.
        same_kind = (provider or detect_provider(model)) == self.provider.name
        base_url = self.provider.base_url if same_kind else None
        old = self.replace(self.build(model, provider, base_url), None)
        self.choice.restored = False
        return old

    async def fall_back(self, failure: NavtuiError) -> tuple[ProviderStatus, Provider | None]:
        """The resumed session's model cannot be reached: the configured one takes over if it can be reached.

        Returns what to tell the user and, when the provider was replaced, the old one."""
        self.choice.restored = False
        recorded = describe((self.provider.name, self.provider.model))
        settings = self.settings
        try:
            fallback = self.build(settings.model or DEFAULT_MODEL, settings.provider, settings.base_url)
            info = await fallback.model_info()
        except NavtuiError:
            return ProviderStatus(False, failure.message, failure.hint), None
        old = self.replace(fallback, info)
        chosen = describe((fallback.name, fallback.model))
        notice = f"This session used {recorded}, which cannot be reached ({failure.message}); continuing on {chosen}."
        return ProviderStatus(True, notice=notice + " /model switches."), old

    async def adopt(self, context: SessionContext) -> tuple[Notice | None, Provider | None]:
        """After /resume: continue on the model the opened session used. Returns what to tell the user and, when
        the provider was replaced, the old one."""
        provider = self.provider
        current = describe((provider.name, provider.model))
        if not context.model or (context.provider, context.model) == (provider.name, provider.model):
            return None, None
        recorded = (context.provider or "", context.model)
        self.choice = ModelChoice(provider.name, provider.model, self.choice.thinking_level, recorded)
        self.choice.recorded_base_url = context.base_url
        kind, base_url = session_endpoint(context)
        if kind not in KNOWN_PROVIDERS:
            text = f"This session used {describe(recorded)}, which navtui cannot connect to; staying on {current}."
            return Notice(text=text, level="warning"), None
        candidate = self.build(context.model, kind, base_url)
        try:
            info = await candidate.model_info()
        except NavtuiError as exc:
            await candidate.aclose()
            reason = f"which cannot be reached ({exc.message})"
            text = f"This session used {describe(recorded)}, {reason}; staying on {current}."
            return Notice(text=text, level="warning"), None
        old = self.replace(candidate, info)
        self.choice.restored = True
        return Notice(text=f"Continuing on {describe(recorded)}, the model this session used."), old
