"""AGENTS.md / CLAUDE.md discovery: user file, then repo root down to cwd."""

from __future__ import annotations

from pathlib import Path

from navtui.agent.prompt import build_system_prompt, with_handover_notes
from navtui.config.context_files import discover_context_files, render_context_block


def test_discovery_order_root_to_cwd_with_user_first(tmp_path: Path, navtui_home: Path) -> None:
    repo = tmp_path / "repo"
    sub = repo / "pkg" / "mod"
    sub.mkdir(parents=True)
    (repo / ".git").mkdir()
    (navtui_home / "AGENTS.md").write_text("user rules")
    (repo / "AGENTS.md").write_text("repo rules")
    (repo / "CLAUDE.md").write_text("claude rules (shadowed by AGENTS.md)")
    (repo / "pkg" / "CLAUDE.md").write_text("pkg rules")
    (sub / "AGENTS.md").write_text("mod rules")
    (tmp_path / "AGENTS.md").write_text("outside the repo: never read")
    files = discover_context_files(sub)
    assert [f.text for f in files] == ["user rules", "repo rules", "pkg rules", "mod rules"]


def test_no_repo_reads_only_cwd(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("parent")
    child = tmp_path / "child"
    child.mkdir()
    (child / "AGENTS.md").write_text("child")
    assert [f.text for f in discover_context_files(child)] == ["child"]


def test_context_block_in_system_prompt(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "AGENTS.md").write_text("Always run pytest.")
    prompt = build_system_prompt(tmp_path, [])
    assert "<context>" in prompt and "Always run pytest." in prompt and 'path="AGENTS.md"' in prompt
    assert render_context_block([], tmp_path) == ""


def test_handover_notes_keep_the_prefix(tmp_path: Path) -> None:
    base = build_system_prompt(tmp_path, [])
    with_notes = with_handover_notes(base, "did X; next Y")
    assert with_notes.startswith(base)
    assert with_notes.endswith("<handover_notes>\ndid X; next Y\n</handover_notes>")
