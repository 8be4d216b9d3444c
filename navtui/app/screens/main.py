"""The main screen: transcript, queued messages, prompt and status line; runs the agent one turn at a time.

A turn is an async worker that iterates ``Runtime.run`` and hands each event to the ``EventRouter``. While it
runs, Enter queues (sent after the turn), Esc interrupts (the partial answer stays). One timer turns the
spinner, and it only exists while the agent works.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import time
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widget import Widget
from textual.widgets import Static
from textual.worker import get_current_worker

from navtui.app import gc_policy
from navtui.app.approver import ApprovalWaiting
from navtui.app.commands import COMMANDS
from navtui.app.completion import (
    Completion,
    argument_prefix,
    completable,
    complete_argument,
    complete_command,
    complete_path,
    complete_resource,
)
from navtui.app.compositor import DiffingCompositor
from navtui.app.history import PromptHistory
from navtui.app.local_echo import prompt_as_predicted
from navtui.app.turns import TurnRunner, TurnScreen
from navtui.config.launch import THINKING_LEVELS
from navtui.widgets.completion_menu import CompletionMenu
from navtui.widgets.items import ErrorItem, Level, NoticeItem, ProviderHelpItem, ToolItem, TranscriptItem, WelcomeItem
from navtui.widgets.pacing import pacer_of
from navtui.widgets.prompt import PromptEditor
from navtui.widgets.status_line import StatusData, StatusLine
from navtui.widgets.transcript import Transcript

if TYPE_CHECKING:
    from navtui.agent.status import StatusInfo
    from navtui.app.commands import SlashCommand
    from navtui.app.commands.custom import CommandFolders, CustomCommand
    from navtui.app.events import EventRouter
    from navtui.app.file_finder import FileList
    from navtui.app.palette import CommandChosen
    from navtui.app.startup import FirstFrameSettings
    from navtui.app.ui_runtime import UiRuntime
    from navtui.config.launch import LaunchOptions
    from navtui.config.settings import Settings
    from navtui.core.events import AgentEvent
    from navtui.core.messages import ToolCall

QUIT_CONFIRM_SECONDS = 2.0
_MODE_TITLES = {  # the prompt's border says what Enter will do with a ! or $ line (!! and $$: kept from the model)
    ("bash", False): "! shell command: runs here, the model sees its output",
    ("python", False): "$ Python: runs here, the model sees its output",
    ("bash", True): "!! shell command: runs here, the model does not see it",
    ("python", True): "$$ Python: runs here, the model does not see it",
}
ARGUMENTS_FRESH_SECONDS = 30.0  # how long a command's argument list (model names ...) is reused while typing


_PROVIDER_SDKS = {"ollama": ("httpx",), "anthropic": ("anthropic",), "openai": ("httpx", "httpx_sse")}


def preload_provider_sdk(provider: str) -> None:
    """Import the provider's SDK in a thread: importing ``anthropic`` or ``ollama`` takes 0.1-0.3 s."""
    import importlib

    for name in _PROVIDER_SDKS.get(provider, ()):
        importlib.import_module(name)


# The longest the end of a turn waits for its frame (``painted``): the frame goes out once the screen has the
# widgets' refreshes, a few ms; this only bounds a frame that never comes (the app closing).
PAINT_WAIT = 0.1
INSTALLED_SHOWN = 8  # installed models named in the help card when the model asked for is not there


