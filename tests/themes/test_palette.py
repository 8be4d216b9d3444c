from __future__ import annotations

import pytest

from navtui.themes.palette import blend, contrast_ratio, is_dark, xterm_to_hex


@pytest.mark.parametrize(
    ("index", "colour"),
    [
        (0, "#000000"),
        (9, "#ff0000"),
        (15, "#ffffff"),
        (16, "#000000"),
        (21, "#0000ff"),
        (70, "#5faf00"),
        (196, "#ff0000"),
        (231, "#ffffff"),
        (232, "#080808"),
        (244, "#808080"),
        (255, "#eeeeee"),
    ],
)
def test_xterm_palette(index: int, colour: str) -> None:
    assert xterm_to_hex(index) == colour


def test_xterm_index_out_of_range() -> None:
    with pytest.raises(ValueError):
        xterm_to_hex(256)


def test_wcag_contrast() -> None:
    assert contrast_ratio("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast_ratio("#777777", "#777777") == pytest.approx(1.0)
    # Known value: #767676 on white is the lightest grey that passes AA.
    assert contrast_ratio("#767676", "#ffffff") == pytest.approx(4.54, abs=0.01)


def test_darkness_and_blend() -> None:
    assert is_dark("#1a1b26") and not is_dark("#fdf6e3")
    assert blend("#000000", "#ffffff", 0.5) == "#808080"
