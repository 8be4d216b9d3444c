"""Running the agent for the main screen, one turn at a time.

A turn is an async worker that iterates ``Runtime.run`` and hands each event to the ``EventRouter``. While
it runs, new messages queue (sent after the turn); Esc interrupts (the partial answer stays, queued messages
come back to the prompt). The spinner timer and the periodic GC freeze exist only while a turn runs. While the
model has not sent its first token the status line counts the seconds: a local model reading a long prompt
can be silent for minutes, and the user decides whether to wait or press Esc.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.screen import Screen
from textual.widgets import Static

from navtui.app import gc_policy
from navtui.core.display import display_safe
from navtui.core.errors import NavtuiError
from navtui.widgets import spinner
from navtui.widgets.markdown import warm as markdown_warm_up
from navtui.widgets.pacing import pacer_of
from navtui.widgets.prompt import PromptEditor
from navtui.widgets.status_line import StatusLine

if TYPE_CHECKING:
    from navtui.agent.status import StatusInfo
    from navtui.app.events import EventRouter
    from navtui.app.ui_runtime import UiRuntime
    from navtui.core.events import AgentEvent  # pydantic models: imported with the runtime, after the first frame
    from navtui.core.messages import ToolCall
    from navtui.widgets.transcript import Transcript

RECLAIM_DELAY = 3.0  # idle seconds before a full garbage collection
WAIT_SHOWN_AFTER = 2  # seconds of silence from the model before the status line counts them
WAITING = "waiting for the model"
_FIRST_OUTPUT = frozenset(
    {"text_delta", "thinking_delta", "tool_call_started", "stream_finished", "turn_finished", "run_finished", "error"}
)
# Events after which the agent waits for the screen's frame: the stream's end, and the turn's (its notices).
_PAINTED_AT_ONCE = frozenset({"stream_finished", "turn_finished"})


class TurnScreen(Screen[None]):
    """The screen a ``TurnRunner`` runs turns for (``MainScreen`` is the one): what the runner uses of it beyond
    Textual's ``Screen``. Declared here so that the runner does not import the screen that owns it."""

    animations: bool  # the spinner turns (off in tests and over slow links)

    @property
    def runtime(self) -> UiRuntime:
        raise NotImplementedError

    @property
    def transcript(self) -> Transcript:
        raise NotImplementedError

    def error(self, message: str, hint: str | None = None) -> None:
        raise NotImplementedError

    def set_prompt(self, text: str) -> None:
        raise NotImplementedError

    def refresh_status(self) -> None:
        raise NotImplementedError

    def show_status(self, info: StatusInfo) -> None:
        raise NotImplementedError

    def describe_call(self, call: ToolCall) -> str:
        raise NotImplementedError

    def submit(self, text: str) -> None:
        raise NotImplementedError

    def announce(self, text: str) -> None:
        raise NotImplementedError

    async def painted(self) -> None:
        """Return once what changed so far is on the terminal (the next frame goes out at once)."""
        raise NotImplementedError

    def pack_session_lines(self) -> None:
        """Compress the session's lines not compressed yet, in a worker thread (``SessionManager.pack_lines``)."""
        raise NotImplementedError

    @property
    def settings_ui(self) -> object:
        raise NotImplementedError


