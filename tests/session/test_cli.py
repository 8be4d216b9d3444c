"""`navtui sessions` and `navtui export`: output, errors as messages (no tracebacks), exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from navtui.config.paths import exports_dir
from navtui.session.cli import export_main, sessions_main
from navtui.session.manager import SessionManager
from tests.session.helpers import assistant, user


def _make(project: Path, root: Path, prompt: str, label: str | None = None) -> SessionManager:
    session = SessionManager.create(project, root=root)
    first = session.append_message(user(prompt))
    session.append_message(assistant("done"))
    if label:
        session.append_label(first, label)
    return session


def test_sessions_table_lists_this_directory(project: Path, root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    session = _make(project, root, "refactor the parser", label="good")
    assert sessions_main([], cwd=project, root=root) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split() == ["ID", "MODIFIED", "ENTRIES", "MODEL", "NAME", "LABELS"]
    assert out[1].startswith(session.session_id[:8])
    assert "refactor the parser" in out[1] and "qwen3" in out[1] and out[1].rstrip().endswith("good")


def test_sessions_json_and_all(project: Path, root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _make(project, root, "here")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    _make(elsewhere, root, "there")
    assert sessions_main(["--json"], cwd=project, root=root) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [row["name"] for row in rows] == ["here"]
    assert sessions_main(["--all", "--json"], cwd=project, root=root) == 0
    assert {row["name"] for row in json.loads(capsys.readouterr().out)} == {"here", "there"}
    assert sessions_main(["--all"], cwd=project, root=root) == 0
    assert "DIRECTORY" in capsys.readouterr().out


def test_sessions_says_when_there_are_none(project: Path, root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert sessions_main([], cwd=project, root=root) == 0
    assert "No sessions for this directory" in capsys.readouterr().out


def test_export_by_id_prefix(
    project: Path, root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    session = _make(project, root, "export me")
    monkeypatch.chdir(tmp_path)
    assert export_main([session.session_id[:6]], cwd=project, root=root) == 0
    html_file = exports_dir() / f"{session.path.stem}.html"  # not the working directory unless asked
    assert capsys.readouterr().out.strip() == str(html_file)
    assert "export me" in html_file.read_text() and not list(tmp_path.glob("*.html"))
    assert export_main([session.session_id[:6], "-o", "."], cwd=project, root=root) == 0
    assert (tmp_path / html_file.name).is_file()
    target = tmp_path / "notes.md"
    assert export_main([str(session.path), "-o", str(target)], cwd=project, root=root) == 0
    assert target.read_text().startswith("# export me")
    assert export_main([str(session.path), "--format", "md", "-o", str(tmp_path / "x.txt")], root=root) == 0
    assert (tmp_path / "x.txt").read_text().startswith("# export me")


def test_export_errors_are_messages(project: Path, root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert export_main(["nothing-like-this"], cwd=project, root=root) == 1
    err = capsys.readouterr().err
    assert err.startswith("navtui export: No session matches 'nothing-like-this'") and "Traceback" not in err