def provider_steps(provider: str, model: str, *, installed: list[str] | None = None) -> list[str]:
    """What to do when the provider cannot be reached, in the order a user would try it.

    ``installed``: the server answered but has no such model; these are the ones it has."""
    if installed is not None:
        names = ", ".join(installed[:INSTALLED_SHOWN]) + (" …" if len(installed) > INSTALLED_SHOWN else "")
        steps = [f"switch to an installed model: /model NAME ({names or 'none installed yet'})"]
        if provider == "ollama":
            steps.insert(0, f"get the model: /models pull {model} (or ollama pull {model})")
        return [*steps, "or pick one from the list: /models (ctrl+l)"]
    if provider == "ollama":
        return [
            "start Ollama: ollama serve",
            f"get the model: /models pull {model} (or ollama pull {model})",
            "or pick another model: /model NAME or /models (ctrl+l)",
            "or use a hosted model: set ANTHROPIC_API_KEY (or OPENAI_API_KEY) and /model claude-sonnet-4-6",
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


class MainScreen(TurnScreen):
    BINDINGS = [
        Binding("escape", "interrupt", "Interrupt", show=False),
        Binding("ctrl+c", "copy_or_interrupt", "Interrupt", show=False),  # the prompt handles its own ctrl+c
        Binding("ctrl+o", "toggle_details", "Expand tools", show=False),
        Binding("ctrl+l", "models", "Models", show=False),
        Binding("ctrl+t", "themes", "Themes", show=False),
        Binding("shift+tab", "next_thinking_level", "Thinking", show=False, priority=True),
        Binding("f1", "help", "Help", show=False),
        Binding("ctrl+r", "search_history", "Search prompts", show=False),
        Binding("pageup", "scroll_transcript(-1)", show=False, priority=True),
        Binding("pagedown", "scroll_transcript(1)", show=False, priority=True),
    ]
    # Focused as soon as the screen is composed, before any queued key is handed out: keys typed while navtui
    # starts go to the prompt (Textual's default focused the transcript first; the prompt's focus came too late).
    AUTO_FOCUS = "#prompt"

    def __init__(
        self,
        runtime: UiRuntime | None,
        *,
        options: LaunchOptions | None = None,
        settings: Settings | FirstFrameSettings | None = None,
        animate: bool = True,
        check_provider: bool = True,
    ) -> None:
        """``runtime`` may be ``None`` while it is still being built (``runtime_ready`` hands it over);
        ``options`` and ``settings`` then describe the start until it arrives."""
        super().__init__()
        # A partial update renders only the rows it sends; a frame writes only the cells that changed.
        self._diffing = DiffingCompositor()
        self._compositor = self._diffing
        self._runtime = runtime
        if runtime is not None:
            options, settings = runtime.options, runtime.settings
        assert options is not None and settings is not None, "without a runtime, options and settings are needed"
        self._options: LaunchOptions = options
        self._settings: Settings | FirstFrameSettings = settings
        self.animations = animate
        self.check_provider = check_provider
        self._activity = False  # a command's task runs (set_activity)
        self._opening: set[str] = set()  # a picker's command on its way to push its screen (_open_once)
        self._cancel_activity: Callable[[], None] | None = None
        self._last_ctrl_c = 0.0
        self._last_escape = 0.0
        self._git: tuple[str | None, bool, int, int, int] = (None, False, 0, 0, 0)
        history_path = None
        if not self._options.ephemeral:
            from navtui.config.paths import history_path as _history_path

            history_path = _history_path()
        self.history = PromptHistory(history_path)
        self._transcript = Transcript(window=self._settings.ui.mounted_entries, id="transcript")
        self._transcript.describe = self._describe_item
        self.turns = TurnRunner(self)
        self._arguments: dict[str, tuple[float, list[str]]] = {}
        self._files: FileList | None = None  # the fuzzy finder's file list for @ completion
        self._command_folders: CommandFolders | None = None  # custom command files, once read
        self.composed = asyncio.Event()  # set once the first frame's widgets are all mounted
        self._paint_waiters: list[asyncio.Future[None]] = []  # ``painted`` callers: the next idle paints at once
        self._prompt: PromptEditor | None = None  # composed once; the screen is never recomposed
        self._border_for: tuple[str | None, bool, str] | None = None  # (mode, kept from the model, level) shown

    @property
    def running(self) -> bool:
        """A turn is running (messages sent now are queued)."""
        return self.turns.running

    @property
    def settings_ui(self) -> object:
        """The ``ui`` settings (only the first frame's few until the runtime is ready)."""
        return self._settings.ui

    @property
    def queued(self) -> list[str]:
        return self.turns.queued

    @property
    def router(self) -> EventRouter:
        return self.turns.router

    # ------------------------------------------------------------------ CommandContext
    @property
    def runtime(self) -> UiRuntime:
        """The runtime (commands and turns only run once it is ready: ``submit`` queues until then)."""
        assert self._runtime is not None, "the runtime is still being built"
        return self._runtime

    @property
    def transcript(self) -> Transcript:
        return self._transcript

    def notice(self, text: str, level: Level = "info", title: str | None = None, tag: str | None = None) -> None:
        self._transcript.add_notice(NoticeItem(text, level=level, title=title, tag=tag))

    def error(self, message: str, hint: str | None = None) -> None:
        self._transcript.add(ErrorItem(message, hint))

    def set_prompt(self, text: str) -> None:
        prompt = self.query_one(PromptEditor)
        prompt.load_text(text)
        prompt.move_cursor(prompt.document.end)
        prompt.focus()

    def clear_transcript(self) -> None:
        self._transcript.clear()

    def reload_transcript(self, items: Sequence[TranscriptItem] | None = None) -> None:
        """Show the session's current path again (after a resume or tree navigation); ``items``: its transcript
        items, made already (``commands.tree.read_path``)."""
        from navtui.app.session_view import session_transcript

        self._transcript.load(items if items is not None else session_transcript(self.runtime.path_entries()))
        self.refresh_status()
        self.call_after_refresh(self.pack_session_lines)

    # ------------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        yield self._transcript
        yield Static("", id="queued")
        self._prompt = PromptEditor(history=self.history, id="prompt")
        yield self._prompt
        yield CompletionMenu(id="completions")
        yield StatusLine(id="status")

    def _compositor_refresh(self) -> None:
        # Inside a batch (Textual's own start-up, a transcript mount) App._display paints nothing, yet Textual
        # renders the frame anyway and forgets what it covered: at start-up a whole screen was rendered for
        # nothing, then the prompt box and status line came in later, separate writes. Paint it all once the
        # batch ends instead.
        if self.app._batch_count:
            self.refresh()
            return
        super()._compositor_refresh()

    async def painted(self) -> None:
        """Return once what changed so far is on the terminal: the next frame goes out as soon as the screen has
        every widget's refresh, whole (the transcript too), without waiting for a tick of the update timer or for
        a key read and not handled yet (``PAINT_WAIT`` at most). The end of a streamed answer (``TurnRunner``):
        what the agent does after it (recording the answer, its checks) would otherwise hold its last frame.
        """
        if not self.is_current or self.app._batch_count:
            return
        # A widget's refresh reaches the screen from the widget's own idle handler, a message hop later: posted
        # here instead, the screen's queue holds them all before its idle handler runs.
        for widget in self.walk_children(Widget, with_self=False):
            if widget.is_mounted and (widget._layout_required or widget._repaint_required or widget._scroll_required):
                widget._check_refresh()
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._paint_waiters.append(waiter)
        self.check_idle()
        try:
            await asyncio.wait_for(asyncio.shield(waiter), PAINT_WAIT)
        except TimeoutError:
            pass
        finally:
            with contextlib.suppress(ValueError):
                self._paint_waiters.remove(waiter)

    def _paint_now(self) -> None:
        """Paint what is pending now, whole, and tell ``painted``'s callers."""
        if self.is_current and not self.app._batch_count:
            super()._on_timer_update()  # Textual's frame, not held for a key (ours is)
        waiters, self._paint_waiters = self._paint_waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)

    async def _on_idle(self, event: events.Idle) -> None:
        if self._paint_waiters:
            self._paint_now()
        # A key's echo goes out now, not at the next tick of Textual's 60 Hz update timer (a running stream
        # keeps it ticking, and the key waited half a period on average): see widgets/pacing.py.
        # Textual sends Idle when the queue is empty, though it may have taken the next message off the queue to
        # look at (``_pending_message``): the prompt's Update with the key's echo, most likely. Painted now, the
        # frame would hold what came before it (the spinner) and the echo would wait for the next paint.
        pacer = pacer_of(self.app)
        if (
            pacer is not None
            and pacer.echo_pending
            and self._pending_message is None
            and (self._dirty_widgets or self._layout_required or self._repaint_required)
            and self.is_current
            and not self.app._batch_count
            and not self._echo_first()
        ):
            self._on_timer_update()
        await super()._on_idle(event)

    def echo_now(self, widget: Widget) -> bool:
        """Paint ``widget``'s repaint now, from its own idle handler, when it is a key's echo (the prompt's): the
        same frame the screen's idle handler paints above, without the message to the screen's queue and the turn
        of its loop that took it there (~0.1-0.2 ms of each key). False when no key waits for its echo: the
        widget tells the screen as Textual does."""
        pacer = pacer_of(self.app)
        if pacer is None or not pacer.echo_pending or not self.is_current or self.app._batch_count:
            return False
        if self not in self._compositor:
            return False
        self._dirty_widgets.add(widget)
        if not self._echo_first():
            self._on_timer_update()
        if self._dirty_widgets or self._layout_required or self._repaint_required or self._scroll_required:
            self.check_idle()  # what is left (a frame held for a key read and not handled yet): the screen's idle
        return True

    def _on_timer_update(self) -> None:
        # A key read from the terminal and not handled yet goes first: this frame (of streamed output, most
        # likely) waits for the next tick, and the key's own frame may carry it before (widgets/pacing.py).
        pacer = pacer_of(self.app)
        if pacer is not None and pacer.key_waiting:
            return
        super()._on_timer_update()

    def _echo_first(self) -> bool:
        """Paint what changed outside the transcript (the key's echo), leaving the transcript's layout and repaint
        to the next tick of the update timer; False when this frame must be whole.

        While a reply streams, the transcript has usually grown since the last frame, and a frame that lays it
        out and repaints its scrolled rows costs the loop several times what the echo does. The transcript's
        height is fixed (``1fr``), so nothing inside it moves a widget outside it: the prompt and the status
        line can be painted where they are."""
        transcript = self._transcript
        if self._repaint_required or (self._layout_required and not self._layout_widgets):
            return False  # the whole screen, or a layout asked for by the screen itself
        if any(transcript not in node.ancestors_with_self for node in self._layout_widgets):
            return False  # a widget outside the transcript changes size: it may move the prompt
        outside = {widget for widget in self._dirty_widgets if transcript not in widget.ancestors_with_self}
        if not outside:
            # Only the transcript changed: a key that scrolls it (PgUp) is shown now; a streamed answer that grew
            # waits for the timer, and the key (not handled yet) goes first.
            return not self._scroll_required or self._layout_required
        inside = self._dirty_widgets - outside
        self._compositor.update_widgets(outside)
        self._compositor_refresh()  # clears ``_dirty_widgets``
        self._dirty_widgets.update(inside)
        return True

    def on_screen_resume(self) -> None:
        # Back from a dialog: its frames changed cells the terminal's image does not know, so repaint whole.
        self.refresh()

    async def on_mount(self) -> None:
        self._diffing.image = getattr(self.app, "screen_image", None)
        echo = self._diffing.echo = getattr(self.app, "local_echo", None)
        prompt = self.query_one(PromptEditor)
        prompt.completer = self._complete
        prompt.menu = self.query_one(CompletionMenu)
        prompt.interrupter = self.interrupt_running
        prompt.queue_taker = self.turns.take_queued_text
        prompt.changed = self.paint_prompt_border  # at every change, where it happens (no message to the screen)
        prompt.echo = self.echo_now
        if echo is not None:
            prompt.key_taken = echo.key_applied
            image = self._diffing.image
            if image is not None:  # a frame that paints the prompt's row as the echoes drew it keeps their chain
                echo.verify = partial(prompt_as_predicted, self, prompt, image, echo)
        # A steady cursor: a blinking one is a timer repainting the prompt twice a second while nothing happens.
        prompt.cursor_blink = False
        self.query_one("#queued", Static).display = False
        prompt.focus()
        self.call_after_refresh(self._load_history)  # a thread: after the first frame, not competing with it
        if self._runtime is not None:
            self._show_runtime()
        else:
            self._show_starting()
        await self._transcript.mount_pending()
        self.composed.set()

    def _show_starting(self) -> None:
        """The first frame while the runtime is still loading: what settings say, and a prompt that works."""
        settings, options = self._settings, self._options
        model = options.model or settings.model or ""
        from navtui.app.startup import peek_session_tail

        tail = peek_session_tail(options.cwd, options.resume, options.continue_session, self.app.size.height)
        if tail:  # a resumed session: its end, as the runtime will show it once the whole file is read
            self._transcript.load(tail)
        else:
            self._transcript.add(WelcomeItem(cwd=str(options.cwd), model=model or "…", provider="starting"))
        self.query_one(StatusLine).update_status(
            StatusData(cwd=str(options.cwd), model=model, approval=settings.approval)
        )
        self.query_one(StatusLine).set_working(True, "starting")

    def runtime_ready(self, runtime: UiRuntime, items: Sequence[TranscriptItem] | None = None) -> None:
        """The runtime the app was started without is built: show the real start and send what was typed.
        ``items``: a resumed session's transcript items, made in the thread that built the runtime."""
        self._runtime = runtime
        self._options, self._settings = runtime.options, runtime.settings
        self.query_one(StatusLine).set_working(False)
        self._transcript.clear()  # the provisional welcome; the real one (or the resumed session) follows
        self._show_runtime(items)
        gc_policy.settle()  # the runtime's objects are long-lived: out of every later collection
        gc_policy.give_back()  # what loading a session freed
        for text in self.turns.take_queue():
            self.submit(text)

    def _on_idle_advice(self, event: AgentEvent) -> None:
        """The advisor spoke while the agent was idle: show it; a concern or blocker wakes the agent."""
        self.router.handle(event)
        if getattr(event, "severity", "nit") != "nit" and not self.running:
            self.turns.start(None)  # the steering note is already queued in the agent

    def runtime_failed(self, message: str, hint: str | None) -> None:
        self.query_one(StatusLine).set_working(False)
        self.error(f"navtui could not start: {message}", hint or "fix the problem and start navtui again")

    def _show_runtime(self, made: Sequence[TranscriptItem] | None = None) -> None:
        runtime = self.runtime
        runtime.background_listener = self._on_idle_advice
        self._watch_jobs()
        items = runtime.path_entries() if made is None else made
        if items:
            from navtui.app.session_view import session_transcript

            self._transcript.load(made if made is not None else session_transcript(runtime.path_entries()))
            self.call_after_refresh(self.pack_session_lines)  # after the resumed session's first frame
        else:
            provider = runtime.provider
            self._transcript.add(WelcomeItem(cwd=str(runtime.cwd), model=provider.model, provider=provider.name))
        for warning in runtime.warnings:
            self.notice(warning, level="warning")
        runtime.warnings.clear()
        self.show_status(runtime.status(with_git=False))
        self.refresh_status()
        if self.check_provider:
            self.call_after_refresh(self._check_provider)  # after the first frame: it imports the provider SDK
        self.call_after_refresh(self._start_mcp)  # after the first frame: servers start in the background
        self.run_worker(self._load_custom_commands(), group="custom-commands", exclusive=True)
        self.call_after_refresh(self._ask_repository_models)
        if runtime.options.resume == "":
            self.run_worker(COMMANDS.run(self, "/resume"), group="command")  # navtui -r without an id: pick one
        initial = runtime.options.prompt
        if initial:
            self.call_after_refresh(self.submit, initial)

    def _ask_repository_models(self) -> None:
        from navtui.app.repo_models import ask_repository_models

        ask_repository_models(self)

    def _start_mcp(self) -> None:
        from navtui.app.mcp_servers import start_servers

        start_servers(self)

    def pack_session_lines(self) -> None:
        self._pack_lines()

    @work(thread=True, exclusive=True, group="pack-lines")
    def _pack_lines(self) -> None:
        """Compress the session's lines in blocks (``SessionManager.pack_lines``) off the loop, after the first
        frame of a resumed session and while idle after a turn: a 5,000-entry session's 3.4 MB of lines become
        ~0.7 MB (docs/speed.md, "Sixth wave"). zlib lets go of the GIL while it compresses."""
        session = self.runtime.session
        if session is not None and session.pack_lines():
            gc_policy.give_back()  # the lines let go of, returned to the system

    @work(thread=True, exclusive=True, group="history")
    def _load_history(self) -> None:
        self.history.load()

    @work(exclusive=True, group="provider-check")
    async def _check_provider(self) -> None:
        runtime = self.runtime
        await asyncio.to_thread(preload_provider_sdk, runtime.provider.name)
        status = await runtime.check_provider()
        gc_policy.settle()  # the provider SDK and its client are long-lived
        if status.notice:
            self.notice(status.notice, level="warning")
        if not status.ok:
            provider = runtime.provider
            installed = None
            if status.kind == "not_found":  # the server answered: what it has is the way out
                try:
                    installed = await runtime.list_models()
                except Exception:  # a list to pick from is a convenience: the card still says what to do
                    installed = None
            steps = provider_steps(provider.name, provider.model, installed=installed)
            pulled = status.kind == "not_found" and provider.name == "ollama"  # the first step says how, once
            self._transcript.add(ProviderHelpItem(status.message, None if pulled else status.hint, steps))
        self.refresh_status()

    def _watch_jobs(self) -> None:
        """A shell job that ends (in the background, or stopped by Esc after its turn's status was drawn) takes
        its ⚙ off the status line at once, not at the next turn."""
        jobs = getattr(self.runtime.ctx, "jobs", None)
        if jobs is None:
            return
        loop = asyncio.get_running_loop()
        context = contextvars.copy_context()  # the app's: the watcher thread has none

        def ended(_job: object) -> None:
            with contextlib.suppress(RuntimeError):  # the loop closed: the app is gone
                loop.call_soon_threadsafe(self._job_ended, context=context)

        jobs.on_end = ended

    def _job_ended(self) -> None:
        if self.is_attached and self.app.is_running:
            self.refresh_status()

    # ------------------------------------------------------------------ status
    def refresh_status(self) -> None:
        if self._runtime is not None:
            self._refresh_status()

    @work(exclusive=True, group="status")
    async def _refresh_status(self) -> None:
        info = await asyncio.to_thread(self.runtime.status)  # runs git: off the loop
        self._git = (info.git_branch, info.git_dirty, info.git_staged, info.git_unstaged, info.git_untracked)
        self.show_status(info)  # git can outlast the screen: show_status then finds no status line

    def set_activity(self, active: bool, label: str = "", *, cancel: Callable[[], None] | None = None) -> None:
        """A command's long task (compaction, indexing, a download): spinner and label in the status line; Esc
        calls ``cancel`` (default: abort the agent)."""
        self._activity = active
        self._cancel_activity = cancel if active else None
        self.turns.set_working(active, label or "working")

    @on(ApprovalWaiting)
    def _on_approval_waiting(self, message: ApprovalWaiting) -> None:
        """The agent waits for an approval (the modal is open), or got its answer."""
        self.turns.show_waiting(message.waiting)
        if message.waiting and (self.turns.long_running or not self.app.app_focus):
            self.announce(f"approval waits · {message.what}")

    def announce(self, text: str) -> None:
        """A terminal notification (``ui.notify``): for a user who may be looking elsewhere."""
        from navtui.app import notify

        notify.send(self.app, notify.choose(getattr(self.settings_ui, "notify", "auto")), "navtui", text)

    def show_status(self, info: StatusInfo) -> None:
        data = StatusData(
            **{name: getattr(info, name) for name in StatusData.__dataclass_fields__ if hasattr(info, name)}
        )
        if data.git_branch is None and self._git[0] is not None:
            data.git_branch, data.git_dirty, data.git_staged, data.git_unstaged, data.git_untracked = self._git
        for status in self.query(StatusLine).results(StatusLine):  # none while the app shuts down
            status.update_status(data)
        self.paint_prompt_border()

    # ------------------------------------------------------------------ prompt border
    def paint_prompt_border(self) -> None:
        """The prompt's border is the thinking level's colour, or the shell/Python mode's while one is typed.

        It runs at every key (the prompt's ``changed``), so it does nothing unless the mode or the level changed
        since it last painted: it looked the prompt up in the whole DOM and set eight classes every time."""
        from navtui.agent.user_commands import prompt_mode

        prompt = self._prompt
        if prompt is None or not prompt.is_attached:  # not composed yet, or the app shuts down
            return
        level = getattr(self._runtime, "thinking_level", "off")
        mode = prompt_mode(prompt.text)
        hidden = mode is not None and prompt.text.lstrip().startswith(("!!", "$$"))
        if self._border_for == (mode, hidden, level):
            return
        self._border_for = (mode, hidden, level)
        for name in THINKING_LEVELS:
            prompt.set_class(mode is None and name == level, f"-thinking-{name}")
        prompt.set_class(mode == "bash", "-bash-mode")
        prompt.set_class(mode == "python", "-python-mode")
        title = _MODE_TITLES.get((mode, hidden)) if mode else None  # None, not "": an empty one is styled per render
        if prompt.border_title != title:
            prompt.border_title = title

    async def run_user_command(self, text: str) -> None:
        """``!cmd`` / ``$code``: run it here, show it as a card, and let the model see it with the next prompt."""
        from navtui.agent.user_commands import context_message, parse_user_command, run_user_command
        from navtui.core.events import ToolCallFinished, ToolOutput
        from navtui.core.messages import ToolCall, ToolResultMessage

        command = parse_user_command(text)
        runtime = self._runtime
        if command is None or runtime is None:
            return
        argument = "command" if command.kind == "bash" else "code"
        call = ToolCall(id=f"user-{time.monotonic_ns()}", name=command.kind, arguments={argument: command.code})
        router = self.turns.router
        router.start_users_call(call).add_class(f"-{command.kind}-mode")
        # Esc and ctrl+c stop it as they stop a turn (cancelling kills it; what it printed so far is kept)
        self.set_activity(True, "running the command", cancel=get_current_worker().cancel)
        try:
            message = await run_user_command(
                command, runtime.cwd, lambda text: router.handle(ToolOutput(call_id=call.id, text=text))
            )
        finally:
            # Quitting stopped it: the screen is being taken down, nothing of it is left to update.
            on_screen = self.is_attached and self.app.is_running
            if on_screen and self.turns.running:  # a message sent meanwhile started a turn: its spinner stays
                self._activity, self._cancel_activity = False, None
            elif on_screen:
                self.set_activity(False)

        def record() -> None:
            if runtime.session is not None:
                runtime.session.append_execution(message)
            model_sees = context_message(message)
            if model_sees is not None:
                runtime.agent.messages.append(model_sees)

        if self.turns.running:  # a turn began meanwhile: its tool calls and results stay together
            self.turns.after_turn.append(record)
        else:
            record()
        if not on_screen:
            return  # (the run is kept in the session all the same)
        failed = message["cancelled"] or message["exitCode"] not in (0, None)
        result = ToolResultMessage.of(call, message["output"] or "(no output)", is_error=bool(failed))
        router.handle(ToolCallFinished(call=call, result=result))
        self.refresh_status()  # the command may have changed files: git's counts in the status line
        self.turns.send_queued(interrupted=bool(message["cancelled"]))

    def _describe_item(self, item: ToolItem) -> str:
        from navtui.core.messages import ToolCall

        return self.describe_call(ToolCall(id=item.call_id, name=item.name, arguments=item.arguments))

    def describe_call(self, call: ToolCall) -> str:
        """The title of a tool card: the tool's own one-line summary of its arguments."""
        from navtui.tools.base import ToolRegistry

        tools = self._runtime.tools if self._runtime is not None else None
        return (tools if tools is not None else ToolRegistry()).describe(call)

    # ------------------------------------------------------------------ the prompt
    @on(PromptEditor.Submitted)
    def _on_submitted(self, event: PromptEditor.Submitted) -> None:
        if event.new_in_history:
            self.run_worker(asyncio.to_thread(self.history.save, event.text), group="history-save")
        self._transcript.jump_to_bottom()  # whatever the user was reading, what they sent shows
        self.turns.remember_pastes(event.pasted)
        self.submit(event.text)

    def submit(self, text: str) -> None:
        if self._runtime is None:  # still starting: keep it, runtime_ready sends it
            self.turns.queued.append(text)
            self.turns.show_queue("once navtui has started")
            return
        stripped = text.strip()
        if stripped.startswith("/") and not stripped.startswith("//"):
            self.refresh_custom_commands()  # a command file added or edited a moment ago runs as it is now
            self.run_worker(COMMANDS.run(self, stripped), group="command")
            return
        if stripped.startswith("//"):
            text = text.lstrip()[1:]  # "//" sends a message that starts with "/"
        elif stripped[:1] in ("!", "$") and len(stripped.lstrip("!$").strip()) > 0 and not self.turns.running:
            self.run_worker(self.run_user_command(stripped), group="user-command")
            return
        self.turns.submit(text)

    def send(self, text: str) -> None:
        """``text`` as the user's message to the model (a custom command's prompt): never a command or ``!cmd``."""
        self._transcript.jump_to_bottom()
        if self._runtime is None:
            self.turns.queued.append(text)
            self.turns.show_queue("once navtui has started")
            return
        self.turns.submit(text)

    async def _load_custom_commands(self) -> None:
        """``~/.navtui/commands`` and ``.navtui/commands``: Markdown prompts as slash commands (commands/custom.py)."""
        from navtui.app.commands.custom import CommandFolders
        from navtui.config.paths import navtui_home, project_dir

        folders = CommandFolders(navtui_home() / "commands", project_dir(self.runtime.cwd) / "commands")
        found, warnings = await asyncio.to_thread(folders.load)
        self._command_folders = folders
        self._register_custom_commands(found, warnings)

    def refresh_custom_commands(self) -> None:
        """Read the command folders again when a file in them was added, edited or removed since (a listing of
        each folder when nothing changed): completion, /help, the palette and a ``/`` line see them as they are."""
        folders = self._command_folders
        if folders is not None and folders.changed():
            self._register_custom_commands(*folders.load())

    def _register_custom_commands(self, found: list[CustomCommand], warnings: list[str]) -> None:
        from navtui.app.commands.custom import register_custom_commands

        warnings += register_custom_commands(COMMANDS, found)
        for warning in warnings:
            self.notice(warning, level="warning")
        self.forget_arguments()

    def on_command_chosen(self, message: CommandChosen) -> None:
        """A command picked in the palette (ctrl+p)."""
        command = message.command
        if command.needs_args:
            self.set_prompt(f"/{command.name} ")  # it needs arguments: let the user type them
        else:
            self.submit(f"/{command.name}")

    @on(PromptEditor.QuitRequested)
    def _on_quit_requested(self, event: PromptEditor.QuitRequested) -> None:
        now = time.monotonic()
        if not event.confirm or now - self._last_ctrl_c < QUIT_CONFIRM_SECONDS:
            self.app.exit()
            return
        self._last_ctrl_c = now
        self.app.notify("Press ctrl+c again to quit", timeout=QUIT_CONFIRM_SECONDS)

    @on(PromptEditor.EditorRequested)
    async def _on_editor_requested(self) -> None:
        """ctrl+g / ctrl+x ctrl+e: the prompt's text in $VISUAL/$EDITOR, and back (kept as it was if that fails)."""
        from navtui.app.external_editor import edit_text

        prompt = self.query_one(PromptEditor)
        text, _ = prompt.pastes.expand(prompt.text)  # the editor gets the pasted text itself, not placeholders
        result = await edit_text(self.app, text)
        if result.text is None:
            self.notice(f"The editor failed ({result.problem}); the prompt keeps its text.", level="warning")
            return
        prompt.pastes.clear()
        self.set_prompt(result.text)

    @on(CompletionMenu.Chosen)
    def _on_completion_chosen(self, event: CompletionMenu.Chosen) -> None:
        prompt = self.query_one(PromptEditor)
        prompt.take(event.candidate)
        prompt.focus()

    async def _complete(self, line: str, cursor: int) -> Completion | None:
        """Candidates for the token at ``cursor``: a command, the command's argument, or an ``@path``."""
        if not completable(line, cursor):
            return None
        if line.lstrip().startswith("/"):
            self.refresh_custom_commands()
        commands = COMMANDS.all()
        found = complete_command(
            line,
            cursor,
            [c.name for c in commands],
            {c.name: c.help for c in commands},
            submits=frozenset(c.name for c in commands if not c.needs_args),
        )
        if found is not None:
            return found
        argument = argument_prefix(line, cursor)
        if argument is not None:
            command = COMMANDS.get(argument[0])
            if command is not None and command.arguments is not None:
                if self._runtime is None:
                    return None
                return complete_argument(line, cursor, await self._command_arguments(command))
            if "@" not in line[:cursor]:
                return None
            # no known arguments (your /review, an MCP prompt): its words may hold an @path, completed below
        cwd = Path(self._runtime.cwd if self._runtime is not None else self._options.cwd)
        if self._files is None or self._files.root != cwd:
            from navtui.app.file_finder import FileList

            self._files = FileList(cwd)
        paths = await asyncio.to_thread(complete_path, line, cursor, cwd, self._files)
        manager = self._runtime.mcp if self._runtime is not None else None
        resources = complete_resource(line, cursor, manager.resource_names()) if manager is not None else None
        if resources is None or paths is None:
            return resources or paths
        resources.candidates.extend(paths.candidates)  # an MCP server's resources first, then files
        return resources

    async def _command_arguments(self, command: SlashCommand) -> list[str]:
        """A command's known arguments, asked again at most every ARGUMENTS_FRESH_SECONDS (it may ask a server)."""
        cached = self._arguments.get(command.name)
        if cached is not None and time.monotonic() - cached[0] < ARGUMENTS_FRESH_SECONDS:
            return cached[1]
        assert command.arguments is not None
        try:
            choices = await command.arguments(self)
        except Exception:  # a list to pick from is a convenience: never an error while typing
            choices = []
        self._arguments[command.name] = (time.monotonic(), choices)
        return choices

    def forget_arguments(self, command: str | None = None) -> None:
        """The known arguments changed (a model was pulled): ask again next time."""
        if command is None:
            self._arguments.clear()
        else:
            self._arguments.pop(command, None)

    # ------------------------------------------------------------------ actions
    def interrupt_running(self) -> bool:
        """Stop the running turn or command's task (Esc, ctrl+c); False when nothing runs."""
        if self.turns.interrupt():
            return True
        if self._activity and self._cancel_activity is not None:
            self._cancel_activity()
            return True
        if self._activity and self._runtime is not None:
            self._runtime.abort()
            return True
        return False

    def action_interrupt(self) -> None:
        if self.interrupt_running():
            return
        now = time.monotonic()
        prompt = self.query_one(PromptEditor)
        if not prompt.text and now - self._last_escape < 0.5:
            self._last_escape = 0.0
            from navtui.app.commands.tree import double_escape  # ui.double_escape_action: tree|branch|none

            double_escape(self)
            return
        self._last_escape = now

    def action_copy_or_interrupt(self) -> None:
        """ctrl+c outside the prompt (the transcript has the focus): copy a selection, else as in the prompt."""
        if self.get_selected_text() is not None:
            self.action_copy_text()
        elif not self.interrupt_running():
            prompt = self.query_one(PromptEditor)
            prompt.focus()
            if prompt.text:
                prompt.clear()
            else:
                self.post_message(PromptEditor.QuitRequested(confirm=True))

    def action_toggle_details(self) -> None:
        self._transcript.toggle_details()

    def action_next_thinking_level(self) -> None:
        """shift+tab: the next thinking level, as in pi (the prompt border shows it)."""
        if self._runtime is None or self.turns.running:
            return
        from navtui.app.commands.builtin import set_thinking

        levels = THINKING_LEVELS
        current = self._runtime.thinking_level
        following = levels[(levels.index(current) + 1) % len(levels)] if current in levels else "off"
        set_thinking(self, following)  # at once: the next press, however quick, steps on from it

    def action_search_history(self) -> None:
        """ctrl+r: a prompt sent before, found by its words, into the prompt (Esc: the prompt stays)."""
        from navtui.app.screens.history_search import HistorySearchScreen

        def chosen(text: str | None) -> None:
            if text is not None:
                self.set_prompt(text)

        if self.history.entries:
            self.app.push_screen(HistorySearchScreen(self.history.entries), callback=chosen)
        else:
            self.notice("No prompts sent yet to search (ctrl+r searches the prompts you send).")

    def action_models(self) -> None:
        self._open_once("/models")

    def action_themes(self) -> None:
        self._open_once("/theme")

    def action_help(self) -> None:
        self.refresh_custom_commands()
        self._open_once("/help")

    def _open_once(self, command: str) -> None:
        """ctrl+l, ctrl+t, F1: the command's screen once. A second press that lands before the worker has pushed
        the first screen (its keys then go to that screen) is dropped: it opened a second picker over the first."""
        if command in self._opening:
            return
        self._opening.add(command)

        async def run() -> None:
            try:
                await COMMANDS.run(self, command)
            finally:
                self._opening.discard(command)

        self.run_worker(run(), group="command")

    def action_scroll_transcript(self, direction: int) -> None:
        self._transcript.page(direction)
