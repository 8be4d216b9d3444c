"""The main screen: transcript, queued messages, prompt and status line; runs the agent one turn at a time.

A turn is an async worker that iterates ``Runtime.run`` and hands each event to the ``EventRouter``. While it
runs, Enter queues (sent after the turn), Esc interrupts (the partial answer stays). One timer turns the
spinner, and it only exists while the agent works.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Static

from navtui.app import gc_policy
from navtui.app.commands import COMMANDS
from navtui.app.completion import Completion, complete_command, complete_path, expand_attachments
from navtui.app.events import EventRouter
from navtui.app.history import PromptHistory
from navtui.app.session_view import session_entries
from navtui.core.errors import NavtuiError
from navtui.core.events import CompactionStarted, Handover, TurnStarted, UsageUpdate
from navtui.core.messages import ToolCall
from navtui.widgets import spinner
from navtui.widgets.entries import ErrorEntry, NoticeEntry, ProviderHelpEntry, ToolEntry, WelcomeEntry
from navtui.widgets.prompt import PromptEditor
from navtui.widgets.status_line import StatusData, StatusLine
from navtui.widgets.transcript import Transcript

QUIT_CONFIRM_SECONDS = 2.0
RECLAIM_DELAY = 3.0  # idle seconds before a full garbage collection


_PROVIDER_SDKS = {"ollama": ("ollama", "httpx"), "anthropic": ("anthropic",), "openai": ("httpx", "httpx_sse")}


def preload_provider_sdk(provider: str) -> None:
    """Import the provider's SDK in a thread: importing ``anthropic`` or ``ollama`` takes 0.1-0.3 s."""
    import importlib

    for name in _PROVIDER_SDKS.get(provider, ()):
        try:
            importlib.import_module(name)
        except ImportError:
            pass  # the provider reports a missing SDK itself, with a hint


def provider_steps(provider: str, model: str) -> list[str]:
    """What to do when the provider cannot be reached, in the order a user would try it."""
    if provider == "ollama":
        return [
            "start Ollama: ollama serve",
            f"get the model: ollama pull {model}",
            "or pick another model: /model NAME or /models (ctrl+l)",
            "or use a hosted model: set ANTHROPIC_API_KEY (or OPENAI_API_KEY) and /model claude-sonnet-4-5",
        ]
    if provider == "anthropic":
        return [
            "set your key: export ANTHROPIC_API_KEY=… (then restart navtui)",
            "or use a local model: ollama serve, then /model qwen2.5-coder:7b",
        ]
    return [
        "set your key: export OPENAI_API_KEY=… (or NAVTUI_API_KEY), or point -b/--base-url at your server",
        "or use a local model: ollama serve, then /model qwen2.5-coder:7b",
    ]


