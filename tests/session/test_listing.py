"""Finding sessions: the per-directory layout, listings, resume by id prefix, continue the latest."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from navtui.config.paths import sessions_dir
from navtui.core.errors import NavtuiError
from navtui.session.listing import encode_cwd, id_from_filename
from navtui.session.manager import SessionManager, list_sessions
from tests.session.helpers import assistant, user


def _session(cwd: Path, root: Path, prompt: str, *, age: int = 0, model: str | None = None) -> SessionManager:
    manager = SessionManager.create(cwd, root=root)
    manager.append_message(user(prompt))
    if model:
        manager.append_model_change("ollama", model)
    manager.append_message(assistant("ok"))
    manager.close()
    stamp = 1_700_000_000 - age
    os.utime(manager.path, (stamp, stamp))
    return manager


def test_files_live_under_the_encoded_cwd(project: Path) -> None:
    manager = SessionManager.create(project)
    assert manager.path.parent == sessions_dir() / encode_cwd(project.resolve())
    assert manager.path.name.endswith(f"_{manager.session_id}.jsonl")
    assert id_from_filename(manager.path) == manager.session_id
    assert encode_cwd(Path("/home/me/work")) == "--home-me-work--"


def test_list_sessions_shows_name_or_first_prompt_newest_first(project: Path, root: Path, tmp_path: Path) -> None:
    old = _session(project, root, "first prompt\nsecond line", age=100)
    new = _session(project, root, "fix the bug", model="qwen3-coder")
    new_reopened = SessionManager.open(new.path)
    new_reopened.set_name("Bug hunt")
    new_reopened.append_label(new_reopened.entries[0].id, "start")  # type: ignore[arg-type]
    other = tmp_path / "elsewhere"
    other.mkdir()
    _session(other, root, "unrelated")
    rows = list_sessions(project, root=root)
    assert [row.id for row in rows] == [new.session_id, old.session_id]
    assert rows[0].name == "Bug hunt" and rows[0].named and rows[0].labels == ["start"]
    assert rows[0].model == "qwen3" and rows[0].entry_count == 5
    assert rows[1].name == "first prompt second line" and not rows[1].named
    assert rows[1].cwd == str(project.resolve())
    assert len(list_sessions(None, root=root)) == 3
    assert rows[0].to_json()["path"] == str(new.path)


def test_a_session_of_runs_only_is_named_after_its_first_run(project: Path, root: Path) -> None:
    # A session where only "!cmd" / "$code" ran was listed as "(empty)" (in `navtui sessions` and the picker).
    runs = SessionManager.create(project, root=root)
    runs.append_execution({"role": "bashExecution", "command": "make test", "output": "ok", "exitCode": 0})
    runs.append_execution({"role": "pythonExecution", "code": "print(1)", "output": "1", "exitCode": 0})
    runs.close()
    python = SessionManager.create(project, root=root)
    python.append_execution({"role": "pythonExecution", "code": "import sys\nprint(sys.path)", "output": ""})
    python.close()
    later = SessionManager.create(project, root=root)
    later.append_execution({"role": "bashExecution", "command": "git status", "output": "", "exitCode": 0})
    later.append_message(user("fix the bug"))
    later.close()
    names = {row.id: row.name for row in list_sessions(project, root=root)}
    assert names[runs.session_id] == "!make test"
    assert names[python.session_id] == "$import sys print(sys.path)"
    assert names[later.session_id] == "fix the bug"  # a prompt names it when there is one


def test_resolve_by_prefix_path_and_errors(project: Path, root: Path, tmp_path: Path) -> None:
    one = _session(project, root, "one")
    two = _session(project, root, "two")
    assert SessionManager.resolve(project, one.session_id[:6], root=root) == one.path
    assert SessionManager.resolve(project, two.session_id.upper(), root=root) == two.path
    assert SessionManager.resolve(project, str(one.path), root=root) == one.path
    other = tmp_path / "other"
    other.mkdir()
    far = _session(other, root, "far away")
    assert SessionManager.resolve(project, far.session_id[:8], root=root) == far.path  # falls back to all dirs
    with pytest.raises(NavtuiError, match="No session matches 'zzzz'"):
        SessionManager.resolve(project, "zzzz", root=root)
    with pytest.raises(NavtuiError, match="No session file"):
        SessionManager.resolve(project, str(tmp_path / "missing.jsonl"), root=root)


def test_an_ambiguous_prefix_names_the_candidates(project: Path, root: Path) -> None:
    directory = root / encode_cwd(project.resolve())
    directory.mkdir(parents=True)
    for session_id in ("abc111", "abc222"):
        (directory / f"2026-01-01T00-00-00-000Z_{session_id}.jsonl").write_text(
            f'{{"type":"session","version":3,"id":"{session_id}","cwd":"{project.resolve()}"}}\n'
        )
    with pytest.raises(NavtuiError, match="matches 2 sessions") as info:
        SessionManager.resolve(project, "abc", root=root)
    assert "abc111" in str(info.value) and "more characters" in str(info.value)


def test_continue_recent_opens_the_newest_readable_session(project: Path, root: Path) -> None:
    assert SessionManager.continue_recent(project, root=root) is None
    _session(project, root, "old", age=100)
    newest = _session(project, root, "newest", age=10)
    broken = root / encode_cwd(project.resolve()) / "2030-01-01T00-00-00-000Z_broken.jsonl"
    broken.write_text("garbage\n")
    recent = SessionManager.continue_recent(project, root=root)
    assert recent is not None and recent.session_id == newest.session_id
    assert [m.text for m in recent.build_context().messages] == ["newest", "ok"]


def test_continue_recent_finds_a_session_whose_first_line_is_damaged(project: Path, root: Path) -> None:
    _session(project, root, "older", age=100)
    damaged = _session(project, root, "latest", age=10)
    first, rest = damaged.path.read_bytes().split(b"\n", 1)
    damaged.path.write_bytes(first[:20] + b"\n" + rest)
    recent = SessionManager.continue_recent(project, root=root)
    assert recent is not None and recent.path == damaged.path
    assert recent.read_only_reason == "its first line is not a readable session header"
    assert [m.text for m in recent.build_context().messages] == ["latest", "ok"]


def test_unreadable_lines_are_not_counted_as_entries(project: Path, root: Path) -> None:
    manager = _session(project, root, "count me")  # header + 2 entries
    with open(manager.path, "ab") as handle:
        handle.write(b"not json at all\n\x00\x00\x00\x00\n" + b'{"type":"message","id":"torn","mess')
    [row] = list_sessions(project, root=root)
    assert row.entry_count == 2


@pytest.mark.parametrize("deep", [b"[" * 100_000 + b"]" * 100_000, b'{"a":' * 100_000 + b"1" + b"}" * 100_000])
def test_a_line_nested_too_deep_is_a_damaged_line_not_a_crash(project: Path, root: Path, deep: bytes) -> None:
    """A line nested 100,000 deep (a hostile or broken session file) raised RecursionError out of ``-c``, ``-r``
    and the session picker; it is a line that does not decode, like any damaged one."""
    manager = _session(project, root, "latest")
    header, rest = manager.path.read_bytes().split(b"\n", 1)
    entry = b'{"type":"custom","id":"deep","parentId":null,"customType":"x","data":' + deep + b"}"
    manager.path.write_bytes(header + b"\n" + entry + b"\n" + rest + entry + b"\n")
    [row] = list_sessions(project, root=root)  # the listing does not parse lines: it counts object-shaped ones
    assert row.path == manager.path
    recent = SessionManager.continue_recent(project, root=root)
    assert recent is not None and recent.path == manager.path
    assert [m.text for m in recent.build_context().messages] == ["latest", "ok"]
    manager.path.write_bytes(deep + b"\n" + rest)  # as the header
    recent = SessionManager.continue_recent(project, root=root)
    assert recent is not None and recent.read_only_reason == "its first line is not a readable session header"
    assert [m.text for m in recent.build_context().messages] == ["latest", "ok"]


def test_a_session_copied_from_another_machine_is_found_in_its_folder(project: Path, root: Path) -> None:
    manager = _session(project, root, "made elsewhere")
    lines = manager.path.read_text().splitlines()
    header = json.loads(lines[0]) | {"cwd": "/Users/someone/work/project"}  # no such directory here
    manager.path.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    [row] = list_sessions(project, root=root)
    assert row.cwd == "/Users/someone/work/project" and row.name == "made elsewhere"


def test_a_directory_whose_name_encodes_the_same_keeps_its_sessions(tmp_path: Path, root: Path) -> None:
    dashed, nested = tmp_path / "a-b", tmp_path / "a" / "b"  # both encode to --...-a-b--
    dashed.mkdir()
    nested.mkdir(parents=True)
    _session(dashed, root, "in a-b")
    _session(nested, root, "in a/b")
    assert [row.name for row in list_sessions(dashed, root=root)] == ["in a-b"]
    assert [row.name for row in list_sessions(nested, root=root)] == ["in a/b"]


def test_an_omp_title_slot_file_is_listed_with_its_title(project: Path, root: Path) -> None:
    folder = root / encode_cwd(project.resolve())
    folder.mkdir(parents=True)
    target = folder / "2026-01-01T00-00-00-000Z_omp.jsonl"
    target.write_bytes((Path(__file__).parent / "fixtures" / "omp-18.jsonl").read_bytes())
    [row] = list_sessions(project, root=root)
    assert (row.name, row.named, row.entry_count) == ("Explaining main.py", True, 11)
    assert row.id == "01a20876-b7eb-7104-9531-e1a9e5b2c44e" and row.model == "claude-sonnet-4-5"


def test_a_message_nested_deeper_than_navtui_can_write_is_a_damaged_line(project: Path, root: Path) -> None:
    """Nested 300 deep, a line decodes (json reads ~1,000 levels) but its message cannot be measured, sent or
    copied (pydantic writes 255): -c raised ValueError out of build_context. It is a damaged line."""
    manager = _session(project, root, "latest")
    lines = manager.path.read_text(encoding="utf-8").splitlines()
    last = json.loads(lines[-1])
    call = {"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "HERE"}}
    message = {**last["message"], "content": [call], "stopReason": "toolUse"}
    deep = json.dumps({**last, "id": "deep0001", "parentId": last["id"], "message": message})
    deep = deep.replace('"HERE"', "[" * 300 + "]" * 300)
    manager.path.write_text("\n".join([*lines, deep]) + "\n", encoding="utf-8")
    recent = SessionManager.continue_recent(project, root=root)
    assert recent is not None and recent.path == manager.path
    assert [m.text for m in recent.build_context().messages] == ["latest", "ok"]
    assert any("skipped 1 unreadable line" in warning for warning in recent.warnings)
