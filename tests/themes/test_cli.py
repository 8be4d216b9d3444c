from __future__ import annotations

import io
from pathlib import Path

from navtui.themes.cli import themes_main
from navtui.themes.loader import BUILTIN_DIR
from tests.themes.conftest import theme_json, write_theme


def run(argv: list[str], cwd: Path | None = None) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = themes_main(argv, cwd=cwd, out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def test_list_shows_builtins_custom_themes_and_broken_files(user_themes: Path, workspace: Path) -> None:
    write_theme(user_themes / "mine.json", theme_json("mine", base="light"))
    write_theme(user_themes / "broken.json", "[")
    code, out, err = run(["list"], cwd=workspace)
    assert code == 0
    lines = out.splitlines()
    assert any(line.split()[:3] == ["dark", "built-in", "dark"] for line in lines)
    assert any(line.split() == ["mine", "user", "light", str(user_themes / "mine.json")] for line in lines)
    broken = user_themes / "broken.json"
    assert f"not loaded: {broken} does not load (1 problem); `navtui themes validate {broken}` lists them" in err
    assert "not valid JSON" not in err  # the details only when it is validated


def test_validate_good_files_exits_0(tmp_path: Path) -> None:
    good = write_theme(tmp_path / "good.json", theme_json("good"))
    code, out, err = run(["validate", str(good), str(BUILTIN_DIR / "nord.json")])
    assert code == 0 and err == ""
    assert f'ok: {good} (theme "good", dark)' in out
    assert "warning" not in out


def test_validate_bad_file_exits_1_with_the_errors(tmp_path: Path) -> None:
    good = write_theme(tmp_path / "good.json", theme_json("good"))
    data = theme_json("bad")
    del data["colors"]["toolSuccessBg"]
    bad = write_theme(tmp_path / "bad.json", data)
    code, out, err = run(["validate", str(good), str(bad)])
    assert code == 1
    assert "ok: " in out
    assert f"{bad}: not a valid theme (1 problem)" in err
    assert 'colors.toolSuccessBg: missing — add a colour like "#1e3a2a"' in err


def test_validate_warns_about_readability_and_builtin_names(tmp_path: Path) -> None:
    data = theme_json("dark")
    data["vars"]["output"] = "#30343c"
    data["colors"]["statusLineStaged"] = data["colors"]["statusLineBg"]
    path = write_theme(tmp_path / "dim.json", data)
    code, out, _ = run(["validate", str(path)])
    assert code == 0
    assert 'note: in a themes folder this file replaces the built-in theme "dark"' in out
    assert "colors.statusLineStaged is the same colour as statusLineBg: it cannot be seen" in out
    assert "colors.toolOutput on toolPendingBg: contrast 1." in out and "below 3.0" in out


def test_validate_says_nothing_of_pairs_between_3_and_4_5(tmp_path: Path) -> None:
    data = theme_json("grey")
    data["vars"]["output"] = "#7a7f8a"  # about 3.6:1 on the tool backgrounds: quiet, still readable
    code, out, _ = run(["validate", str(write_theme(tmp_path / "grey.json", data))])
    assert code == 0 and "toolOutput" not in out


def test_usage_errors_return_2() -> None:
    assert run([])[0] == 2
    assert run(["validate"])[0] == 2
