"""Which files the index reads: gitignore (nested, negated), vendored and tool directories, symlinks."""

from __future__ import annotations

import os
from pathlib import Path

from navtui.core.walk import is_binary
from navtui.index.walker import Ignorer, walk_files
from tests.index.conftest import write


def test_walk_honours_gitignore_and_skips_vendored_and_tool_directories(repo: Path) -> None:
    found = {item.rel for item in walk_files(repo)}
    assert found == {
        ".gitignore",
        "src/cli.ts",
        "src/config.py",
        "pkg/server.go",
        "crates/core/src/lib.rs",
        "java/UserService.java",
        "native/math.c",
        "docs/guide.md",
        "src/gen/.gitignore",
        "src/gen/generated_keep.py",  # re-included by the nested .gitignore's negation
        "assets/blob.raw",  # binaries are sniffed when read, not recognised by name
    }


def test_walk_skips_symlinks_and_reports_size_and_mtime(repo: Path) -> None:
    os.symlink(repo / "src", repo / "src-link")
    items = {item.rel: item for item in walk_files(repo)}
    assert not any(rel.startswith("src-link") for rel in items)
    cli = items["src/cli.ts"]
    assert cli.size == (repo / "src/cli.ts").stat().st_size
    assert cli.mtime_ns == (repo / "src/cli.ts").stat().st_mtime_ns


def test_ignorer_agrees_with_the_walk_for_single_paths(repo: Path) -> None:
    ignorer = Ignorer(repo)
    assert not ignorer.ignored("src/cli.ts")
    assert ignorer.ignored("build/out.js")
    assert ignorer.ignored("logs/run.log")
    assert ignorer.ignored("src/gen/generated_skip.py")
    assert not ignorer.ignored("src/gen/generated_keep.py")
    assert ignorer.ignored("node_modules/lib/index.js")
    assert ignorer.ignored("myenv/lib/other.py")  # a virtualenv found by its pyvenv.cfg
    assert ignorer.ignored("image.png")


def test_git_info_exclude_is_honoured(repo: Path) -> None:
    write(repo, ".git/info/exclude", "docs/\n")
    assert not any(item.rel.startswith("docs/") for item in walk_files(repo))
    assert Ignorer(repo).ignored("docs/guide.md")


def test_is_binary_sniffs_for_nul_bytes() -> None:
    assert is_binary(b"abc\x00def")
    assert not is_binary("héllo wörld".encode())
