"""The one place that maps agent events to transcript widgets.

Per event the work is small and never blocks: text deltas are handed to the streaming view (which coalesces
them), tool events update their card. Status-line updates are the screen's business.
"""

from __future__ import annotations

from typing import Any

from navtui.app.session_view import Describe, tool_entry
from navtui.core.events import (
    AdvisorNote,
    AgentError,
    CompactionFinished,
    ContextInjected,
    ContextPruned,
    Handover,
    Notice,
    RunFinished,
    TextDelta,
    ThinkingDelta,
    ToolCallFinished,
    ToolCallStarted,
    ToolOutput,
    TurnFinished,
    UserMessageEvent,
)
from navtui.widgets.entries import (
    AdvisorEntry,
    AssistantEntry,
    ContextEntry,
    DividerEntry,
    ErrorEntry,
    NoticeEntry,
    ThinkingEntry,
    UserEntry,
)
from navtui.widgets.thinking import ThinkingView
from navtui.widgets.tool_card import ToolCard
from navtui.widgets.transcript import AssistantView, Transcript


class EventRouter:
    def __init__(self, transcript: Transcript, describe: Describe) -> None:
        self.transcript = transcript
        self.describe = describe
        self._assistant: AssistantView | None = None
        self._thinking: ThinkingView | None = None
        self._cards: dict[str, ToolCard] = {}

    def handle(self, event: Any) -> None:
        transcript = self.transcript
        if isinstance(event, TextDelta):
            if self._assistant is None:
                self._finish_thinking()
                self._assistant = transcript.add(AssistantEntry(streaming=True))  # type: ignore[assignment]
            self._assistant.append(event.text)  # type: ignore[union-attr]
        elif isinstance(event, ThinkingDelta):
            if self._thinking is None:
                self._finish_assistant()
                self._thinking = transcript.add(ThinkingEntry(streaming=True))  # type: ignore[assignment]
            self._thinking.append(event.text)  # type: ignore[union-attr]
        elif isinstance(event, ToolCallStarted):
            self.finish_streams()
            self._cards[event.call.id] = transcript.add(tool_entry(event.call, self.describe))  # type: ignore[assignment]
        elif isinstance(event, ToolOutput):
            card = self._cards.get(event.call_id)
            if card is not None:
                card.append_output(event.text)
        elif isinstance(event, ToolCallFinished):
            self.finish_streams()
            card = self._cards.pop(event.call.id, None)
            if card is None:  # skipped or aborted before it started: still show that it did not run
                card = transcript.add(tool_entry(event.call, self.describe))  # type: ignore[assignment]
            result = event.result
            card.finish(result.text, is_error=result.is_error, details=result.details)
        elif isinstance(event, UserMessageEvent):
            self.finish_streams()
            transcript.add(UserEntry(event.text, event.kind))
        elif isinstance(event, TurnFinished):
            self.finish_streams()
            if event.stop_reason == "aborted":
                transcript.add(NoticeEntry("Interrupted; the partial answer was kept.", level="warning"))
        elif isinstance(event, RunFinished):
            self.finish_streams()
        elif isinstance(event, Handover):
            self.finish_streams()
            how = "automatic handover" if event.automatic else "handover"
            transcript.add(DividerEntry(f"{how} #{event.count} · context restarted from notes", detail=event.notes))
        elif isinstance(event, CompactionFinished):
            self.finish_streams()
            label = f"context compacted · {event.tokens_before} → {event.tokens_after} tokens"
            transcript.add(DividerEntry(label, detail=event.summary))
        elif isinstance(event, ContextPruned):
            transcript.add(
                NoticeEntry(f"Dropped the output of {event.results} old tool calls (~{event.tokens_saved} tokens).")
            )
        elif isinstance(event, AdvisorNote):
            self.finish_streams()
            transcript.add(AdvisorEntry(event.note, event.severity))
        elif isinstance(event, ContextInjected):
            transcript.add(ContextEntry(event.source, event.text, list(event.files), event.tokens))
        elif isinstance(event, Notice):
            transcript.add(NoticeEntry(event.text, level=event.level))
        elif isinstance(event, AgentError):
            self.finish_streams()
            transcript.add(ErrorEntry(event.message, event.hint))

    def finish_streams(self) -> None:
        """A boundary: the streaming answer and thought are complete."""
        self._finish_thinking()
        self._finish_assistant()

    def _finish_assistant(self) -> None:
        if self._assistant is not None:
            self._assistant.finish()
            self._assistant = None

    def _finish_thinking(self) -> None:
        if self._thinking is not None:
            self._thinking.finish()
            self._thinking = None

    @property
    def pending_cards(self) -> list[ToolCard]:
        return list(self._cards.values())
