"""display_safe: no character that a terminal interprets survives; everything else is left as it was."""

from __future__ import annotations

import os
import re

from hypothesis import given
from hypothesis import strategies as st

from navtui.core import display
from navtui.core.display import display_safe, has_unsafe, shown_byte_forms

# Anything a terminal acts on: C0 but tab/newline, DEL, C1, and the reordering (bidi) controls.
_INTERPRETED = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def test_escape_sequences_become_visible_text() -> None:
    osc52 = "\x1b]52;c;aGVsbG8=\x1b\\"
    assert display_safe(f"copy {osc52} done") == "copy ␛]52;c;aGVsbG8=␛\\ done"
    assert display_safe("\x1b]0;TITLE\x07") == "␛]0;TITLE␇"
    assert display_safe("\x1b[2J\x1b[H") == "␛[2J␛[H"


def test_c1_controls_del_and_nul_are_shown_by_code() -> None:
    assert display_safe("a\x9b2Jb") == "a\\x9b2Jb"  # the one-byte CSI
    assert display_safe("\x9d0;t\x9c") == "\\x9d0;t\\x9c"
    assert display_safe("x\x7fy\x00z") == "x␡y␀z"


def test_a_shown_byte_reads_back_as_the_byte_then_as_the_c1_character() -> None:
    latin1 = os.fsdecode(b"caf\xe9.txt")
    assert shown_byte_forms(display_safe(latin1)) == [latin1]
    assert shown_byte_forms("a\\x85b") == ["a\udc85b", "a\x85b"]  # a byte that is not UTF-8, or NEL itself
    assert shown_byte_forms("plain") == [] and shown_byte_forms("\\x41 \\u202e") == []  # ASCII is never shown so


def test_newline_tab_and_crlf() -> None:
    assert display_safe("a\tb\nc") == "a\tb\nc"
    assert display_safe("line\r\nnext\rover") == "line\nnext␍over"


def test_bidi_overrides_are_shown_but_ordinary_unicode_is_not_touched() -> None:
    assert display_safe("if admin\u202e\u2066 x") == "if admin\\u202e\\u2066 x"
    text = "naïve café — 漢字 👩‍💻 \u200d ünïcødé"
    assert display_safe(text) is text  # unchanged text is the same object (no copy)
    assert not has_unsafe(text)


@given(st.text())
def test_nothing_interpreted_survives(text: str) -> None:
    assert _INTERPRETED.search(display_safe(text)) is None


_NO_CR = st.text(alphabet=st.characters(blacklist_characters="\r"))


@given(_NO_CR, _NO_CR)
def test_chunks_give_the_same_result_as_the_whole(first: str, second: str) -> None:
    # A stream cut anywhere renders the same: each character is replaced on its own.
    assert display_safe(first) + display_safe(second) == display_safe(first + second)


def test_stand_ins_are_made_for_the_characters_met_only() -> None:
    # A table of every stand-in (~2,100 with the surrogates) was 0.26 MB of every process (docs/speed.md).
    display._TABLE.clear()
    assert display_safe("a\x1b[2J\u202eb\r\n") == "a␛[2J\\u202eb\n"
    assert sorted(display._TABLE) == [0x1B, 0x202E]
    assert display_safe("\x1b\udc9b") == "␛\\x9b"
    assert sorted(display._TABLE) == [0x1B, 0x202E, 0xDC9B]
