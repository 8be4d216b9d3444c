"""A stand-in for ``Runtime`` that replays scripted agent events: deterministic screens for snapshot tests.

Behaviour tests use the real ``Runtime`` against the fake provider servers; snapshots need a fixed cwd,
fixed token counts and no network, so they drive the app through this.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from navtui.agent.model_control import ProviderStatus
from navtui.agent.runtime import LaunchOptions
from navtui.agent.status import ContextUsage, StatusInfo
from navtui.app.ui_runtime import UiRuntime
from navtui.config.settings import Settings
from navtui.core.events import AgentEvent, Notice, RunFinished, UserMessageEvent
from navtui.providers.base import ListedModel, PullProgress


@dataclass
class _Provider:
    name: str = "ollama"
    model: str = "qwen2.5-coder:7b"
    base_url: str | None = "http://127.0.0.1:11434"

    @property
    def label(self) -> str:
        return f"{self.name}:{self.model}"


@dataclass
class _Policy:
    mode: str = "ask"


@dataclass
class ScriptedRuntime:
    cwd: Path = Path("/home/dev/project")
    provider: _Provider = field(default_factory=_Provider)
    settings: Settings = field(default_factory=Settings)
    warnings: list[str] = field(default_factory=list)
    provider_status: ProviderStatus = field(default_factory=lambda: ProviderStatus(True))
    scripts: list[list[Any]] = field(default_factory=list)  # one list of events per run
    hold: bool = False  # after its events, a run waits until aborted (a tool that keeps running)
    items: list[Any] = field(default_factory=list)
    status_info: dict[str, Any] = field(default_factory=dict)
    session: Any = None
    tools: Any = None
    agent: Any = None
    ctx: Any = None
    running: bool = False
    policy: Any = field(default_factory=_Policy)
    prompts: list[str | None] = field(default_factory=list)
    advisor: Any = None
    background_listener: Any = None
    model_info: Any = None
    mcp: Any = None
    checkpoints: Any = None

    @property
    def advisor_on(self) -> bool:
        return self.advisor is not None

    def __post_init__(self) -> None:
        self.options = LaunchOptions(cwd=self.cwd, ephemeral=True)
        self._abort = asyncio.Event()

    async def check_provider(self) -> ProviderStatus:
        return self.provider_status

    async def run(self, prompt: str | None) -> AsyncIterator[AgentEvent]:
        self.prompts.append(prompt)
        self.running = True
        self._abort = asyncio.Event()
        try:
            if prompt is not None:
                yield UserMessageEvent(text=prompt)
            for event in self.scripts.pop(0) if self.scripts else []:
                yield event
                await asyncio.sleep(0)
            if self.hold:
                await self._abort.wait()
            yield RunFinished(stop_reason="aborted" if self._abort.is_set() else "stop", turns=1)
        finally:
            self.running = False

    def abort(self) -> None:
        self._abort.set()

    def status(self, *, with_git: bool = True) -> StatusInfo:
        values: dict[str, Any] = {
            "cwd": str(self.cwd),
            "git_branch": "main" if with_git else None,
            "git_dirty": with_git,
            "provider": self.provider.name,
            "model": self.provider.model,
            "context_tokens": 2300,
            "context_window": 32768,
            "tokens_in": 0,
            "tokens_out": 0,
            "cost": None,
            "approval": self.policy.mode,
            "handover_count": 0,
            "advisor_on": False,
        }
        values.update(self.status_info)
        return StatusInfo(**values)

    def path_entries(self) -> list[Any]:
        return list(self.items)

    async def list_models(self) -> list[str]:
        return ["qwen2.5-coder:7b", "llama3.2:3b"]

    async def describe_models(self) -> list[ListedModel]:
        return [
            ListedModel(
                "qwen2.5-coder:7b", 4_683_087_332, "7.6B", "Q4_K_M", loaded=True, memory=5_970_000_000, context=32768
            ),
            ListedModel("llama3.2:3b", 2_019_393_189, "3.2B", "Q4_K_M"),
        ]

    async def pull_model(self, name: str) -> AsyncIterator[PullProgress]:
        for done in (0, 50, 100):
            yield PullProgress(status="pulling 6a0746a1ec1a", completed=done, total=100)
        yield PullProgress(status="success")

    def context_usage(self) -> ContextUsage:
        return ContextUsage(
            model=f"{self.provider.name}:{self.provider.model}",
            window=32768,
            used=2300,
            system_tokens=1200,
            tools=[],
            context_files=[],
        )

    def last_answer(self) -> str:
        return ""

    async def aclose(self) -> None:
        return None

    # What the snapshot screens never reach: a test that gets here is using the wrong runtime.
    async def switch_model(self, model: str, provider: str | None = None) -> None:
        raise NotImplementedError("use the real Runtime on the fake server to switch models")

    def new_session(self) -> None:
        raise NotImplementedError("use the real Runtime for session changes")

    def clear(self) -> None:
        raise NotImplementedError("use the real Runtime for session changes")

    def reload_from_session(self) -> None:
        raise NotImplementedError("use the real Runtime for session changes")

    def switch_session(self, session: Any) -> None:
        raise NotImplementedError("use the real Runtime for session changes")

    def set_session_name(self, name: str) -> None:
        raise NotImplementedError("use the real Runtime for session changes")

    async def adopt_session_model(self) -> Notice | None:
        return None

    def compact(self, instructions: str | None = None) -> AsyncIterator[AgentEvent]:
        raise NotImplementedError("use the real Runtime on the fake server to compact")

    def hand_over(self, instructions: str | None = None) -> AsyncIterator[AgentEvent]:
        raise NotImplementedError("use the real Runtime on the fake server to hand over")

    async def summarize_branch(self, entries: list[Any], *, instructions: str | None = None) -> str:
        raise NotImplementedError("use the real Runtime on the fake server for branch summaries")

    def start_advisor(self, model: str | None = None, *, seed: bool = True) -> Any:
        raise NotImplementedError("use the real Runtime for the advisor")

    async def stop_advisor(self) -> None:
        self.advisor = None

    thinking_level: str = "off"

    def set_thinking_level(self, level: str) -> None:
        self.thinking_level = level

    def set_sandbox(self, mode: str) -> str:
        raise NotImplementedError("use the real Runtime for the sandbox")

    def set_approval(self, mode: Any) -> None:
        self.policy.mode = mode


def _satisfies_the_protocol(runtime: ScriptedRuntime) -> UiRuntime:
    return runtime  # the type checker (mypy, see README) holds the scripted runtime to the UI's protocol
