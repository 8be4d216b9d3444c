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
    assert f"not loaded: {user_themes / 'broken.json'}: not a valid theme" in err


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
    path = write_theme(tmp_path / "dim.json", data)
    code, out, _ = run(["validate", str(path)])
    assert code == 0
    assert 'warning: "dark" is a built-in theme name' in out
    assert "colors.toolOutput on toolPendingBg: contrast" in out


def test_usage_errors_return_2() -> None:
    assert run([])[0] == 2
    assert run(["validate"])[0] == 2
