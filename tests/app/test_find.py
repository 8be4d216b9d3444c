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
