"""A repository's JSON nested deeper than Python's stack (``[[[[...`` 100,000 deep in ``.navtui/settings.json``,
``.mcp.json`` or a theme) is a file that does not load, named as such: it was a ``RecursionError`` traceback at
every start in that repository, and from ``navtui themes``."""

from __future__ import annotations

from pathlib import Path

from tests.fakes import Text
from tests.test_cli import headless, navtui

DEEP = "[" * 100_000 + "]" * 100_000


def test_deep_project_settings_are_an_error_naming_the_file(fake_server, workspace: Path) -> None:
    (workspace / ".navtui").mkdir()
    (workspace / ".navtui" / "settings.json").write_text(DEEP)
    result = headless(fake_server, "--print", "hi", cwd=workspace)
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr[-500:]
    assert "settings.json: nested too deeply to be settings (fix the file or delete it)" in result.stderr

    from navtui.app.startup import peek_settings

    assert peek_settings(workspace, {}).approval == "ask"  # the first frame reads it too


def test_a_deep_mcp_file_is_a_warning_and_the_run_goes_on(fake_server, workspace: Path) -> None:
    (workspace / ".mcp.json").write_text('{"mcpServers": ' + DEEP + "}")
    fake_server.script(Text("fine"))
    result = headless(fake_server, "--print", "hi", cwd=workspace)
    assert result.returncode == 0 and result.stdout == "fine\n", result.stderr[-500:]
    assert ".mcp.json: nested too deeply to be settings" in result.stderr


def test_a_deep_theme_does_not_load_and_says_so(workspace: Path) -> None:
    themes = workspace / ".navtui" / "themes"
    themes.mkdir(parents=True)
    (themes / "evil.json").write_text('{"name": "evil", "colors": ' + DEEP + "}")
    listed = navtui("themes", "list", cwd=workspace)
    assert listed.returncode == 0 and "Traceback" not in listed.stderr, listed.stderr[-500:]
    assert "evil.json does not load (1 problem)" in listed.stdout + listed.stderr
    checked = navtui("themes", "validate", str(themes / "evil.json"), cwd=workspace)
    assert checked.returncode == 1 and "nested too deeply to be a theme" in checked.stdout + checked.stderr
