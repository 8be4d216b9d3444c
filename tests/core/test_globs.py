"""Ignore rules and globs match in time proportional to the path, and exactly as pathspec's own expressions do."""

from __future__ import annotations

import random
import subprocess
import sys

from pathspec import GitIgnoreSpec

from navtui.core.globs import ignore_spec

HOSTILE = {
    "a" + "*a" * 20 + "*b": "a" * 60,  # backtracking through every split of the name
    "**/" + "a/**/" * 6 + "b": "a/" * 300 + "c",  # ... and of the folders
}


def _pattern(rng: random.Random) -> str:
    segments = []
    for _ in range(rng.randint(1, 4)):
        if rng.random() < 0.2:
            segments.append("**")
        else:
            segments.append(
                "".join(rng.choice(["a", "b", "*", "*", "?", "[ab]", "ab"]) for _ in range(rng.randint(1, 5)))
            )
    text = "/".join(segments)
    if rng.random() < 0.2:
        text = "/" + text
    if rng.random() < 0.2:
        text += "/"
    return ("!" if rng.random() < 0.1 else "") + text


def _path(rng: random.Random) -> str:
    names = ["".join(rng.choice("ab") for _ in range(rng.randint(1, 6))) for _ in range(rng.randint(1, 6))]
    return "/".join(names) + ("/" if rng.random() < 0.2 else "")


def test_the_rules_match_what_pathspec_matches() -> None:
    rng = random.Random(20261127)
    compared = 0
    for _ in range(3000):
        lines = [_pattern(rng) for _ in range(rng.randint(1, 3))]
        theirs, ours = GitIgnoreSpec.from_lines(lines, backend="simple"), ignore_spec(lines)
        for _ in range(20):
            path = _path(rng)
            assert ours.check_file(path).include == theirs.check_file(path).include, (lines, path)
            compared += 1
    assert compared == 60_000


def test_a_hostile_rule_or_glob_does_not_hold_the_walk() -> None:
    """Run where a hang can be stopped: each took more than a minute with pathspec's expressions."""
    code = (
        "from navtui.core.globs import ignore_spec\n"
        f"for pattern, path in {HOSTILE!r}.items():\n"
        "    print(ignore_spec([pattern]).match_file(path))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False)
    assert (done.returncode, done.stdout) == (0, "False\nFalse\n"), done.stderr


def test_a_repository_with_a_hostile_rule_is_walked_and_snapshot(tmp_path) -> None:
    """What a cloned repository can ship: the rule and a file it catches the engine on. The walk (the index,
    find, @ completion) and the checkpoint before each turn finish, and the rule still means what it says."""
    from pathlib import Path

    from tests.hostile_git import plain_git

    repo = tmp_path / "repo"
    repo.mkdir()
    plain_git("init", "-q", cwd=repo)
    pattern, name = next(iter(HOSTILE.items()))
    (repo / ".gitignore").write_text(f"{pattern}\n*.log\n")
    (repo / name).write_text("x\n")
    (repo / ("a" * 30 + "b")).write_text("ignored by the rule\n")
    (repo / "kept.py").write_text("x = 1\n")
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from navtui.checkpoints.service import Checkpointer\n"
        "from navtui.core.walk import walk_files\n"
        "root = Path(sys.argv[1])\n"
        "print(sorted(f.rel for f in walk_files(root)))\n"
        "print(Checkpointer(root).snapshot() is not None)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(repo)], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [str(sorted([".gitignore", name, "kept.py"])), "True"]
    assert Path(repo / name).exists()
