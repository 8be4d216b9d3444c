"""The one place that shows agent events (their types: ``core/events.py``) on screen: transcript widgets, status line.

One ``match`` over the ``AgentEvent`` union. Per event the work is small and never blocks: text deltas go to
the streaming view (which coalesces them), tool events update their card, usage and activity changes go to
the status line through the two callables the screen gives.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual.widget import Widget

from navtui.agent.advice import ADVISOR_PREFIX
from navtui.app.session_view import Describe, tool_item
from navtui.core.display import display_safe
from navtui.core.events import (
    AdvisorNote,
    AgentError,
    AgentEvent,
    CompactionFinished,
    CompactionStarted,
    ContextInjected,
    ContextPruned,
    Handover,
    ModelLoading,
    Notice,
    RunFinished,
    StreamFinished,
    TextDelta,
    ThinkingDelta,
    ToolCallFinished,
    ToolCallStarted,
    ToolOutput,
    TurnFinished,
    TurnStarted,
    UsageUpdate,
    UserMessageEvent,
)
from navtui.core.messages import AssistantMessage, TextBlock, ToolCall
from navtui.widgets.cards import NoticeCard
from navtui.widgets.items import (
    AdvisorItem,
    AssistantItem,
    ContextItem,
    DividerItem,
    ErrorItem,
    NoticeItem,
    ThinkingItem,
    UserItem,
)
from navtui.widgets.thinking import ThinkingView
from navtui.widgets.tool_card import ToolCard
from navtui.widgets.transcript import AssistantView, Transcript


def _nothing(*_args: object) -> None:
    return None


class EventRouter:
    def __init__(
        self,
        transcript: Transcript,
        describe: Describe,
        *,
        status_changed: Callable[[], None] = _nothing,
        activity: Callable[[str], None] = _nothing,
        pasted: Callable[[str], list[str]] = lambda _text: [],
    ) -> None:
        """``status_changed()`` after usage or a handover; ``activity(label)`` when the agent starts a new step;
        ``pasted(text)`` the long pastes a user message holds (shown collapsed)."""
        self.transcript = transcript
        self.describe = describe
        self.status_changed = status_changed
        self.activity = activity
        self.pasted = pasted
        self._assistant: AssistantView | None = None
        self._answered: AssistantView | None = None  # the answer finished last, until its turn's record comes
        self._thinking: ThinkingView | None = None
        self._cards: dict[str, ToolCard] = {}
        self._users_calls: set[str] = set()  # the user's own !cmd / $code runs: no part of the turn's answer
        self._loading: Widget | None = None  # the "loading the model" notice, until the model is in memory

    def start_users_call(self, call: ToolCall) -> ToolCard:
        """The card of a ``!cmd`` / ``$code`` the user runs. Its start and end leave an answer streaming meanwhile
        open (a message sent while the command runs starts a turn): ending it there cut the answer in two."""
        self._users_calls.add(call.id)
        card = self._cards[call.id] = self._add_card(call)
        return card

    def handle(self, event: AgentEvent) -> None:
        transcript = self.transcript
        match event:
            case TextDelta(text=text):
                self._assistant_view().append(text)
            case ThinkingDelta(text=text):
                self._thinking_view().append(text)
            case ToolCallStarted(call=call):
                self.finish_streams()
                self._cards[call.id] = self._add_card(call)
            case ToolOutput(call_id=call_id, text=text):
                card = self._cards.get(call_id)
                if card is not None:
                    card.append_output(text)
            case ToolCallFinished(call=call, result=result):
                if call.id in self._users_calls:
                    self._users_calls.discard(call.id)
                else:
                    self.finish_streams()
                card = self._cards.pop(call.id, None)
                if card is None:  # skipped or aborted before it started: still show that it did not run
                    card = self._add_card(call)
                card.finish(result.text, is_error=result.is_error, details=result.details)
            case UserMessageEvent(text=text) if text.startswith(ADVISOR_PREFIX):
                pass  # advice the model is now reading: its AdvisorNote card already shows it
            case UserMessageEvent(text=text, kind=kind):
                self.finish_streams()
                transcript.add(UserItem(text, kind, pasted=self.pasted(text)))
            case TurnStarted():
                self.activity("working")
            case StreamFinished():
                self.finish_streams()  # the answer is whole: shown before the agent records and checks it
            case TurnFinished(stop_reason=stop_reason, message=message):
                self.finish_streams()
                self._share_answer(message)
                if stop_reason == "aborted":
                    transcript.add(NoticeItem("Interrupted; the partial answer was kept.", level="warning"))
            case RunFinished():
                self.finish_streams()
            case UsageUpdate():
                self.status_changed()
            case Handover(notes=notes, count=count, automatic=automatic):
                self.finish_streams()
                how = "automatic handover" if automatic else "handover"
                transcript.add(DividerItem(f"{how} #{count} · context restarted from notes", detail=notes))
                self.status_changed()
            case CompactionStarted():
                self.activity("compacting")
            case CompactionFinished(summary=summary, tokens_before=before, tokens_after=after):
                self.finish_streams()
                transcript.add(DividerItem(f"context compacted · {before} → {after} tokens", detail=summary))
            case ContextPruned(results=results, tokens_saved=saved):
                from navtui.core.wording import counted

                transcript.add(
                    NoticeItem(f"Dropped the output of {counted(results, 'old tool call')} (~{saved} tokens).")
                )
            case AdvisorNote(note=note, severity=severity):
                self.finish_streams()
                transcript.add(AdvisorItem(note, severity))
            case ContextInjected(source=source, text=text, files=files, tokens=tokens):
                transcript.add(ContextItem(source, text, list(files), tokens))
            case ModelLoading(model=model, done=False):
                self.activity(f"loading {model}")
                self._loading = transcript.add(
                    NoticeItem(f"Loading {model} into memory… (the first request waits for it)")
                )
            case ModelLoading(model=model, seconds=seconds):
                self.activity("working")
                took = f" in {seconds:g} s" if seconds is not None else ""
                text = f"Loaded {model} into memory{took}."
                if isinstance(self._loading, NoticeCard):  # the same card says it is done
                    self._loading.item.text = text
                    self._loading.update(Text(display_safe(text)))
                else:
                    transcript.add(NoticeItem(text))
                self._loading = None
            case Notice(text=text, level=level):
                transcript.add(NoticeItem(text, level=level))
            case AgentError(message=message, hint=hint):
                self.finish_streams()
                transcript.add(ErrorItem(message, hint))

    def finish_streams(self) -> None:
        """A boundary: the streaming answer and thought are complete."""
        self._finish_thinking()
        self._finish_assistant()

    def _assistant_view(self) -> AssistantView:
        if self._assistant is None:
            self._finish_thinking()
            view = self.transcript.add(AssistantItem(streaming=True))
            assert isinstance(view, AssistantView)
            self._assistant = view
        return self._assistant

    def _thinking_view(self) -> ThinkingView:
        if self._thinking is None:
            self._finish_assistant()
            view = self.transcript.add(ThinkingItem(streaming=True))
            assert isinstance(view, ThinkingView)
            self._thinking = view
        return self._thinking

    def _add_card(self, call: ToolCall) -> ToolCard:
        card = self.transcript.add(tool_item(call, self.describe))
        assert isinstance(card, ToolCard)
        return card

    def _finish_assistant(self) -> None:
        if self._assistant is not None:
            self._assistant.finish()
            self._answered, self._assistant = self._assistant, None

    def _share_answer(self, message: AssistantMessage) -> None:
        """The answer shown keeps the recorded message's text instead of its own equal copy (80 KB for a
        20,000-token answer, kept for the session: docs/speed.md, "Eleventh wave: memory")."""
        view, self._answered = self._answered, None
        texts = [block.text for block in message.content if isinstance(block, TextBlock)]
        if view is not None and len(texts) == 1:
            view.share_text(texts[0])

    def _finish_thinking(self) -> None:
        if self._thinking is not None:
            self._thinking.finish()
            self._thinking = None

    @property
    def pending_cards(self) -> list[ToolCard]:
        return list(self._cards.values())
