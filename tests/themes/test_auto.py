from __future__ import annotations

import pytest

from navtui.themes.auto import resolve_theme_setting, terminal_background


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("15;0", "dark"),
        ("0;15", "light"),
        ("7;0", "dark"),
        ("0;7", "light"),
        ("15;8", "dark"),
        ("0;default;15", "light"),
        ("12;default;0", "dark"),
        ("default;default", None),
        ("", None),
        ("0;200", None),
    ],
)
def test_colorfgbg(value: str, expected: str | None) -> None:
    assert terminal_background({"COLORFGBG": value}) == expected


def test_auto_picks_a_slot_and_other_settings_pass_through() -> None:
    assert resolve_theme_setting("auto", {"COLORFGBG": "0;15"}) == "light"
    assert resolve_theme_setting("auto", {"COLORFGBG": "15;0"}, dark="tokyo-night") == "tokyo-night"
    assert resolve_theme_setting("auto", {}) == "dark"  # the terminal does not say: dark slot
    assert resolve_theme_setting("nord", {"COLORFGBG": "0;15"}) == "nord"
