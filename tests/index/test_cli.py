"""`navtui index` and `navtui search` on the command line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from navtui.index.cli import index_main, search_main
from tests.index.conftest import write
from tests.index.test_embed import closed_port_url


def test_index_prints_a_summary_and_search_finds_with_highlights(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert index_main([str(repo)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Indexed 11 files (10 read, 0 unchanged, 0 removed, 1 skipped)")
    assert search_main(["parse", "args", "-C", str(repo)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith("src/cli.ts:3-10  parseArgs  ")
    assert " 4 export function parseArgs(argv: string[]): Options {" in out


def test_file_contents_are_printed_literally_never_as_markup(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(repo, "src/markup.py", 'def styled_output():\n    return "[/bold] [red]not a style[/red]"\n')
    index_main([str(repo)])
    capsys.readouterr()
    assert search_main(["styled", "output", "-C", str(repo)]) == 0
    assert 'return "[/bold] [red]not a style[/red]"' in capsys.readouterr().out


def test_json_output_of_both_commands(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert index_main([str(repo), "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["files_seen"] == 11 and stats["embeddings"] == "off" and stats["notices"] == []
    assert search_main(["checksum", "--json", "-n", "1", "-C", str(repo)]) == 0
    [hit] = json.loads(capsys.readouterr().out)
    assert hit["path"] == "crates/core/src/lib.rs" and hit["symbol"] == "checksum_bytes" and "u32" in hit["text"]
    assert search_main(["-s", "Config", "--json", "-C", str(repo)]) == 0
    found = json.loads(capsys.readouterr().out)
    assert found[0]["qualified_name"] == "Config" and found[0]["path"] == "crates/core/src/lib.rs"


def test_search_without_an_index_says_how_to_build_one(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert search_main(["anything", "-C", str(repo)]) == 1
    assert "run `navtui index` first" in capsys.readouterr().err


def test_no_match_exits_1_like_grep(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    index_main([str(repo)])
    assert search_main(["zebra", "-C", str(repo)]) == 1
    assert "No matches." in capsys.readouterr().out


def test_index_of_a_missing_directory_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert index_main([str(tmp_path / "nope")]) == 2
    assert "is not a directory" in capsys.readouterr().err


def test_embed_without_ollama_still_indexes(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OLLAMA_HOST", closed_port_url())
    assert index_main([str(repo), "--embed"]) == 0
    captured = capsys.readouterr()
    assert "Embeddings skipped: Ollama is not reachable" in captured.err
    assert "Embeddings were skipped; the index works without them" in captured.out
    assert "Indexed 11 files" in captured.out


def test_the_navtui_command_runs_index_and_search(repo: Path) -> None:
    run = [sys.executable, "-m", "navtui"]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}  # navtui may not be installed
    built = subprocess.run([*run, "index", str(repo)], capture_output=True, text=True, timeout=60, env=env)
    assert built.returncode == 0, built.stderr
    assert "Indexed 11 files" in built.stdout
    found = subprocess.run(
        [*run, "search", "NewServer"], capture_output=True, text=True, timeout=60, cwd=repo / "src", env=env
    )
    assert found.returncode == 0 and found.stdout.startswith("pkg/server.go:11-13  NewServer")
