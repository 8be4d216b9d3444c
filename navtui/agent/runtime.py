"""The runtime: everything one navtui session needs, built from settings and launch options, wired together.

The UI and the headless modes both talk to a ``Runtime``. It builds the tools, MCP servers and the agent, runs
turns, and delegates the rest to collaborators with one job each:

- ``ModelControl`` (``agent/model_control.py``): the provider and model, chosen, checked, switched;
- ``SessionControl`` (``agent/session_control.py``): the session file, opened, replaced, told the model;
- ``AdvisorControl`` (``agent/advisor_control.py``): the advisor, on and off, and where its events go;
- ``agent/status.py``: the status line's facts and ``/context``'s numbers.
- ``PreparedPrompt`` (``agent/prepare.py``): a prompt made ready for a run: attachments, MCP resources, the model
  recorded, the index's first-prompt note, the checkpoint before the run.

What the runtime itself does is keep them consistent: a new provider or session means the agent is re-pointed or
rebuilt, and the advisor told.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Coroutine, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from navtui.agent.advisor_control import AdvisorControl
from navtui.agent.loop import Agent
from navtui.agent.model_control import ModelControl, ProviderStatus
from navtui.agent.prepare import PreparedPrompt
from navtui.agent.prompt import build_system_prompt
from navtui.agent.session_control import SessionControl
from navtui.config.context_files import context_file_warnings
from navtui.config.launch import DEFAULT_MODEL, LaunchOptions
from navtui.config.settings import Settings, load_settings
from navtui.core.errors import ConfigError, NavtuiError
from navtui.core.events import Notice, TurnFinished
from navtui.core.messages import AssistantMessage, Usage
from navtui.providers.base import AnyMessage, ListedModel, ModelInfo, Provider, PullProgress
from navtui.providers.network import NetworkThread
from navtui.tools.approval import ApprovalMode, ApprovalPolicy, Approver, DenyingApprover
from navtui.tools.base import ToolContext, ToolRegistry

if TYPE_CHECKING:
    from navtui.agent.advisor import Advisor
    from navtui.agent.checkpointing import TurnCheckpoints
    from navtui.agent.hooks import CompositeHooks
    from navtui.agent.resume import ModelChoice
    from navtui.agent.status import ContextUsage, StatusInfo
    from navtui.config.project_rules import HeldModel
    from navtui.core.events import AgentEvent
    from navtui.mcp.manager import McpManager
    from navtui.session.entries import Entry
    from navtui.session.manager import SessionManager

T = TypeVar("T")


class Runtime:
    def __init__(
        self,
        options: LaunchOptions,
        settings: Settings,
        warnings: list[str],
        approver: Approver | None,
        read_path: Callable[[Entry], None] | None = None,
    ) -> None:
        self.options = options
        self.cwd = options.cwd.resolve()
        self.settings = settings
        self.warnings = warnings
        self.approver: Approver = approver or DenyingApprover()
        self.pending_notices: list[AgentEvent] = []  # said at the start of the next run (window facts)
        self._preparing = False  # a run is getting ready (window, MCP servers, attachments) before the agent's
        self._aborted_early = False  # Esc came then
        self._esc_early: asyncio.Event | None = None  # set by that Esc: a wait of the preparation ends at it
        self.held_models: list[HeldModel] = []  # a repository's models on another endpoint, not answered yet
        self.repository: Path | None = None
        self.handover_count = 0
        self.sessions, opened = SessionControl.open(self.cwd, options)
        self.warnings.extend(opened)
        # Every provider's connections live on one thread of their own, off the UI's loop (providers/network.py).
        self.network = NetworkThread()
        self.models = ModelControl(settings, options, self.sessions.resumed_context(read_path), self.network)
        if self.models.choice.notice:
            self.warnings.append(self.models.choice.notice)
        self.advisors = AdvisorControl(
            settings,
            self.cwd,
            build_provider=lambda model: self.models.build(model, None, None),
            steer=lambda text: self.agent.steer(text),  # always the current agent, even after a rebuild
            primary_running=lambda: self.running,
        )
        self.tools = self._build_tools()
        self.mcp = self._build_mcp()  # started later, on the event loop (never before the first frame)
        self._mcp_compact_said = False
        # One policy object: /approval changes what the agent enforces and what the tools see.
        self.policy = ApprovalPolicy.from_settings(settings)
        self.ctx = self._build_context()
        self.checkpoints = self._build_checkpoints()  # before the agent: its hooks hold tools for the first walk
        self.agent = self._build_agent()
        if settings.advisor.enabled and settings.model_roles.get("advisor"):
            self.start_advisor(seed=True)

    # ------------------------------------------------------------------ construction
    @classmethod
    def create(
        cls,
        options: LaunchOptions,
        *,
        approver: Approver | None = None,
        read_path: Callable[[Entry], None] | None = None,
    ) -> Runtime:
        """The runtime for ``options``. ``read_path`` is given each entry of a resumed session's path, in order, as
        its context is built (``SessionManager.build_context``): what else reads the whole path (the transcript)
        reads it there, and no line is parsed twice."""
        from navtui.agent.housekeeping import recover_interrupted_writes, stop_leftovers_and_prune

        loaded = load_settings(options.cwd, options.overrides())
        if loaded.held and approver is None:  # no screen to ask on: say why and which flag to use
            raise held_model_error(loaded.held[0], loaded.settings)
        warnings = list(loaded.warnings)
        warnings.extend(recover_interrupted_writes())
        warnings.extend(context_file_warnings(options.cwd))
        warnings.extend(stop_leftovers_and_prune(loaded.settings))
        runtime = cls(options, loaded.settings, warnings, approver, read_path)
        runtime.held_models = loaded.held  # the app asks about them once the runtime is on screen
        runtime.repository = loaded.repository
        if runtime.ctx.sandbox is not None and runtime.ctx.sandbox.warning:
            runtime.warnings.append(runtime.ctx.sandbox.warning)
        if runtime.checkpoints is not None:
            runtime.checkpoints.warm_up()
        return runtime

    def _build_tools(self) -> ToolRegistry:
        from navtui.tools.registry import default_tools

        return default_tools(self.settings, self.cwd)

    def _build_mcp(self) -> McpManager | None:
        from navtui.mcp.startup import build_manager

        return build_manager(
            self.cwd, self.settings, self.tools, self._artifacts_dir(), trust_project=self.options.mcp_trust
        )

    def _build_context(self) -> ToolContext:
        from navtui.tools.registry import make_context

        return make_context(self.cwd, self.settings, self._artifacts_dir(), policy=self.policy, approver=self.approver)

    def _build_checkpoints(self) -> TurnCheckpoints | None:
        if self.session is None or not self.settings.checkpoints.enabled:
            return None
        from navtui.agent.checkpointing import TurnCheckpoints

        return TurnCheckpoints(self.cwd, self.settings.checkpoints)

    def _artifacts_dir(self) -> Path:
        from navtui.config.paths import navtui_home

        return navtui_home() / "artifacts"

    def _build_agent(self, messages: Sequence[AnyMessage] | None = None) -> Agent:
        handover_notes = None
        context = self.sessions.context() if messages is None else None
        if context is not None:
            messages = context.messages  # (its own copy: older messages may stay in the session's lines)
            handover_notes = context.handover_notes
        hooks = self._build_hooks(handover_notes)  # first: it may add the handover tool the prompt lists
        return Agent(
            self.provider,
            self.tools,
            self.ctx,
            system_prompt=build_system_prompt(self.cwd, self.tools.specs()),
            messages=messages,
            policy=self.policy,
            approver=self.approver,
            max_turns=self.settings.max_turns,
            recorder=self.session,
            context_window=self.settings.providers.context_window,
            max_tokens=self.settings.providers.max_tokens,
            temperature=self.settings.providers.temperature,
            think=self.settings.providers.think,
            hooks=hooks,
        )

    def _build_hooks(self, handover_notes: str | None) -> CompositeHooks:
        from navtui.agent.advisor_control import AdvisorHooks
        from navtui.agent.hooks import AgentHooks, CompositeHooks

        try:
            from navtui.agent.context_manager import ContextHooks
        except ImportError:
            context: AgentHooks = AgentHooks()
        else:
            context = ContextHooks(self, handover_notes=handover_notes)
        from navtui.agent.files_in_play import FilesInPlayHooks
        from navtui.agent.repo_index import IndexHooks

        # The files in play are chosen after context management has made its room (edits protocol only).
        files = FilesInPlayHooks(self.cwd)
        from navtui.agent.asked_files import AskedFiles
        from navtui.agent.check import CheckHooks
        from navtui.agent.claims import ClaimCheck
        from navtui.agent.moves import MoveCheck
        from navtui.agent.renames import RenameCheck

        agent = self.settings.agent
        check = CheckHooks(self.cwd, agent.check_command, agent.check_rounds)
        parts = [
            context,
            files,
            AskedFiles(),  # before the claim check: a missing file named, with the answer to put in it, does more
            ClaimCheck(),
            RenameCheck(self.cwd),
            MoveCheck(self.cwd),
            AdvisorHooks(lambda: self.advisor),
            IndexHooks(self.cwd),
            check,
        ]
        return CompositeHooks([*parts, self.checkpoints] if self.checkpoints is not None else parts)

    def _rebuild_agent(self, messages: Sequence[AnyMessage] | None) -> None:
        usage = self.agent.usage_total
        window = self.agent.budget.window
        self.agent = self._build_agent(messages)
        self.agent.usage_total = usage
        self.agent.budget.window = window
        self._fit_window(announce=False)  # a small window keeps its compact prompt
        self.advisors.reset()  # the primary history was replaced: the advisor starts over

    # ------------------------------------------------------------------ what the collaborators hold
    @property
    def provider(self) -> Provider:
        return self.models.provider

    @property
    def model_info(self) -> ModelInfo | None:
        return self.models.info

    @property
    def model_choice(self) -> ModelChoice:
        return self.models.choice

    @property
    def session(self) -> SessionManager | None:
        return self.sessions.current

    @property
    def advisor(self) -> Advisor | None:
        return self.advisors.advisor

    @property
    def background_listener(self) -> Callable[[AgentEvent], None] | None:
        """Called with advisor events that arrive while the agent is idle (the UI wakes the agent on a concern)."""
        return self.advisors.background_listener

    @background_listener.setter
    def background_listener(self, listener: Callable[[AgentEvent], None] | None) -> None:
        self.advisors.background_listener = listener

    # ------------------------------------------------------------------ running
    @property
    def running(self) -> bool:
        return self.agent.running

    async def run(self, prompt: str | None) -> AsyncGenerator[AgentEvent, None]:
        """Run the agent on ``prompt`` (``None`` continues): made ready with the files it attaches or names
        (``agent/prepare.py``), checkpointed after each turn, watched by the advisor."""
        self._preparing, self._aborted_early, self._esc_early = True, False, asyncio.Event()
        try:
            async for notice in self._before_run():
                yield notice
            prepared = PreparedPrompt(self, prompt)
            async for notice in prepared.steps():
                yield notice
        finally:
            self._preparing = False
        checkpoints, session = self.checkpoints, self.session
        async for event in self.agent.run(prepared.text, aborted=self._aborted_early):
            if checkpoints is not None and session is not None and isinstance(event, TurnFinished):
                event, notices = await checkpoints.after_turn(session, event)
                for notice in notices:
                    yield notice
            yield event
            for said in self.advisors.take_events():
                yield said
            await self.advisors.observe(event, self.agent.messages)
        while said_last := self.advisors.take_events():
            for said in said_last:
                yield said
        if checkpoints is not None:
            for notice in await checkpoints.after_run():
                yield notice

    async def _before_run(self) -> AsyncGenerator[AgentEvent, None]:
        """The model's window known, the notices held for this run said, the MCP servers ready."""
        if self.model_info is None and await self.models.load_info() is not None:
            self._fit_window()
        while self.pending_notices:
            yield self.pending_notices.pop(0)
        async for notice in self._mcp_before_run():
            yield notice

    async def _mcp_before_run(self) -> AsyncGenerator[Notice, None]:
        """Servers started (or given a moment to); failures not shown yet; whether their schemas fit."""
        if self.mcp is None:
            return
        agent = self.agent
        # The compact prompt for small windows offers only the core tools: MCP schemas cost nothing there.
        said = await self._unless_esc(self.mcp.before_request(None if agent.compact else agent.budget.window))
        if said is None:  # Esc while the servers were given their moment: the run ends, they go on starting
            return
        for text, level in said:
            yield Notice(text=text, level=level)
        if agent.compact and self.mcp.tool_tokens() and not self._mcp_compact_said:
            self._mcp_compact_said = True
            yield Notice(
                text="MCP tools are not offered with the compact prompt for small windows "
                "(providers.compact_prompt: off offers them).",
                level="info",
            )
        if not agent.messages:  # nothing cached yet: the prompt may list the servers' tools too
            agent.system_prompt = build_system_prompt(self.cwd, agent.tools.specs(), compact=agent.compact)

    async def _unless_esc(self, work: Coroutine[Any, Any, T]) -> T | None:
        """``work``'s result, or None when Esc comes first while the run is prepared (``work`` is cancelled): the
        first request gives starting MCP servers up to mcp's request wait (10 s), which Esc does not sit out."""
        esc = self._esc_early
        task = asyncio.ensure_future(work)
        if esc is None:
            return await task
        stop = asyncio.ensure_future(esc.wait())
        try:
            await asyncio.wait({task, stop}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stop.cancel()
            if not task.done():
                task.cancel()
                await asyncio.wait({task})  # its own cancellation, never raised here
        return None if task.cancelled() else task.result()

    def abort(self) -> None:
        if self._preparing:  # the agent's run has not begun: it would start afresh and forget this Esc
            self._aborted_early = True
            if self._esc_early is not None:
                self._esc_early.set()
        self.agent.abort()

    def compact(self, instructions: str | None = None) -> AsyncGenerator[AgentEvent, None]:
        """``/compact``: summarise older history now (or before the next request while a run is going)."""
        from navtui.agent.context_requests import compact_now

        return compact_now(self, instructions)

    def hand_over(self, instructions: str | None = None) -> AsyncGenerator[AgentEvent, None]:
        """``/handover``: the model writes notes, the context restarts from them, and work goes on."""
        from navtui.agent.context_requests import request_handover

        return request_handover(self, instructions)

    async def summarize_branch(self, entries: list[Entry], *, instructions: str | None = None) -> str:
        """The model's summary of a branch being left (``agent/branch_summary.py``); raises ``NavtuiError``."""
        from navtui.agent.branch_summary import summarize_branch

        window = self.model_info.context_window if self.model_info is not None else None
        return await summarize_branch(self.provider, entries, instructions=instructions, window=window)

    # ------------------------------------------------------------------ model and provider
    @property
    def thinking_level(self) -> str:
        """off, minimal, low, medium, high or xhigh (pi's names): what the prompt border shows."""
        return self.models.thinking_level

    def set_thinking_level(self, level: str) -> None:
        self.agent.think = self.models.set_thinking_level(level)
        self.sessions.record_thinking_level(level)

    async def check_provider(self) -> ProviderStatus:
        status, old = await self.models.check(may_fall_back=not self.running)
        if old is not None:
            await self._provider_replaced(old)
        elif status.ok:
            self._fit_window()
        return status

    async def _provider_replaced(self, old: Provider) -> None:
        """The models' provider changed (its facts fetched): the agent follows, and ``old`` is closed."""
        self.agent.provider = self.provider
        self._fit_window()
        await old.aclose()

    def _fit_window(self, *, announce: bool = True) -> None:
        from navtui.agent.window import fit_window

        fit_window(self, announce=announce)

    async def list_models(self) -> list[str]:
        return await self.provider.list_models()

    async def describe_models(self) -> list[ListedModel]:
        return await self.provider.describe_models()

    def pull_model(self, name: str) -> AsyncIterator[PullProgress]:
        """Download ``name`` on this provider's server (Ollama), step by step; raises ProviderError elsewhere."""
        return self.provider.pull(name)

    async def switch_model(self, model: str, provider: str | None = None) -> None:
        """Switch model (and provider, detected from the name unless given); history is kept."""
        if self.running:
            raise NavtuiError("Cannot switch model while the agent is working", hint="press Esc first")
        old = self.models.switch(model, provider)
        self.agent.provider = self.provider
        if self.agent.compact:  # the new model's window decides afresh
            self._rebuild_agent(self.agent.messages)
        self.agent.budget.window = self.settings.providers.context_window
        self.agent.budget.reset()
        self.sessions.record_model_change(
            self.provider.name, self.provider.model, getattr(self.provider, "base_url", None) or None
        )
        await old.aclose()

    async def adopt_session_model(self) -> Notice | None:
        """After a resume: continue on the model and thinking level the session used; what to tell the user."""
        context = self.sessions.context()
        if context is None:
            return None
        if context.thinking_level_recorded and context.thinking_level != self.thinking_level:
            self.set_thinking_level(context.thinking_level)
        notice, old = await self.models.adopt(context)
        if old is not None:
            await self._provider_replaced(old)
        return notice

    # ------------------------------------------------------------------ session
    def new_session(self) -> None:
        """/new: a fresh session file, an empty context, and the spend counters back at zero."""
        self.sessions.new(self.cwd)
        self._rebuild_agent([])
        self.agent.usage_total = Usage()
        self.handover_count = 0

    def clear(self) -> None:
        """/clear: an empty context in the same session file (the next entry starts a new root)."""
        self.sessions.clear()
        self._rebuild_agent([])

    def reload_from_session(self) -> None:
        """After tree navigation or a resume: the model context is rebuilt from the session's leaf."""
        self._rebuild_agent(None)

    def switch_session(self, session: SessionManager) -> None:
        """/branch and /resume: continue in ``session`` (a SessionManager); the context is rebuilt from its leaf."""
        if self.running:
            raise NavtuiError("Cannot switch sessions while the agent is working", hint="press Esc first")
        self.sessions.switch(session)
        self._rebuild_agent(None)

    def set_session_name(self, name: str) -> None:
        self.sessions.set_name(name)

    def path_entries(self) -> Sequence[Entry]:
        """The session entries from the root to the current leaf (what the transcript shows)."""
        return self.sessions.path_entries()

    # ------------------------------------------------------------------ advisor
    @property
    def advisor_on(self) -> bool:
        return self.advisors.on

    def start_advisor(self, model: str | None = None, *, seed: bool = True) -> Advisor:
        return self.advisors.start(model, self.agent.messages if seed else None)

    async def stop_advisor(self) -> None:
        await self.advisors.stop()

    # ------------------------------------------------------------------ settings for this session
    def set_approval(self, mode: ApprovalMode) -> None:
        if mode not in ("ask", "write", "yolo"):
            raise NavtuiError(f"Unknown approval mode '{mode}'", hint="use ask, write or yolo")
        self.settings.approval = mode
        self.policy.mode = mode

    def set_sandbox(self, mode: str) -> str:
        """``/sandbox MODE`` for the rest of this session (settings are not changed). Returns what to show."""
        from navtui.tools.sandbox.policy import MODES, policy_from_settings

        if mode not in MODES:
            raise NavtuiError(f"Unknown sandbox mode '{mode}'", hint="use " + ", ".join(MODES))
        policy = policy_from_settings(self.settings, self.ctx.workspace.roots, mode=mode)
        self.ctx.sandbox = policy
        return policy.describe()

    # ------------------------------------------------------------------ reporting
    def last_answer(self) -> str:
        for message in reversed(self.agent.messages):
            if isinstance(message, AssistantMessage) and message.text.strip():
                return message.text
        return ""

    def status(self, *, with_git: bool = True) -> StatusInfo:
        from navtui.agent.status import status_info

        return status_info(
            self.cwd,
            self.agent,
            self.provider,
            self.ctx,
            self.policy,
            session=self.session,
            mcp=self.mcp,
            handover_count=self.handover_count,
            advisor_on=self.advisor_on,
            with_git=with_git,
        )

    def context_usage(self) -> ContextUsage:
        """What the context holds, in numbers (``/context`` words them). Reads context files: call it off the loop."""
        from navtui.agent.status import context_usage

        return context_usage(self.cwd, self.agent, self.provider, self.tools, mcp=self.mcp)

    # ------------------------------------------------------------------ lifetime
    async def aclose(self) -> None:
        try:
            if self.mcp is not None:
                await self.mcp.aclose()
            await self.advisors.stop()
            await self.provider.aclose()
        finally:
            await self.network.aclose()  # whatever still ran there is cancelled; the thread is gone after this
        kill_all = getattr(self.ctx.jobs, "kill_all", None)
        if kill_all is not None:
            result = kill_all()
            if hasattr(result, "__await__"):
                await result
        if self.checkpoints is not None:
            await asyncio.to_thread(self.checkpoints.close)
        self.sessions.close()


def held_model_error(held: HeldModel, settings: Settings) -> ConfigError:
    """Why a headless run does not start on a repository's model choice, and the flag that decides it."""
    from navtui.config.paths import user_settings_path

    if held.path == "model":
        hint = f"to use it, run with -m {held.value}; to keep yours, run with -m {settings.model or DEFAULT_MODEL}"
    else:
        hint = f"to use it, set {held.path} in {user_settings_path()}, or allow it once in navtui (it asks)"
    return ConfigError(f"{held.describe()}. A repository may only choose among the models of your endpoint", hint=hint)
