"""The transcript's scrollbar, drawn from shared strips (widgets/scrollbar.py), draws what Textual's draws."""

from __future__ import annotations

from rich.style import Style
from textual.scrollbar import ScrollBar
from textual.strip import Strip

from navtui.widgets.items import UserItem
from navtui.widgets.scrollbar import LineScrollBar
from tests.app.conftest import settle, transcript


def cells(strips: list[Strip]) -> list[list[tuple[str, Style]]]:
    return [[(segment.text, segment.style or Style()) for segment in strip] for strip in strips]


async def test_the_transcript_scrollbar_draws_what_textual_draws(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        view = transcript(app)
        for i in range(60):
            view.add(UserItem(f"message {i}"))
        await settle(app, pilot)
        bar = view.vertical_scrollbar
        assert isinstance(bar, LineScrollBar) and bar.display
        region = bar.size.region
        seen = set()
        for y in (0, view.max_scroll_y // 3, view.max_scroll_y):
            view.scroll_to(y=y, animate=False)
            await settle(app, pilot)
            ours = bar.render_lines(region)
            assert cells(ours) == cells(ScrollBar.render_lines(bar, region))
            seen.add(tuple(strip.text for strip in ours))
            grab = [
                row for row, line in enumerate(cells(ours)) if any(s.meta.get("@mouse.down") == "grab" for _, s in line)
            ]
            assert grab, "the thumb is drawn, and pressing it grabs it"
            assert len({id(strip) for strip in ours}) <= 5  # rows that look the same share one strip
        assert len(seen) == 3  # the thumb at the top, a third of the way down, at the bottom
        bar.mouse_over = True  # the hover colours
        await settle(app, pilot)
        hovered = bar.render_lines(region)
        assert cells(hovered) == cells(ScrollBar.render_lines(bar, region)) != cells(ours)
