"""One-shot timers that fire however late the loop gets to them (widgets/timers.py).

The loop comes late for real here: a trace function sleeps on the event loop's thread at the line of Textual's
timer task between its two reads of the clock, as a preempted thread on a loaded machine does (the stall that
left tests/app/test_scrolled_frames.py waiting 10 s for a streamed answer that had stopped at load 5-8)."""

from __future__ import annotations

import inspect
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

from textual.timer import Timer

import navtui.widgets.markdown.view as view_module
from navtui.widgets.markdown.view import MarkdownView
from navtui.widgets.timers import one_shot
from tests.app.test_markdown_stream import ViewApp, lines

STALL = 0.005  # seconds: longer than the 1 ms timers of the coalescer and the catch-up render


def _line_between_the_clock_reads() -> int:
    """The line of ``Timer._run`` that reads the clock the second time, in its loop (``now = ...get_time()``)."""
    source, first = inspect.getsourcelines(Timer._run)
    starts = [n for n, line in enumerate(source) if "start = _time.get_time()" in line]
    nows = [n for n, line in enumerate(source) if line.strip() == "now = _time.get_time()"]
    assert starts and nows and starts[0] < nows[0], "Textual's timer task reads its clock otherwise now"
    return first + nows[0]


@contextmanager
def late_timers() -> Iterator[list[int]]:
    """Every timer task started meanwhile stalls ``STALL`` seconds between its two first reads of the clock; yields
    the list of the stalls made (one entry each)."""
    code, target = Timer._run.__code__, _line_between_the_clock_reads()
    stalls: list[int] = []

    def in_run(frame: FrameType, event: str, arg: Any) -> Any:
        if event == "line" and frame.f_lineno == target and frame.f_locals.get("count") == 0:
            time.sleep(STALL)
            stalls.append(id(frame))
        return in_run

    def on_call(frame: FrameType, event: str, arg: Any) -> Any:
        return in_run if frame.f_code is code else None

    sys.settrace(on_call)
    try:
        yield stalls
    finally:
        sys.settrace(None)


async def test_textual_drops_a_one_shot_timer_the_loop_comes_late_to() -> None:
    # What widgets/timers.py works around (pinned: a Textual release that fires it, or that no longer reads
    # ``_skip``, fails here, and ``one_shot`` can go back to ``set_timer``).
    app = ViewApp()
    async with app.run_test() as pilot:
        fired: list[str] = []
        with late_timers() as stalls:
            textual_timer = app.set_timer(0.001, lambda: fired.append("set_timer"))
            ours = one_shot(app, 0.001, lambda: fired.append("one_shot"), name="test")
            await pilot.pause(0.1)
        assert len(stalls) >= 2  # both came late (and any timer Textual started meanwhile)
        assert textual_timer._skip and not ours._skip
        assert fired == ["one_shot"]


async def test_a_streamed_backlog_is_shown_whole_when_the_loop_comes_late_to_every_timer(monkeypatch: Any) -> None:
    # The coalescer's flush and each catch-up render are 1 ms timers: one dropped left the answer stopped on
    # screen (the coalescer or the view still holding the timer that would never fire).
    monkeypatch.setattr(view_module, "RENDER_BUDGET", 0.0)  # a catch-up timer for every block after the first
    app = ViewApp()
    async with app.run_test(size=(80, 80)) as pilot:
        view = app.query_one("#streamed", MarkdownView)
        with late_timers() as stalls:
            view.append("".join(f"Paragraph {n} of the backlog.\n\n" for n in range(10)) + "the open end")
            for _ in range(100):
                if not view._coalescer.pending and not view._document.behind:
                    break
                await pilot.pause(0.01)
        assert not view._coalescer.pending and not view._document.behind
        assert len(stalls) >= 10  # the coalescer's timer and the catch-up's, all came late to
        await pilot.pause()
        assert [line for line in lines(view) if line] == [f"Paragraph {n} of the backlog." for n in range(10)] + [
            "the open end"
        ]
