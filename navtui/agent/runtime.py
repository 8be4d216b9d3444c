"""The runtime: everything one navtui session needs, built from settings and launch options.

The UI and the headless modes both talk to a ``Runtime``; it owns the provider, tools, session file and
agent, and knows how to switch model, start afresh, and report status.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from navtui.agent.attachments import attach_files
from navtui.agent.loop import Agent
from navtui.agent.prompt import build_system_prompt
from navtui.config.context_files import context_file_warnings
from navtui.config.launch import LaunchOptions
from navtui.config.settings import Settings, load_settings
from navtui.core.errors import NavtuiError
from navtui.core.events import CompactionFinished, Handover, Notice, TurnFinished
from navtui.core.messages import AssistantMessage, ToolResultMessage, Usage, UserMessage
from navtui.providers.base import AnyMessage, ListedModel, ModelInfo, Provider, PullProgress
from navtui.tools.approval import ApprovalPolicy, Approver, DenyingApprover
from navtui.tools.base import ToolContext, ToolRegistry

if TYPE_CHECKING:
    from navtui.agent.advisor import Advisor
    from navtui.agent.hooks import CompositeHooks
    from navtui.agent.resume import ModelChoice
    from navtui.core.events import AgentEvent
    from navtui.mcp.manager import McpManager
    from navtui.session.entries import Entry
    from navtui.session.manager import SessionManager

DEFAULT_MODEL = "qwen2.5-coder:7b"
Role = Literal["user", "assistant", "toolResult"]
ROLES: tuple[Role, ...] = ("user", "assistant", "toolResult")
ApprovalMode = Literal["ask", "write", "yolo"]


@dataclass
class ProviderStatus:
    ok: bool
    message: str = ""
    hint: str | None = None
    notice: str | None = None  # e.g. the resumed session's model was unreachable and another was chosen
    kind: str | None = None  # the error's kind when not ok: "not_found" (a model to pull), "auth", "connection" …


@dataclass
class ContextUsage:
    """What the context holds: the numbers behind ``/context``."""

    model: str
    window: int | None
    used: int
    system_tokens: int
    tools: list[str]
    context_files: list[str]
    messages: dict[Role, int] = field(default_factory=lambda: dict.fromkeys(ROLES, 0))
    message_tokens: dict[Role, int] = field(default_factory=lambda: dict.fromkeys(ROLES, 0))
    mcp_tokens: dict[str, int] = field(default_factory=dict)  # each MCP server's tool schemas, in every request


@dataclass
class StatusInfo:
    cwd: str
    git_branch: str | None
    git_dirty: bool
    provider: str
    model: str
    context_tokens: int
    context_window: int | None
    tokens_in: int
    tokens_out: int
    cost: float | None
    approval: str
    handover_count: int
    advisor_on: bool
    session_name: str | None = None
    mcp: str | None = None  # MCP servers starting, failed or waiting for approval
    sandbox: str = ""  # the sandbox label: workspace-write, read-only(+net), off (off! when it degraded)
    git_staged: int = 0
    git_unstaged: int = 0
    git_untracked: int = 0
    background_jobs: int = 0


class Runtime:
    def __init__(
        self,
        options: LaunchOptions,
        settings: Settings,
        warnings: list[str],
        approver: Approver | None,
    ) -> None:
        self.options = options
        self.cwd = options.cwd.resolve()
        self.settings = settings
        self.warnings = warnings
        self.approver: Approver = approver or DenyingApprover()
        self.model_info: ModelInfo | None = None
        self.pending_notices: list[AgentEvent] = []  # said at the start of the next run (window facts)
        self.session: SessionManager | None = None
        self.handover_count = 0
        self.advisor: Advisor | None = None
        self.model_recorded = False  # the session says which model and thinking level this run is on
        self._advisor_events: list[AgentEvent] = []
        # Called with advisor events that arrive while the agent is idle (the UI wakes the agent on a concern).
        self.background_listener: Callable[[AgentEvent], None] | None = None
        self.session = self._open_session()
        self.model_choice = self._choose_model()
        self.provider = self._start_provider()
        self.tools = self._build_tools()
        self.mcp = self._build_mcp()  # started later, on the event loop (never before the first frame)
        self._mcp_compact_said = False
        # One policy object: /approval changes what the agent enforces and what the tools see.
        self.policy = ApprovalPolicy.from_settings(settings)
        self.ctx = self._build_context()
        self.agent = self._build_agent()
        if settings.advisor.enabled and settings.model_roles.get("advisor"):
            self.start_advisor(seed=True)

    # ------------------------------------------------------------------ construction
    @classmethod
    def create(cls, options: LaunchOptions, *, approver: Approver | None = None) -> Runtime:
        loaded = load_settings(options.cwd, options.overrides())
        warnings = list(loaded.warnings)
        warnings.extend(_recover_interrupted_writes())
        warnings.extend(context_file_warnings(options.cwd))
        warnings.extend(_housekeeping(loaded.settings))
        runtime = cls(options, loaded.settings, warnings, approver)
        if runtime.ctx.sandbox is not None and runtime.ctx.sandbox.warning:
            runtime.warnings.append(runtime.ctx.sandbox.warning)
        return runtime

    def _choose_model(self) -> ModelChoice:
        from navtui.agent.resume import choose_model, think_setting

        session = self.session
        context = session.build_context() if session is not None and session.leaf_id is not None else None
        choice = choose_model(context, self.options, self.settings, DEFAULT_MODEL)
        if choice.thinking_level is not None:
            self.settings.providers.think = think_setting(choice.thinking_level)
        if choice.notice:
            self.warnings.append(choice.notice)
        return choice

    def _start_provider(self) -> Provider:
        choice = self.model_choice
        if not choice.restored:
            return self._build_provider(choice.model, choice.provider, self.settings.base_url)
        # The session's own model: the configured endpoint only when it serves that provider.
        return self._build_provider(choice.model, choice.provider, None)

    @property
    def thinking_level(self) -> str:
        """off, minimal, low, medium, high or xhigh (pi's names): what the prompt border shows."""
        from navtui.agent.resume import level_of

        return self.model_choice.thinking_level or level_of(self.settings.providers.think)

    def set_thinking_level(self, level: str) -> None:
        from navtui.agent.resume import think_setting
        from navtui.config.launch import THINKING_LEVELS

        if level not in THINKING_LEVELS:
            raise NavtuiError(f"Unknown thinking level '{level}'", hint="use one of: " + ", ".join(THINKING_LEVELS))
        self.model_choice.thinking_level = level
        self.settings.providers.think = think_setting(level)
        self.agent.think = self.settings.providers.think
        if self.session is not None and self.session.leaf_id is not None:
            self.session.append_thinking_level_change(level)

    def _build_provider(self, model: str, provider: str | None, base_url: str | None) -> Provider:
        from navtui.providers.registry import build_provider

        return build_provider(self.settings, model=model, provider=provider, base_url=base_url)

    def _build_tools(self) -> ToolRegistry:
        from navtui.tools.registry import default_tools

        return default_tools(self.settings, self.cwd)

    def _build_mcp(self) -> McpManager | None:
        from navtui.mcp.manager import build_manager

        return build_manager(
            self.cwd, self.settings, self.tools, self._artifacts_dir(), trust_project=self.options.mcp_trust
        )

    def _build_context(self) -> ToolContext:
        from navtui.tools.registry import make_context

        return make_context(self.cwd, self.settings, self._artifacts_dir(), policy=self.policy, approver=self.approver)

    def _artifacts_dir(self) -> Path:
        from navtui.config.paths import navtui_home

        return navtui_home() / "artifacts"

    def _open_session(self) -> SessionManager | None:
        if self.options.ephemeral:
            return None
        from navtui.session.manager import SessionManager

        session = None
        if self.options.resume:
            session = SessionManager.open(SessionManager.resolve(self.cwd, self.options.resume))
        elif self.options.continue_session:
            session = SessionManager.continue_recent(self.cwd)
            if session is None:
                self.warnings.append("No earlier session in this directory; starting a new one.")
        if session is None:
            return SessionManager.create(self.cwd)
        self.warnings.extend(session.warnings)
        if session.read_only_reason:
            # Never write into a file we cannot read properly: continue its history in a new file.
            branched = session.create_branched_session(session.leaf_id)
            self.warnings.append(
                f"{session.path.name} cannot be appended to ({session.read_only_reason}); "
                f"continuing in a new session file {branched.path.name}."
            )
            return branched
        return session

    def _build_agent(self, messages: list[AnyMessage] | None = None) -> Agent:
        handover_notes = None
        if messages is None and self.session is not None:
            context = self.session.build_context()
            messages = list(context.messages)
            handover_notes = context.handover_notes
        hooks = self._build_hooks(handover_notes)  # first: it may add the handover tool the prompt lists
        agent = Agent(
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
        return agent

    def _build_hooks(self, handover_notes: str | None) -> CompositeHooks:
        from navtui.agent.advisor import AdvisorHooks
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
        from navtui.agent.check import CheckHooks

        agent = self.settings.agent
        check = CheckHooks(self.cwd, agent.check_command, agent.check_rounds)
        return CompositeHooks([context, files, AdvisorHooks(lambda: self.advisor), IndexHooks(self.cwd), check])

    # ------------------------------------------------------------------ running
    @property
    def running(self) -> bool:
        return self.agent.running

    async def run(self, prompt: str | None) -> AsyncGenerator[AgentEvent, None]:
        """Run the agent on ``prompt`` (``None`` continues); the files it attaches or names go with it."""
        if self.model_info is None:
            await self._load_model_info()
        while self.pending_notices:
            yield self.pending_notices.pop(0)
        async for notice in self._mcp_before_run():
            yield notice
        words = prompt  # what the user wrote: the index is asked about it, not about the files attached
        if prompt is not None:
            attached = await asyncio.to_thread(
                attach_files,
                prompt,
                self.cwd,
                window=self.agent.budget.window,
                named=self.settings.tools.auto_attach,
                seen=self.ctx.file_state.record,
            )
            for notice in attached.notices():
                yield notice
            prompt = attached.text
            if self.mcp is not None:  # @server:uri: an MCP server's resource goes with the prompt
                from navtui.mcp.resources import attach_resources

                resources = await attach_resources(prompt, self.mcp)
                for problem in resources.problems:
                    yield Notice(text=problem, level="warning")
                if resources.attached:
                    yield Notice(text=f"Attached {', '.join('@' + name for name in resources.attached)}.", level="info")
                prompt = resources.text
        if prompt:
            from navtui.agent.resume import record_model

            record_model(self)  # a session is never named here: its title is its first prompt until /name
        sync = self.settings.advisor.sync_backlog
        if prompt and not any(isinstance(m, UserMessage) for m in self.agent.messages):
            injected = await self._index_context(words or prompt)
            if injected is not None:
                yield injected
        async for event in self.agent.run(prompt):
            yield event
            while self._advisor_events:
                yield self._advisor_events.pop(0)
            advisor = self.advisor
            if advisor is None:
                continue
            match event:
                case CompactionFinished() | Handover():  # the history it reviewed is gone
                    advisor.reset()
                case TurnFinished():
                    advisor.on_turn_end(self.agent.messages)
                    if sync != "off":
                        await advisor.wait_for_catch_up(int(sync))
        while self._advisor_events:
            yield self._advisor_events.pop(0)

    async def _index_context(self, prompt: str) -> AgentEvent | None:
        """The first prompt of a session: the repository index's best chunks join the context first."""
        from navtui.agent.repo_index import context_message, index_context

        try:
            event = await index_context(self.cwd, prompt, self.settings.index.inject, self.agent.budget.window)
        except Exception as exc:  # the index is a help, never a reason not to answer
            return Notice(text=f"Repository index unavailable: {exc}", level="warning")
        if event is None:
            return None
        self.agent.messages.append(context_message(event))
        if self.session is not None:
            self.session.append_custom_message("index_context", event.text, details={"files": event.files})
        return event

    def abort(self) -> None:
        self.agent.abort()

    async def _load_model_info(self) -> None:
        try:
            self.model_info = await self.provider.model_info()
        except NavtuiError:
            self.model_info = None
            return
        self._fit_window()

    async def check_provider(self) -> ProviderStatus:
        try:
            self.model_info = await self.provider.model_info()
        except NavtuiError as exc:
            if self.model_choice.restored and not self.running:
                from navtui.agent.resume import fall_back

                return await fall_back(self, exc)
            return ProviderStatus(False, exc.message, exc.hint, kind=getattr(exc, "kind", None))
        self._fit_window()
        return ProviderStatus(True)

    def _fit_window(self, *, announce: bool = True) -> None:
        from navtui.agent.window import fit_window

        fit_window(self, announce=announce)

    async def replace_provider(self, provider: Provider, info: ModelInfo) -> None:
        """Run on ``provider`` from now on (its facts already fetched); the old one is closed."""
        old, self.provider = self.provider, provider
        self.agent.provider = provider
        self.model_info = info
        self._fit_window()
        await old.aclose()

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
        from navtui.providers.detect import detect_provider

        # Another model on the same server keeps its URL; a different provider takes that provider's endpoint.
        same_kind = (provider or detect_provider(model)) == self.provider.name
        base_url = self.provider.base_url if same_kind else None
        new_provider = self._build_provider(model, provider, base_url)
        old = self.provider
        self.provider = new_provider
        self.agent.provider = new_provider
        self.model_info = None
        if self.agent.compact:  # the new model's window decides afresh
            self._rebuild_agent(list(self.agent.messages))
        self.agent.budget.window = self.settings.providers.context_window
        self.agent.budget.reset()
        self.model_choice.restored = False
        if self.session is not None and self.session.leaf_id is not None:
            self.session.append_model_change(new_provider.name, new_provider.model)
            self.model_recorded = True
        await old.aclose()

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

    async def adopt_session_model(self) -> Notice | None:
        """After a resume: continue on the model and thinking level the session used; what to tell the user."""
        from navtui.agent.resume import adopt_session_model

        return await adopt_session_model(self)

    def new_session(self) -> None:
        """/new: a fresh session file, an empty context, and the spend counters back at zero."""
        if self.session is not None:
            from navtui.session.manager import SessionManager

            self.session = SessionManager.create(self.cwd)
        self.model_recorded = False
        self._rebuild_agent([])
        self.agent.usage_total = Usage()
        self.handover_count = 0

    def clear(self) -> None:
        """/clear: an empty context in the same session file (the next entry starts a new root)."""
        if self.session is not None:
            self.session.reset_leaf()
        self.model_recorded = False  # the next entry is a new root: it records the model again
        self._rebuild_agent([])

    def reload_from_session(self) -> None:
        """After tree navigation or a resume: the model context is rebuilt from the session's leaf."""
        self._rebuild_agent(None)

    def switch_session(self, session: SessionManager) -> None:
        """/branch and /resume: continue in ``session`` (a SessionManager); the context is rebuilt from its leaf."""
        if self.running:
            raise NavtuiError("Cannot switch sessions while the agent is working", hint="press Esc first")
        old, self.session = self.session, session
        if old is not None and old is not session:
            old.sync()
            old.close()
        self.model_recorded = False
        self._rebuild_agent(None)

    def _rebuild_agent(self, messages: list[AnyMessage] | None) -> None:
        usage = self.agent.usage_total
        window = self.agent.budget.window
        self.agent = self._build_agent(messages)
        self.agent.usage_total = usage
        self.agent.budget.window = window
        self._fit_window(announce=False)  # a small window keeps its compact prompt
        if self.advisor is not None:  # the primary history was replaced: the advisor starts over
            self.advisor.reset()

    # ------------------------------------------------------------------ advisor
    @property
    def advisor_on(self) -> bool:
        return self.advisor is not None

    def start_advisor(self, model: str | None = None, *, seed: bool = True) -> Advisor:
        from navtui.agent.advisor import Advisor
        from navtui.tools.registry import default_tools, make_context

        model = model or self.settings.model_roles.get("advisor")
        if not model:
            raise NavtuiError(
                "Advisor setting enabled, but no model is assigned to the 'advisor' role.",
                hint="use /advisor on MODEL, --advisor MODEL, or set model_roles.advisor in settings",
            )
        if self.advisor is not None:
            self.advisor.reset()
        provider = self._build_provider(model, None, None)
        self.advisor = Advisor(
            provider,
            cwd=self.cwd,
            tools=default_tools(self.settings),
            ctx=make_context(self.cwd, self.settings, self._artifacts_dir()),
            steer=lambda text: self.agent.steer(text),  # always the current agent, even after a rebuild
            emit=self._advisor_emit,
        )
        if seed:
            self.advisor.seed(self.agent.messages)
        return self.advisor

    def _advisor_emit(self, event: AgentEvent) -> None:
        if self.running or self.background_listener is None:
            self._advisor_events.append(event)
        else:
            self.background_listener(event)

    async def stop_advisor(self) -> None:
        if self.advisor is not None:
            advisor, self.advisor = self.advisor, None
            await advisor.aclose()

    async def _mcp_before_run(self) -> AsyncGenerator[Notice, None]:
        """Servers started (or given a moment to); failures not shown yet; whether their schemas fit."""
        if self.mcp is None:
            return
        agent = self.agent
        # The compact prompt for small windows offers only the core tools: MCP schemas cost nothing there.
        for text, level in await self.mcp.before_request(None if agent.compact else agent.budget.window):
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

    async def start_mcp(self) -> None:
        """Start the configured MCP servers (the app calls it after its first frame; a run does it anyway)."""
        if self.mcp is not None:
            await self.mcp.start()

    async def aclose(self) -> None:
        if self.mcp is not None:
            await self.mcp.aclose()
        await self.stop_advisor()
        await self.provider.aclose()
        kill_all = getattr(self.ctx.jobs, "kill_all", None)
        if kill_all is not None:
            result = kill_all()
            if hasattr(result, "__await__"):
                await result
        if self.session is not None:
            self.session.sync()

    # ------------------------------------------------------------------ reporting
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

    def set_session_name(self, name: str) -> None:
        if self.session is None:
            raise NavtuiError("This run has no session file to name")
        self.session.set_name(name)

    def last_answer(self) -> str:
        for message in reversed(self.agent.messages):
            if isinstance(message, AssistantMessage) and message.text.strip():
                return message.text
        return ""

    def path_entries(self) -> list[Entry]:
        """The session entries from the root to the current leaf (what the transcript shows)."""
        if self.session is None:
            return []
        return list(self.session.display_items())

    def status(self, *, with_git: bool = True) -> StatusInfo:
        from navtui.agent.git_status import GitStatus, git_status

        git = git_status(self.cwd) if with_git else GitStatus()
        total = self.agent.usage_total
        return StatusInfo(
            cwd=str(self.cwd),
            git_branch=git.branch,
            git_dirty=git.dirty,
            git_staged=git.staged,
            git_unstaged=git.unstaged,
            git_untracked=git.untracked,
            background_jobs=len(self.ctx.jobs.running()),
            provider=self.provider.name,
            model=self.provider.model,
            context_tokens=self.agent.budget.estimate(self.agent),
            context_window=self.agent.budget.window,
            tokens_in=total.input + total.cache_read + total.cache_write,
            tokens_out=total.output,
            cost=total.cost.total if total.cost else None,
            approval=self.policy.mode,
            handover_count=self.handover_count,
            advisor_on=self.advisor_on,
            session_name=self.session.name if self.session is not None else None,
            mcp=self.mcp.summary() if self.mcp is not None else None,
            sandbox=self.ctx.sandbox.label if self.ctx.sandbox is not None else "",
        )

    def context_usage(self) -> ContextUsage:
        """What the context holds, in numbers (``/context`` words them). Reads context files: call it off the loop."""
        from navtui.agent.budget import estimate_message_tokens, estimate_text_tokens
        from navtui.config.context_files import discover_context_files

        agent = self.agent
        usage = ContextUsage(
            model=self.provider.label,
            window=agent.budget.window,
            used=agent.budget.estimate(agent),
            system_tokens=estimate_text_tokens(agent.hooks.system_prompt(agent)),
            tools=self.tools.names(),
            context_files=[str(found.path) for found in discover_context_files(self.cwd)],
            mcp_tokens=self.mcp.tool_tokens() if self.mcp is not None else {},
        )
        for message in agent.messages:
            usage.messages[message.role] += 1
            usage.message_tokens[message.role] += estimate_message_tokens(message)
        return usage


def _housekeeping(settings: Settings) -> list[str]:
    """At start: stop what an earlier run left running, prune old shell output. Returns what to tell the user."""
    from navtui.tools.shell.artifacts import prune_artifacts
    from navtui.tools.shell.lifetime import sweep_leftovers

    notes = []
    stopped = sweep_leftovers()
    if stopped:
        notes.append(f"Stopped {stopped} process{'es' if stopped != 1 else ''} left by an earlier run.")
    from navtui.config.paths import navtui_home

    prune_artifacts(
        navtui_home() / "artifacts",
        max_age_days=settings.tools.artifacts_max_days,
        max_bytes=settings.tools.artifacts_max_mb * 1024 * 1024,
    )
    return notes


def _recover_interrupted_writes() -> list[str]:
    """Remove the temp files an earlier run left when it died mid-write, and journal this run's."""
    from navtui.config.paths import navtui_home
    from navtui.core.fs import open_temp_journal, recover_temp_files

    journal = navtui_home() / "journal"
    removed = recover_temp_files(journal)
    open_temp_journal(journal)
    if not removed:
        return []
    shown = ", ".join(str(path) for path in removed[:3]) + (f" and {len(removed) - 3} more" if len(removed) > 3 else "")
    return [f"Removed {len(removed)} temporary file(s) left by an interrupted write: {shown}"]


def history_is_valid(messages: list[AnyMessage]) -> bool:
    """Every assistant tool call is answered by a tool result before the next user or assistant message."""
    pending: set[str] = set()
    for message in messages:
        if isinstance(message, AssistantMessage):
            if pending:
                return False
            pending = {call.id for call in message.tool_calls}
        elif isinstance(message, ToolResultMessage):
            pending.discard(message.tool_call_id)
        elif isinstance(message, UserMessage) and pending:
            return False
    return not pending
