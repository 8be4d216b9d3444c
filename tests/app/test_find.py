"""/find: search the transcript of a long session and scroll to what was found."""

from __future__ import annotations

from typing import Any

from navtui.widgets.items import AssistantItem, NoticeItem, TranscriptItem, UserItem
from tests.app.conftest import main_screen, settle, transcript, wait_for

SIZE = (100, 30)


def long_session() -> list[TranscriptItem]:
    items: list[TranscriptItem] = []
    for turn in range(200):
        items.append(UserItem(f"question {turn}"))
        said = f"answer {turn}\n\n" + "\n\n".join(f"paragraph {n} of answer {turn}" for n in range(8))
        if turn in (18, 150):
            said += f"\n\nThe Flux capacitor of turn {turn} is here."
        items.append(AssistantItem(said))
    return items


def shown(app: Any, index: int) -> bool:
    """The widget of item ``index`` is mounted and its last rows (where the words are) are on screen."""
    view = transcript(app)
    if index < view.first:
        return False
    region = view.item_widgets[index - view.first].virtual_region
    return view.scroll_y <= region.bottom - 2 < view.scroll_y + view.scrollable_content_region.height


async def find(app: Any, pilot: Any, text: str) -> None:
    main_screen(app).query_one("#prompt").load_text(text)  # typed, then Enter: the prompt's own path
    await pilot.press("enter")
    await settle(app, pilot)


async def test_find_scrolls_to_each_earlier_entry_that_holds_the_words(make_app: Any) -> None:
    # In a 200-turn session the only way back to an answer was PgUp, screen by screen (the older entries mounted
    # 25 at a time as the top was reached). /find WORDS shows the newest entry holding them; /find alone the one
    # before; the transcript stops following until PgDn or the next message.
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        view = transcript(app)
        view.load(long_session())
        await settle(app, pilot)
        assert view.first > 301 and view.following
        await find(app, pilot, "/find flux CAPACITOR")
        await wait_for(pilot, lambda: shown(app, 301))
        assert not view.following
        await find(app, pilot, "/find")
        await wait_for(pilot, lambda: shown(app, 37))
        assert not view.following and not shown(app, 301)
        await find(app, pilot, "/find")
        notices = [item.text for item in view.items if isinstance(item, NoticeItem)]
        assert notices[-1] == "No earlier entry holds “flux CAPACITOR” (2 found)."
        await find(app, pilot, "/find no such words")
        notices = [item.text for item in view.items if isinstance(item, NoticeItem)]
        assert notices[-1] == "Nothing in this session holds “no such words”."


async def test_find_does_not_find_its_own_notices(make_app: Any) -> None:
    # "Nothing in this session holds “x”" is an entry of the transcript that holds x: /find x again went to it
    # ("entry 6 of 6"), and after "No earlier entry holds “flux”", /find flux went to that notice, not the answer.
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        view = transcript(app)
        view.load(long_session())
        await settle(app, pilot)
        await find(app, pilot, "/find no such words")
        await find(app, pilot, "/find no such words")
        assert view.last_found is None and view.find("no such words") is None
        await find(app, pilot, "/find flux CAPACITOR")
        await find(app, pilot, "/find")
        await find(app, pilot, "/find")  # "No earlier entry holds ..." (the count is of the session's entries)
        notices = [item.text for item in view.items if isinstance(item, NoticeItem)]
        assert notices[-1] == "No earlier entry holds “flux CAPACITOR” (2 found)."
        await find(app, pilot, "/find flux CAPACITOR")
        assert view.last_found == ("flux CAPACITOR", 301)
        await wait_for(pilot, lambda: shown(app, 301))


async def test_the_words_found_are_marked_in_the_theme_colours_and_the_next_find_moves_them(make_app: Any) -> None:
    """/find scrolled to the entry and left the user to look for the words in it: they are marked, in the theme's
    colours (`Transcript > .transcript--found`), over the entry's own styles; the next /find takes them along."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        view = transcript(app)
        view.load(long_session())
        await settle(app, pilot)
        await find(app, pilot, "/find flux CAPACITOR")
        await wait_for(pilot, lambda: shown(app, 301))
        answer = view.item_widgets[301 - view.first]
        style = view.get_component_rich_style("transcript--found")
        assert style.bgcolor is not None and style.bold
        rows = [answer.render_line(y) for y in range(answer.size.height)]
        marked = [
            "".join(s.text for s in row if s.style is not None and s.style.bgcolor == style.bgcolor) for row in rows
        ]
        assert [m for m in marked if m] == ["Flux capacitor"]
        assert any("The Flux capacitor of turn 150 is here." in row.text for row in rows)
        await find(app, pilot, "/find question 150")
        await wait_for(pilot, lambda: shown(app, 300))
        asked = view.item_widgets[300 - view.first]
        assert answer.found is None and not any(
            s.style is not None and s.style.bgcolor == style.bgcolor
            for y in range(answer.size.height)
            for s in answer.render_line(y)
        )
        assert asked.found is not None and asked.found[0] == "question 150"
        text = asked.render()
        assert [text.plain[span.start : span.end] for span in text.spans if span.style == style] == ["question 150"]
