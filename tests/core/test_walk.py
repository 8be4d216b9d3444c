"""One walker: the find tool (ripgrep and the Python fallback), the index, ls and ``@path`` completion agree
on which files of a repository exist."""

from __future__ import annotations

from pathlib import Path

import pytest

from navtui.app.completion import complete_path
from navtui.core.walk import RepoRules, is_binary, walk_files
from navtui.index.walker import walk_files as index_files
from navtui.tools.files import ripgrep
from navtui.tools.files.listing import list_directory
from navtui.tools.registry import default_tools, make_context

VISIBLE = {".gitignore", ".ignore", "src/app.py", "src/gen/.gitignore", "src/gen/keep.py", "docs/notes.md"}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    files = {
        ".gitignore": "*.log\nbuild/\n",
        ".ignore": "docs/draft.md\n",  # ripgrep's own ignore file: honoured by every walker
        "src/app.py": "print('app')\n",
        "src/gen/.gitignore": "*.py\n!keep.py\n",
        "src/gen/keep.py": "kept\n",
        "src/gen/skip.py": "skipped\n",
        "docs/notes.md": "notes\n",
        "docs/draft.md": "draft\n",
        "run.log": "log\n",
        "build/out.js": "built\n",
        "node_modules/lib/index.js": "vendored, not gitignored\n",
        "__pycache__/app.cpython-311.pyc": "cache\n",
        "env/pyvenv.cfg": "home = /usr/bin\n",  # a virtualenv with an unusual name
        "env/lib/site.py": "venv\n",
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    return root


def test_the_walk_sees_what_git_and_ripgrep_would(repo: Path) -> None:
    assert {item.rel for item in walk_files(repo)} == VISIBLE
    assert {item.rel for item in index_files(repo)} == VISIBLE  # the index reads the same files


@pytest.mark.parametrize("engine", ["rg", "python"])
async def test_the_find_tool_agrees_with_the_walk(repo: Path, tmp_path: Path, engine: str, monkeypatch) -> None:
    if engine == "python":
        monkeypatch.setattr(ripgrep, "find_rg", lambda: None)
    ctx = make_context(repo, None, tmp_path / "artifacts")
    find = next(tool for tool in default_tools() if tool.name == "find")
    result = await find.run(find.parse_args({"pattern": "*", "limit": 1000}), ctx)
    assert set(result.text.splitlines()) == VISIBLE


def test_single_paths_ls_and_completion_agree(repo: Path) -> None:
    rules = RepoRules(repo)
    assert not rules.hidden(repo, "src/gen/keep.py")
    for rel in ("src/gen/skip.py", "docs/draft.md", "build/out.js", "node_modules/lib/index.js", "env/lib/site.py"):
        assert rules.hidden(repo, rel), rel
    listing = list_directory(repo, ".").splitlines()
    assert {"docs/", "src/"} <= set(listing) and not any(
        line.startswith(("node_modules", "env", "build")) for line in listing
    )
    assert complete_path("@no", 3, repo) is None  # node_modules is not offered
    completed = complete_path("@e", 2, repo)
    assert completed is None  # nor is the virtualenv


def test_binary_files_are_told_by_a_nul_byte_in_the_first_8_kb() -> None:
    assert is_binary(b"abc\x00def") and not is_binary("héllo wörld".encode())
    assert not is_binary(b"x" * 8192 + b"\x00")  # past the sniffed prefix


def test_a_named_pipe_as_an_ignore_file_holds_no_walk(tmp_path: Path) -> None:
    """A command can leave a named pipe where an ignore file goes (mkfifo src/.gitignore): reading it waited for a
    writer for ever, and with it `navtui index`, the find tool and @path completion. It is no ignore file."""
    import os
    import threading

    (tmp_path / ".git").mkdir()
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("print('app')\n")
    os.mkfifo(tmp_path / "src" / ".gitignore")
    os.mkfifo(tmp_path / ".ignore")
    found: list[list[str]] = []
    worker = threading.Thread(target=lambda: found.append([f.rel for f in walk_files(tmp_path)]), daemon=True)
    worker.start()
    worker.join(30)  # a hang guard, never reached by a passing run
    held = worker.is_alive()
    for pipe in (tmp_path / "src" / ".gitignore", tmp_path / ".ignore"):  # a reader still waiting: let it go
        try:
            os.close(os.open(pipe, os.O_WRONLY | os.O_NONBLOCK))
        except OSError:
            pass
    assert not held and found == [["src/app.py"]]


def test_a_folder_thousands_deep_holds_no_walk(tmp_path: Path) -> None:
    """Each entry was matched against every folder above it with ``Path.relative_to`` (O(depth²) per entry): a
    repository's folder 500 deep held the walk (find, ``@`` completion, the index) for 40 s, 1,400 deep for about
    half an hour. The rules of each folder above still apply, nearest first."""
    import threading

    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("*.log\n")
    levels = [tmp_path]
    for _ in range(1400):  # one level at a time: Path.mkdir(parents=True) recurses as deep
        levels.append(levels[-1] / "d")
        levels[-1].mkdir()
    (levels[700] / ".gitignore").write_text("!keep.log\n")
    for name in ("leaf.txt", "leaf.log", "keep.log"):
        (levels[-1] / name).write_text(name)
    try:
        found: list[list[str]] = []
        worker = threading.Thread(target=lambda: found.append([f.rel for f in walk_files(tmp_path)]), daemon=True)
        worker.start()
        worker.join(120)  # a hang guard, never reached by a passing run
        assert not worker.is_alive(), "the walk is still going"
        deep = "d/" * 1400
        assert found == [[".gitignore", "d/" * 700 + ".gitignore", deep + "keep.log", deep + "leaf.txt"]]
        rules = RepoRules(tmp_path)
        assert rules.hidden(tmp_path, deep + "leaf.log") and not rules.hidden(tmp_path, deep + "keep.log")
    finally:
        remove_bottom_up(levels[1:])


def remove_bottom_up(levels: list[Path]) -> None:
    """Remove a chain of folders from the deepest: pytest's clean-up (shutil.rmtree) recurses once per level."""
    for level in reversed(levels):
        for child in level.iterdir():
            if not child.is_dir():
                child.unlink()
        level.rmdir()
