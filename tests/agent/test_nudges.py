"""Every nudge navtui writes starts as core/messages.py's list says, so a protocol can tell it from the user's words."""

from __future__ import annotations

from navtui.agent.asked_files import asked_message, unchanged_message
from navtui.agent.claims import CLAIM_MESSAGE
from navtui.agent.renames import Rename, rename_message
from navtui.agent.unexpected_stop import nudge_for
from navtui.core.messages import is_nudge


def test_the_stop_watchs_and_the_claim_checks_nudges_are_known() -> None:
    for kind in ("truncated", "empty", "announced"):
        assert is_nudge(nudge_for(kind, 1).message), kind  # type: ignore[arg-type]
    assert is_nudge(CLAIM_MESSAGE)
    assert is_nudge(asked_message(["answer.txt"]))
    assert is_nudge(unchanged_message("x.py")) and is_nudge(asked_message(["a.txt"], "17"))
    assert is_nudge(rename_message(Rename("a", "b", ()), {"x.py": [1]}))


def test_a_users_own_words_are_no_nudge() -> None:
    assert not is_nudge("Fix add in calc.py.")
    assert not is_nudge("You stopped? Then explain why.")