class TurnRunner:
    def __init__(self, screen: TurnScreen) -> None:
        self.screen = screen
        self.queued: list[str] = []
        self.running = False
        self.interrupted = False
        # Done as the running turn ends: a ``!cmd`` that ended meanwhile goes into the history then, never between
        # a model's tool call and its result (a request every provider refuses).
        self.after_turn: list[Callable[[], None]] = []
        self._router: EventRouter | None = None
        self._spinner_timer: Any = None
        self._spinner_index = 0
        self._collected_at = 0  # the spinner tick of the last gc_policy.tick()
        self._reclaim_timer: Any = None
        self._wait_timer: Any = None
        self._waiting_since: float | None = None  # a request went out and nothing came back yet
        self._waiting_for = WAITING  # what the status line says is being waited for
        self._pastes: list[str] = []  # long pastes of prompts sent, until their user message shows
        self._started_at = 0.0  # when the running turn started (a long one is announced when it ends)

    def remember_pastes(self, pasted: list[str]) -> None:
        """The prompt just sent holds these long pastes: its transcript entry shows them collapsed."""
        self._pastes.extend(pasted)

    def _claim_pastes(self, text: str) -> list[str]:
        found = [block for block in self._pastes if block in text]
        self._pastes = [block for block in self._pastes if block not in found]
        return found

    @property
    def router(self) -> EventRouter:
        if self._router is None:  # imported on first use: the event models are not needed for the first frame
            from navtui.app.events import EventRouter

            screen = self.screen
            self._router = EventRouter(
                screen.transcript,
                screen.describe_call,
                status_changed=lambda: screen.show_status(screen.runtime.status(with_git=False)),
                activity=lambda label: screen.query_one(StatusLine).set_working(True, label),
                pasted=self._claim_pastes,
            )
        return self._router

    # ------------------------------------------------------------------ queue
    def submit(self, text: str) -> None:
        """Send now, or after the running turn."""
        if self.running:
            self.queued.append(text)
            self.show_queue()
        else:
            self.start(text)

    def show_queue(self, when: str = "after this turn") -> None:
        bar = self.screen.query_one("#queued", Static)
        bar.display = bool(self.queued)
        if self.queued:
            first = self.queued[0].strip().splitlines()[0] if self.queued[0].strip() else ""
            more = f"  (+{len(self.queued) - 1} more)" if len(self.queued) > 1 else ""
            bar.update(Text(display_safe(f"queued: {first[:200]}{more} · sent {when} · ↑ edits")))

    def take_queue(self) -> list[str]:
        taken, self.queued = self.queued, []
        self.show_queue()
        return taken

    def take_queued_text(self) -> str:
        """Up on an empty prompt: the queued messages, taken off the queue to be edited and sent again ("" when
        none)."""
        return "\n\n".join(self.take_queue())

    def _return_queue_to_prompt(self) -> None:
        """After Esc the user is changing course: queued messages come back for editing, they are not sent."""
        prompt = self.screen.query_one(PromptEditor)
        texts = [*self.queued, prompt.text] if prompt.text.strip() else list(self.queued)
        self.take_queue()
        self.screen.set_prompt("\n\n".join(texts))

    # ------------------------------------------------------------------ a turn
    def start(self, text: str | None) -> None:
        gc_policy.settle()  # what idle time built stays out of the turn's collections
        self.running = True
        self.interrupted = False
        self._started_at = time.monotonic()
        self.set_working(True)
        self.screen.run_worker(self._run(text), group="agent", exclusive=True)

    async def _run(self, text: str | None) -> None:
        screen = self.screen
        runtime = screen.runtime
        router = self.router
        try:
            async for event in runtime.run(text):
                self._track_wait(event)
                router.handle(event)
                if event.type in _PAINTED_AT_ONCE:
                    # The answer is complete: its last lines go out now, before what the agent does next (its
                    # record and checks, the next request), which would hold the frame (docs/speed.md, fifth
                    # and sixth waves).
                    await screen.painted()
        except NavtuiError as exc:
            screen.error(exc.message, exc.hint)
        except Exception as exc:  # a bug in one turn must not take the app down; show it and carry on
            screen.error(f"Unexpected error: {type(exc).__name__}: {exc}", "this is a bug in navtui; please report it")
        finally:
            self._track_wait(None)
            router.finish_streams()
            self.running = False
            deferred, self.after_turn = self.after_turn, []
            for done in deferred:
                done()
            self.set_working(False)
            screen.refresh_status()
            if self._ran_long() and not self.interrupted:
                screen.announce(f"the turn finished after {time.monotonic() - self._started_at:.0f} s")
            self.send_queued(interrupted=self.interrupted)

    def send_queued(self, *, interrupted: bool = False) -> None:
        """Nothing runs now (a turn ended, or a queued ``!cmd`` that ran after it): the next queued message goes,
        or after an interruption they all come back to the prompt. A ``!cmd`` taken off the queue calls this again
        when it ends: the messages queued after it waited for a turn's end that never came."""
        if not self.queued or self.running:
            return
        if interrupted:
            self._return_queue_to_prompt()
            return
        next_text = self.queued.pop(0)
        self.show_queue()
        self.screen.call_later(self.screen.submit, next_text)

    @property
    def long_running(self) -> bool:
        """A turn runs and has run ``ui.notify_after`` seconds: the user may have looked away."""
        return self.running and self._ran_long()

    def _ran_long(self) -> bool:
        after = getattr(self.screen.settings_ui, "notify_after", 30.0)
        return time.monotonic() - self._started_at >= after

    def interrupt(self) -> bool:
        """Esc: stop the running turn (False when nothing runs)."""
        if not self.running:
            return False
        self.interrupted = True
        self.screen.runtime.abort()
        self.screen.query_one(StatusLine).set_working(True, "interrupting")
        return True

    # ------------------------------------------------------------------ while working
    def set_working(self, working: bool, label: str = "working") -> None:
        screen = self.screen
        screen.query_one(StatusLine).set_working(working, label if working else "")
        if working:
            markdown_warm_up.start()  # the first reply's one-time render costs, paid while the request goes out
            if self._reclaim_timer is not None:
                self._reclaim_timer.stop()
                self._reclaim_timer = None
            if screen.animations and self._spinner_timer is None:
                self._spinner_timer = screen.set_interval(spinner.INTERVAL, self._spin, name="spinner")
        else:
            if self._spinner_timer is not None:
                self._spinner_timer.stop()
                self._spinner_timer = None
            self._reclaim_timer = screen.set_timer(RECLAIM_DELAY, self._reclaim, name="gc-reclaim")

    def show_waiting(self, waiting: bool) -> None:
        if self.running:
            label = "waiting for approval" if waiting else "working"
            self.screen.query_one(StatusLine).set_working(True, label)

    def _track_wait(self, event: AgentEvent | None) -> None:
        """Count the seconds from a request to the model's first output (see the module docstring).

        ``None`` is the end of the run. A model being loaded into memory is named while it loads.
        """
        kind = event.type if event is not None else "run_finished"
        if kind == "turn_started":
            self._waiting_since = time.monotonic()
            self._waiting_for = WAITING
            if self._wait_timer is None:
                self._wait_timer = self.screen.set_interval(1.0, self._show_wait, name="model-wait")
        elif event is not None and event.type == "model_loading":
            self._waiting_for = WAITING if event.done else f"loading {event.model}"
        elif kind in _FIRST_OUTPUT and self._waiting_since is not None:
            self._waiting_since = None
            if self._wait_timer is not None:
                self._wait_timer.stop()
                self._wait_timer = None
            if self.running and kind != "run_finished":
                self.screen.query_one(StatusLine).set_working(True, "working")

    def _show_wait(self) -> None:
        if self._waiting_since is None or not self.running or self.interrupted:
            return
        seconds = int(time.monotonic() - self._waiting_since)
        if seconds >= WAIT_SHOWN_AFTER:
            self.screen.query_one(StatusLine).set_working(True, f"{self._waiting_for} · {seconds} s (Esc stops)")

    def _spin(self) -> None:
        self._spinner_index += 1
        index = self._spinner_index
        # Under a dialog (an approval, the palette) nothing turns: the dialog's translucent background repaints
        # the whole screen beneath it for each change there, 10 times a second (~20 % of a core waiting for an
        # approval). The status line says what it waits for; the spinner picks up when the dialog closes.
        if self.screen.app.screen is self.screen:
            self.screen.query_one(StatusLine).tick(index)
            for card in self.router.pending_cards:
                card.tick(index)
        # See gc_policy: a collection a second keeps full ones from stalling frames while streaming. While the
        # user types it runs just after a key's echo, when the next key is furthest away, or after 5 s at most.
        # (Put off until typing stopped, it grew with what 5 s of streaming built: ~100 ms at 1,000 tok/s, a
        # stall a key landed behind; docs/speed.md.) Never while a key waits for its echo: the next tick.
        since = index - self._collected_at
        pacer = pacer_of(self.screen.app)
        if pacer is not None and pacer.echo_awaited:
            return
        if since >= 10 and (since >= 50 or pacer is None or not pacer.typing or pacer.just_echoed):
            self._collected_at = index
            gc_policy.tick()

    def _reclaim(self) -> None:
        self._reclaim_timer = None
        if self.running:
            return
        pacer = pacer_of(self.screen.app)
        if pacer is not None and pacer.typing:  # the full collection stalls the loop (~0.1 s): not behind a key
            self._reclaim_timer = self.screen.set_timer(RECLAIM_DELAY, self._reclaim, name="gc-reclaim")
            return
        self.screen.transcript.trim_offscreen()  # answers' lines far off screen: rendered again if scrolled to
        gc_policy.drop_geometry_caches()  # the regions of the turn's scrolled frames
        gc_policy.reclaim()  # the turn's cycles, frozen while they lived (gc_policy)
        gc_policy.give_back()
        self.screen.pack_session_lines()  # the turn's entries, in blocks of lines now full
