"""Colours as omp writes them: CSS hex forms with alpha, and "$name" references in the export section."""

from __future__ import annotations

import pytest

from navtui.themes.loader import load_theme_file
from navtui.themes.palette import blend
from navtui.themes.resolve import build_theme
from navtui.themes.schema import ThemeError
from tests.themes.conftest import FIXTURES, theme_json


def build(data: dict) -> object:
    return build_theme(data, label="t.json")


@pytest.mark.parametrize(
    ("value", "painted"),
    [("#abc", "#aabbcc"), ("#ABCDEF", "#abcdef"), ("#abcf", "#aabbcc"), ("#aabbccff", "#aabbcc")],
)
def test_short_and_opaque_forms_mean_the_same_colour(value: str, painted: str) -> None:
    data = theme_json("x")
    data["colors"]["mdHr"] = value
    assert build(data).colors["mdHr"] == painted  # type: ignore[attr-defined]


def test_alpha_is_painted_over_the_page_background() -> None:
    data = theme_json("x")
    data["export"] = {"pageBg": "#000000"}
    data["colors"]["selectedBg"] = "#ffffff80"  # white at 50%
    data["vars"]["half"] = "#f008"  # red at 53% through a variable
    data["colors"]["mdHr"] = "half"
    theme = build(data)
    assert theme.colors["selectedBg"] == blend("#000000", "#ffffff", 0x80 / 255) == "#808080"  # type: ignore[attr-defined]
    assert theme.colors["mdHr"] == blend("#000000", "#ff0000", 0x88 / 255)  # type: ignore[attr-defined]


def test_an_alpha_page_background_is_painted_over_the_tone_default() -> None:
    data = theme_json("x")
    data["export"] = {"pageBg": "#20202000", "cardBg": "#ffffff00"}  # fully transparent
    theme = build(data)
    assert theme.export["pageBg"] == theme.background == "#121212"  # type: ignore[attr-defined]
    assert theme.export["cardBg"] == "#121212"  # type: ignore[attr-defined]


def test_dollar_references_are_variables_in_export_only() -> None:
    data = theme_json("x")
    data["vars"]["stone"] = "#0f0f14"
    data["export"] = {"pageBg": "$stone", "cardBg": "stone"}
    theme = build(data)
    assert theme.export == {"pageBg": "#0f0f14", "cardBg": "#0f0f14"}  # type: ignore[attr-defined]
    data["colors"]["accent"] = "$stone"
    with pytest.raises(ThemeError) as raised:
        build(data)
    assert raised.value.issues == [
        'colors.accent: "$stone": "$name" references are for "export" only (as in omp) — write "stone" here'
    ]


def test_omp_poimandres_loads_with_its_translucent_selection() -> None:
    theme = load_theme_file(FIXTURES / "dark-poimandres.json")
    # vars.poimandresSelection is "#717cb425" (alpha 0x25) over pageBg "#1b1e28"
    assert theme.background == "#1b1e28"
    assert theme.colors["selectedBg"] == blend("#1b1e28", "#717cb4", 0x25 / 255)


@pytest.mark.parametrize(("name", "problem"), [("onyx.json", '"$vein"'), ("light-prism.json", '"muted"')])
def test_the_two_omp_themes_omp_cannot_resolve_either_are_reported(name: str, problem: str) -> None:
    with pytest.raises(ThemeError) as raised:
        load_theme_file(FIXTURES / name)
    assert problem in raised.value.issues[0]
