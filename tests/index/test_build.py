"""Building, searching and updating the index on the fixture repository."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from navtui.index import Index, build_index, index_path, update_files
from tests.index.conftest import write


def search_paths(root: Path, query: str, limit: int = 5) -> list[str]:
    index = Index.open(root)
    assert index is not None
    with index:
        return [hit.path for hit in index.search(query, limit)]


def bump(path: Path, text: str) -> None:
    """Write new content with a later mtime (file systems with coarse clocks would hide the change)."""
    before = path.stat().st_mtime_ns if path.exists() else 0
    path.write_text(text, encoding="utf-8")
    os.utime(path, ns=(before + 2_000_000_000, before + 2_000_000_000))


def test_first_build_indexes_sources_and_skips_binaries(repo: Path) -> None:
    stats = build_index(repo)
    assert stats.files_seen == 11
    assert stats.files_indexed == 10
    assert stats.files_skipped == 1  # assets/blob.raw has NUL bytes
    assert stats.chunks > 10 and stats.symbols > 15
    assert stats.notices == []
    assert index_path(repo).is_file()
    assert {"index.sqlite*", ".gitignore"} <= set((repo / ".navtui" / ".gitignore").read_text().splitlines())
    assert "Indexed 11 files" in stats.summary()


def test_camel_case_and_snake_case_meet_in_search(repo: Path) -> None:
    build_index(repo)
    assert search_paths(repo, "parse args")[0] == "src/cli.ts"
    assert search_paths(repo, "parse_args")[0] == "src/cli.ts"
    assert search_paths(repo, "parseArgs")[0] == "src/cli.ts"
    assert search_paths(repo, "loadUserConfig")[0] == "src/config.py"
    assert search_paths(repo, "user config")[0] == "src/config.py"


def test_search_returns_the_chunk_with_its_span_and_symbol(repo: Path) -> None:
    build_index(repo)
    index = Index.open(repo)
    assert index is not None
    with index:
        hit = index.search("checksum bytes", 1)[0]
        assert (hit.path, hit.start_line, hit.end_line, hit.symbol) == (
            "crates/core/src/lib.rs",
            11,
            13,
            "checksum_bytes",
        )
        assert hit.text.startswith("pub fn checksum_bytes") and hit.score > 0
        assert index.search("zebra quokka", 5) == []  # matches nothing, raises nothing
        assert index.search("", 5) == []


def test_ignored_vendored_and_binary_files_are_not_searchable(repo: Path) -> None:
    build_index(repo)
    for word in ("builtArtifact", "vendoredThing", "venv_function", "other_env_function", "skipped_generated_function"):
        assert search_paths(repo, word) == [], word
    assert search_paths(repo, "kept_generated_function") == ["src/gen/generated_keep.py"]
    assert "assets/blob.raw" not in search_paths(repo, "parseArgs inside binary", 20)
    assert search_paths(repo, "hidden") == []  # secret_notes.txt is ignored


def test_rebuild_reads_only_changed_files_and_drops_deleted_ones(repo: Path) -> None:
    build_index(repo)
    again = build_index(repo)
    assert (again.files_indexed, again.files_unchanged, again.files_removed) == (0, 10, 0)

    bump(repo / "pkg/server.go", "package server\n\nfunc RenamedEntryPoint() {\n}\n")
    (repo / "native/math.c").unlink()
    write(repo, "src/extra.py", "def brand_new_helper():\n    return 42\n")
    stats = build_index(repo)
    assert (stats.files_indexed, stats.files_removed) == (2, 1)
    assert search_paths(repo, "NewServer") == []
    assert search_paths(repo, "renamed entry point")[0] == "pkg/server.go"
    assert "native/math.c" not in search_paths(repo, "square vector2", 20)
    assert search_paths(repo, "brand new helper")[0] == "src/extra.py"
    index = Index.open(repo)
    assert index is not None
    with index:
        assert index.symbols("square") == []
        assert [s.name for s in index.symbols("RenamedEntryPoint")] == ["RenamedEntryPoint"]


def test_a_touched_file_with_the_same_content_is_not_rechunked(repo: Path) -> None:
    build_index(repo)
    target = repo / "src/cli.ts"
    os.utime(target, ns=(target.stat().st_mtime_ns + 5_000_000_000,) * 2)
    stats = build_index(repo)
    assert (stats.files_indexed, stats.files_unchanged) == (0, 10)
    stats = build_index(repo)  # the new mtime was recorded: no re-hash next time either
    assert stats.files_unchanged == 10


def test_files_over_the_size_limit_are_skipped_and_leave_the_index(repo: Path) -> None:
    build_index(repo)
    bump(repo / "docs/guide.md", "# Guide\n" + "frobnicator words\n" * 200)
    stats = build_index(repo, max_file_bytes=2000)
    assert stats.files_removed == 1 and stats.files_skipped == 2
    assert search_paths(repo, "frobnicator") == []


def test_a_newly_ignored_file_leaves_the_index(repo: Path) -> None:
    build_index(repo)
    bump(repo / ".gitignore", "build/\n*.log\nsecret*.txt\njava/\n")
    stats = build_index(repo)
    assert stats.files_removed == 1
    assert search_paths(repo, "findAllUsers") == []


def test_update_files_reindexes_the_agents_edits(repo: Path) -> None:
    build_index(repo)
    bump(repo / "src/config.py", "def save_user_config(path):\n    pass\n")
    write(repo, "src/new_module.py", "def freshly_written():\n    pass\n")
    (repo / "pkg/server.go").unlink()
    write(repo, "logs/debug.log", "ignored_log_entry\n")
    stats = update_files(
        repo, ["src/config.py", repo / "src/new_module.py", "pkg/server.go", "logs/debug.log", "/etc/passwd"]
    )
    assert stats is not None
    assert (stats.files_indexed, stats.files_removed) == (2, 1)
    assert search_paths(repo, "save user config")[0] == "src/config.py"
    assert search_paths(repo, "load_user_config") == []
    assert search_paths(repo, "freshly written")[0] == "src/new_module.py"
    assert search_paths(repo, "NewServer") == []
    assert search_paths(repo, "ignored_log_entry") == []


def test_update_files_without_an_index_does_nothing(repo: Path) -> None:
    assert update_files(repo, ["src/cli.ts"]) is None
    assert not index_path(repo).exists()


def test_a_corrupt_index_is_rebuilt_with_a_notice(repo: Path) -> None:
    build_index(repo)
    path = index_path(repo)
    path.write_bytes(b"this is not an SQLite database at all" * 100)
    assert Index.open(repo) is None  # readers never crash on it
    stats = build_index(repo)
    assert len(stats.notices) == 1 and "damaged" in stats.notices[0] and "rebuilt" in stats.notices[0]
    assert stats.files_indexed == 10
    assert search_paths(repo, "parse args")[0] == "src/cli.ts"


def test_an_index_from_another_schema_version_is_rebuilt(repo: Path) -> None:
    build_index(repo)
    with sqlite3.connect(index_path(repo)) as conn:
        conn.execute("UPDATE meta SET value = '0' WHERE key = 'schema'")
    assert Index.open(repo) is None
    stats = build_index(repo)
    assert "schema version" in stats.notices[0]
    assert Index.open(repo) is not None


def test_a_locked_index_is_replaced_by_a_fresh_build_with_a_notice(repo: Path) -> None:
    build_index(repo)
    holder = sqlite3.connect(index_path(repo), isolation_level=None)
    try:
        holder.execute("BEGIN EXCLUSIVE")
        holder.execute("DELETE FROM files")  # uncommitted: the holder keeps the write lock
        write(repo, "src/late.py", "def added_while_locked():\n    pass\n")
        stats = build_index(repo, busy_timeout=0.2)
    finally:
        holder.close()
    assert "locked" in stats.notices[0]
    assert stats.files_indexed == 11
    assert search_paths(repo, "added while locked")[0] == "src/late.py"
    assert not list(index_path(repo).parent.glob("*.tmp.sqlite*"))


@pytest.mark.parametrize("content", [b"", b"\xff\xfe garbage"])
def test_odd_files_never_break_a_build(repo: Path, content: bytes) -> None:
    write(repo, "odd/file.py", content)
    write(repo, "odd/deep.js", "x = (" * 200 + "\n")
    stats = build_index(repo)
    assert stats.files_seen == 13


def test_a_file_whose_name_is_not_utf8_is_skipped_with_a_notice_naming_it(repo: Path) -> None:
    # SQLite stores text as UTF-8; such a name (held with surrogateescape) made the whole build fail with a
    # traceback, in `navtui index` and in the agent's own build.
    name = os.fsencode(repo / "src") + b"/caf\xe9\x1b[2J.py"
    with open(name, "wb") as file:
        file.write(b"def latin_named():\n    pass\n")
    stats = build_index(repo)
    assert stats.files_seen == 12 and stats.files_skipped == 2  # the binary blob and this file
    assert stats.notices == [
        "1 file not indexed: the name is not UTF-8 ('src/caf\\xe9\u241b[2J.py'); rename to index it."
    ]
    assert search_paths(repo, "latin_named") == []
    assert search_paths(repo, "load_user_config")[0] == "src/config.py"  # the rest is indexed
    updated = update_files(repo, [os.fsdecode(name)])
    assert updated is not None and updated.notices == [] and updated.files_seen == 0


def test_very_common_words_rank_definitions_first_and_stay_bounded(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    users = "\n\n\n".join(f"def use_{i}():\n    return widget.spin({i})" for i in range(6))
    write(repo, "src/widgets.py", f"def make_widget():\n    return 1\n\n\n{users}\n")
    build_index(repo)
    monkeypatch.setattr("navtui.index.query._RANK_CAP", 2)  # every word is "very common" now
    index = Index.open(repo)
    assert index is not None
    with index:
        hits = index.search("widget", 5)
        assert hits[0].symbol == "make_widget"  # named in a definition: ranked before mere mentions
        assert len(hits) == 3  # plus the two newest mentions, not all six
        assert {hit.symbol for hit in hits[1:]} == {"use_4", "use_5"}
        loose = index.search("widget spin zebra", 10)
        assert loose and all(hit.path == "src/widgets.py" for hit in loose)


def test_the_index_is_never_written_through_a_link(repo: Path, tmp_path: Path) -> None:
    """git keeps links: .navtui/index.sqlite -> ~/.bash_profile (a file that does not exist yet, or an empty one) had
    navtui write a database holding the repository's text there, .navtui/.gitignore -> ... a text file, and a .navtui
    that links out put both in that folder. Nothing is written through a link; the build says which link to remove."""
    outside = tmp_path / "outside"
    outside.mkdir()
    navtui_dir = repo / ".navtui"
    navtui_dir.mkdir()
    (navtui_dir / "index.sqlite").symlink_to(outside / "profile")  # dangling
    with pytest.raises(OSError, match=r"index\.sqlite is a link to .*outside/profile.*remove the link"):
        build_index(repo)
    (outside / "empty").touch()
    (navtui_dir / "index.sqlite").unlink()
    (navtui_dir / "index.sqlite").symlink_to(outside / "empty")
    with pytest.raises(OSError, match="remove the link"):
        build_index(repo)
    assert Index.open(repo) is None and update_files(repo, ["src/cli.ts"]) is None
    (navtui_dir / "index.sqlite").unlink()
    (navtui_dir / ".gitignore").symlink_to(outside / "gitignore")
    build_index(repo)  # the index itself is the repository's own: built, without the .gitignore
    assert search_paths(repo, "parse args")
    (navtui_dir / ".gitignore").unlink()
    for name in os.listdir(navtui_dir):
        os.unlink(navtui_dir / name)
    navtui_dir.rmdir()
    navtui_dir.symlink_to(outside)
    with pytest.raises(OSError, match=r"\.navtui is a link to .*outside.*remove the link"):
        build_index(repo)
    assert sorted(os.listdir(outside)) == ["empty"] and (outside / "empty").stat().st_size == 0