class MainScreen(Screen[None]):
    BINDINGS = [
        Binding("escape", "interrupt", "Interrupt", show=False),
        Binding("ctrl+o", "toggle_details", "Expand tools", show=False),
        Binding("ctrl+l", "models", "Models", show=False),
        Binding("ctrl+t", "themes", "Themes", show=False),
        Binding("f1", "help", "Help", show=False),
        Binding("pageup", "scroll_transcript(-1)", show=False, priority=True),
        Binding("pagedown", "scroll_transcript(1)", show=False, priority=True),
    ]

    def __init__(self, runtime: Any, *, animate: bool = True, check_provider: bool = True) -> None:
        super().__init__()
        self._runtime = runtime
        self.animations = animate
        self.check_provider = check_provider
        self.queued: list[str] = []
        self.running = False
        self._interrupted = False
        self._spinner_timer: Any = None
        self._spinner_index = 0
        self._reclaim_timer: Any = None
        self._last_ctrl_c = 0.0
        self._last_escape = 0.0
        self._git: tuple[str | None, bool] = (None, False)
        history_path = None
        if not getattr(runtime.options, "ephemeral", False):
            from navtui.config.paths import history_path as _history_path

            history_path = _history_path()
        self.history = PromptHistory(history_path)
        window = getattr(getattr(runtime.settings, "ui", None), "mounted_entries", 100)
        self._transcript = Transcript(window=window, id="transcript")
        self._transcript.describe = self._describe_entry
        self.router = EventRouter(self._transcript, self.describe_call)

    # ------------------------------------------------------------------ CommandContext
    @property
    def runtime(self) -> Any:
        return self._runtime

    @property
    def transcript(self) -> Transcript:
        return self._transcript

    def notice(self, text: str, level: str = "info", title: str | None = None) -> None:
        self._transcript.add(NoticeEntry(text, level=level, title=title))  # type: ignore[arg-type]

    def error(self, message: str, hint: str | None = None) -> None:
        self._transcript.add(ErrorEntry(message, hint))

    def set_prompt(self, text: str) -> None:
        prompt = self.query_one(PromptEditor)
        prompt.load_text(text)
        prompt.move_cursor(prompt.document.end)
        prompt.focus()

    def clear_transcript(self) -> None:
        self._transcript.clear()

    def reload_transcript(self) -> None:
        """Show the session's current path again (after a resume or tree navigation)."""
        items = self._runtime.transcript_items()
        self._transcript.load(session_entries(items))
        self.refresh_status()

    # ------------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        yield self._transcript
        yield Static("", id="queued")
        yield PromptEditor(history=self.history, id="prompt")
        yield StatusLine(id="status")

    def on_mount(self) -> None:
        runtime = self._runtime
        prompt = self.query_one(PromptEditor)
        prompt.completer = self._complete
        prompt.cursor_blink = self.animations  # off for snapshot tests: a blinking cursor is not deterministic
        self.query_one("#queued", Static).display = False
        items = runtime.transcript_items()
        if items:
            self._transcript.load(session_entries(items))
        else:
            provider = runtime.provider
            self._transcript.add(WelcomeEntry(cwd=str(runtime.cwd), model=provider.model, provider=provider.name))
        for warning in runtime.warnings:
            self.notice(warning, level="warning")
        runtime.warnings.clear()
        self._show_status(runtime.status(with_git=False))
        prompt.focus()
        self._load_history()
        self.refresh_status()
        if self.check_provider:
            self.call_after_refresh(self._check_provider)  # after the first frame: it imports the provider SDK
        if getattr(runtime.options, "resume", None) == "" and COMMANDS.get("resume") is not None:
            self.run_worker(COMMANDS.run(self, "/resume"), group="command")  # navtui -r without an id: pick one
        initial = getattr(runtime.options, "prompt", None)
        if initial:
            self.call_after_refresh(self.submit, initial)

    @work(thread=True, exclusive=True, group="history")
    def _load_history(self) -> None:
        self.history.load()

    @work(exclusive=True, group="provider-check")
    async def _check_provider(self) -> None:
        await asyncio.to_thread(preload_provider_sdk, self._runtime.provider.name)
        status = await self._runtime.check_provider()
        if not status.ok:
            provider = self._runtime.provider
            self._transcript.add(
                ProviderHelpEntry(status.message, status.hint, provider_steps(provider.name, provider.model))
            )
        self.refresh_status()

    # ------------------------------------------------------------------ status
    def refresh_status(self) -> None:
        self._refresh_status()

    @work(exclusive=True, group="status")
    async def _refresh_status(self) -> None:
        info = await asyncio.to_thread(self._runtime.status)  # runs git: off the loop
        self._git = (info.git_branch, info.git_dirty)
        self._show_status(info)

    def _show_status(self, info: Any) -> None:
        data = StatusData(
            **{name: getattr(info, name) for name in StatusData.__dataclass_fields__ if hasattr(info, name)}
        )
        if data.git_branch is None and self._git[0] is not None:
            data.git_branch, data.git_dirty = self._git
        self.query_one(StatusLine).update_status(data)

    def _describe_entry(self, entry: ToolEntry) -> str:
        return self.describe_call(ToolCall(id=entry.call_id, name=entry.name, arguments=entry.arguments))

    def describe_call(self, call: ToolCall) -> str:
        """The title of a tool card: the tool's own one-line summary of its arguments."""
        tool = self._runtime.tools.get(call.name) if self._runtime.tools is not None else None
        if tool is not None:
            try:
                return tool.summary(tool.parse_args(call.arguments))
            except Exception:  # malformed arguments: fall back to the raw values
                pass
        values = [str(v) for v in call.arguments.values() if isinstance(v, str | int | float)]
        return (values[0] if values else "")[:200]

    # ------------------------------------------------------------------ the prompt
    @on(PromptEditor.Submitted)
    def _on_submitted(self, event: PromptEditor.Submitted) -> None:
        if event.new_in_history:
            self.run_worker(asyncio.to_thread(self.history.save, event.text), group="history-save")
        self.submit(event.text)

    def submit(self, text: str) -> None:
        stripped = text.strip()
        if stripped.startswith("/") and not stripped.startswith("//"):
            self.run_worker(COMMANDS.run(self, stripped), group="command")
            return
        if stripped.startswith("//"):
            text = text.lstrip()[1:]  # "//" sends a message that starts with "/"
        if self.running:
            self.queued.append(text)
            self._show_queue()
            return
        self._start_turn(text)

    def _show_queue(self) -> None:
        bar = self.query_one("#queued", Static)
        bar.display = bool(self.queued)
        if self.queued:
            first = self.queued[0].strip().splitlines()[0]
            more = f"  (+{len(self.queued) - 1} more)" if len(self.queued) > 1 else ""
            bar.update(Text(f"queued: {first[:200]}{more} · sent after this turn"))

    @on(PromptEditor.QuitRequested)
    def _on_quit_requested(self, event: PromptEditor.QuitRequested) -> None:
        now = time.monotonic()
        if not event.confirm or now - self._last_ctrl_c < QUIT_CONFIRM_SECONDS:
            self.app.exit()
            return
        self._last_ctrl_c = now
        self.app.notify("Press ctrl+c again to quit", timeout=QUIT_CONFIRM_SECONDS)

    @on(PromptEditor.Choices)
    def _on_choices(self, event: PromptEditor.Choices) -> None:
        shown = "  ".join(event.choices[:20]) + ("  …" if len(event.choices) > 20 else "")
        self.app.notify(shown, title="Tab", timeout=4, markup=False)

    async def _complete(self, line: str, cursor: int) -> Completion | None:
        found = complete_command(line, cursor, COMMANDS.names())
        if found is not None:
            return found
        return await asyncio.to_thread(complete_path, line, cursor, self._runtime.cwd)

    # ------------------------------------------------------------------ running the agent
    def _start_turn(self, text: str) -> None:
        self.running = True
        self._interrupted = False
        self._set_working(True)
        self._run_turn(text)

    @work(exclusive=True, group="agent")
    async def _run_turn(self, text: str | None) -> None:
        runtime = self._runtime
        try:
            if text is not None:
                text, attached, problems = await asyncio.to_thread(expand_attachments, text, runtime.cwd)
                for problem in problems:
                    self.notice(problem, level="warning")
            status = self.query_one(StatusLine)
            async for event in runtime.run(text):
                self.router.handle(event)
                if isinstance(event, UsageUpdate | Handover):
                    self._show_status(runtime.status(with_git=False))
                elif isinstance(event, TurnStarted):
                    status.set_working(True, "working")
                elif isinstance(event, CompactionStarted):
                    status.set_working(True, "compacting")
        except NavtuiError as exc:
            self.error(exc.message, exc.hint)
        except Exception as exc:  # a bug in one turn must not take the app down; show it and carry on
            self.error(f"Unexpected error: {type(exc).__name__}: {exc}", "this is a bug in navtui; please report it")
        finally:
            self.router.finish_streams()
            self.running = False
            self._set_working(False)
            self.refresh_status()
            if self.queued and self._interrupted:
                self._return_queue_to_prompt()
            elif self.queued:
                next_text = self.queued.pop(0)
                self._show_queue()
                self.call_later(self._start_turn, next_text)

    def _return_queue_to_prompt(self) -> None:
        """After Esc the user is changing course: queued messages come back for editing, they are not sent."""
        prompt = self.query_one(PromptEditor)
        texts = [*self.queued, prompt.text] if prompt.text.strip() else list(self.queued)
        self.queued.clear()
        self._show_queue()
        self.set_prompt("\n\n".join(texts))

    def _set_working(self, working: bool) -> None:
        status = self.query_one(StatusLine)
        status.set_working(working, "working" if working else "")
        if working:
            if self._reclaim_timer is not None:
                self._reclaim_timer.stop()
                self._reclaim_timer = None
            if self.animations and self._spinner_timer is None:
                self._spinner_timer = self.set_interval(spinner.INTERVAL, self._spin, name="spinner")
        else:
            if self._spinner_timer is not None:
                self._spinner_timer.stop()
                self._spinner_timer = None
            self._reclaim_timer = self.set_timer(RECLAIM_DELAY, self._reclaim, name="gc-reclaim")

    def show_waiting(self, waiting: bool) -> None:
        """The agent waits for an approval (the modal is open)."""
        if self.running:
            self.query_one(StatusLine).set_working(True, "waiting for approval" if waiting else "working")

    def _spin(self) -> None:
        self._spinner_index += 1
        index = self._spinner_index
        self.query_one(StatusLine).tick(index)
        for card in self.router.pending_cards:
            card.tick(index)
        if index % 10 == 0:
            gc_policy.freeze()  # see gc_policy: keeps full collections from stalling frames while streaming

    def _reclaim(self) -> None:
        self._reclaim_timer = None
        if not self.running:
            gc_policy.reclaim()

    # ------------------------------------------------------------------ actions
    def action_interrupt(self) -> None:
        if self.running:
            self._interrupted = True
            self._runtime.abort()
            self.query_one(StatusLine).set_working(True, "interrupting")
            return
        now = time.monotonic()
        prompt = self.query_one(PromptEditor)
        if not prompt.text and now - self._last_escape < 0.5 and COMMANDS.get("tree") is not None:
            self._last_escape = 0.0
            from navtui.app.tree_commands import double_escape  # ui.double_escape_action: tree|branch|none

            double_escape(self)
            return
        self._last_escape = now

    def action_toggle_details(self) -> None:
        self._transcript.toggle_details()

    def action_models(self) -> None:
        self.run_worker(COMMANDS.run(self, "/models"), group="command")

    def action_themes(self) -> None:
        if COMMANDS.get("theme") is not None:
            self.run_worker(COMMANDS.run(self, "/theme"), group="command")
        else:
            self.notice("Themes are not available in this build.", level="warning")

    def action_help(self) -> None:
        self.run_worker(COMMANDS.run(self, "/help"), group="command")

    def action_scroll_transcript(self, direction: int) -> None:
        if direction < 0:
            self._transcript.scroll_page_up()
        else:
            self._transcript.scroll_page_down()
