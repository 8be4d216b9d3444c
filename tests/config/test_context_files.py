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


def test_a_repository_context_file_that_links_outside_it_is_not_read(
    tmp_path: Path, navtui_home: Path, monkeypatch
) -> None:
    """git keeps symbolic links: AGENTS.md -> /proc/self/environ sent navtui's environment (tokens, passwords) to the
    model, and a link to ../../.netrc a file the read tool asks about. A link that stays inside the repository, and
    the user's own file wherever it points, are read as before."""
    from navtui.config.context_files import context_file_warnings

    monkeypatch.setenv("MY_DB_PASSWORD", "hunter2-in-the-environment")
    outside = tmp_path / "netrc"
    outside.write_text("machine example.com password hunter2-in-a-file")
    repo = tmp_path / "repo"
    sub = repo / "sub"
    deeper = sub / "deeper"
    (repo / "docs").mkdir(parents=True)
    deeper.mkdir(parents=True)
    (repo / ".git").mkdir()
    (repo / "AGENTS.md").symlink_to("/proc/self/environ")
    (sub / "CLAUDE.md").symlink_to("../../netrc")
    (repo / "docs" / "guide.md").write_text("the team's guide")
    (deeper / "AGENTS.md").symlink_to("../../docs/guide.md")  # inside the repository: read
    (tmp_path / "mine.md").write_text("my own rules")
    (navtui_home / "AGENTS.md").symlink_to(tmp_path / "mine.md")  # the user's file: wherever it points
    files = discover_context_files(deeper)
    assert [f.text for f in files] == ["my own rules", "the team's guide"]
    block = render_context_block(files, deeper)
    assert "hunter2" not in block and "MY_DB_PASSWORD" not in block
    warnings = context_file_warnings(deeper)
    assert any(
        w.startswith(f"{repo / 'AGENTS.md'} is a link to /proc/") and "/environ, outside" in w and "not read" in w
        for w in warnings
    )
    assert any(str(sub / "CLAUDE.md") in w and str(outside) in w and "not read" in w for w in warnings)


def test_a_named_pipe_as_agents_md_does_not_block_the_start(tmp_path: Path) -> None:
    """A command can make a named pipe (mkfifo AGENTS.md): opening it for reading waited for a writer for ever, and
    navtui's next start with it. It is skipped with a warning, and CLAUDE.md beside it is read instead."""
    import os
    import threading

    from navtui.config.context_files import context_file_warnings

    (tmp_path / ".git").mkdir()
    os.mkfifo(tmp_path / "AGENTS.md")
    (tmp_path / "CLAUDE.md").write_text("claude rules")
    found: list[object] = []
    worker = threading.Thread(
        target=lambda: found.append(
            ([f.text for f in discover_context_files(tmp_path)], context_file_warnings(tmp_path))
        ),
        daemon=True,
    )
    worker.start()
    worker.join(60)  # a hang guard, never reached by a passing run
    if worker.is_alive():  # let the blocked open return, so that the thread ends
        with open(tmp_path / "AGENTS.md", "w"):
            pass
        worker.join(60)
    assert found and found[0] == (  # type: ignore[comparison-overlap]
        ["claude rules"],
        [f"{tmp_path / 'AGENTS.md'} is not a regular file (a named pipe, a device or a folder): not read"],
    )
