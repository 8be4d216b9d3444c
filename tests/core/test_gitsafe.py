"""navtui's own git runs no program a repository (or navtui's environment) configured."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from navtui.agent.git_status import git_status
from navtui.core.gitsafe import repo_driver_keys, run_git, run_git_async, safe_git_argv, safe_git_env
from tests.hostile_git import hostile_repo, plain_git, ran

WORKFLOW = (
    ["status", "--porcelain=v1", "--branch"],
    ["diff"],
    ["diff", "--cached"],
    ["add", "-A"],
    ["diff", "HEAD"],
    ["log", "-p", "-1"],
    ["commit", "-m", "second"],
    ["show", "HEAD"],
    ["commit", "--allow-empty"],  # no -m: the editor would run; git's ':' means "none"
    ["checkout", "-q", "-b", "side"],
    ["checkout", "-q", "main"],
    ["stash", "list"],
)


@pytest.fixture(autouse=True)
def identity(monkeypatch: pytest.MonkeyPatch) -> None:
    """Commits need a name; an unprivileged user has no global git config (kept: identity passes through)."""
    for role in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{role}_NAME", "navtui test")
        monkeypatch.setenv(f"GIT_{role}_EMAIL", "test@example.com")


@pytest.fixture
def hostile(tmp_path: Path) -> tuple[Path, Path]:
    markers = tmp_path / "markers"
    return hostile_repo(tmp_path / "repo", markers), markers


def test_the_hostile_repository_does_run_its_programs_under_plain_git(hostile: tuple[Path, Path]) -> None:
    repo, markers = hostile
    for args in WORKFLOW:
        plain_git(*args, cwd=repo)
    assert {"fsmonitor", "filter-clean", "hook-pre-commit", "gpg", "editor"} <= set(ran(markers))


def test_the_same_workflow_through_gitsafe_runs_nothing(hostile: tuple[Path, Path]) -> None:
    repo, markers = hostile
    results = [run_git(args, repo) for args in WORKFLOW]
    assert ran(markers) == []
    failed = [(args, r.stderr) for args, r in zip(WORKFLOW, results, strict=True) if r.returncode != 0]
    assert [args for args, _ in failed] == [["commit", "--allow-empty"]], failed  # no message, no editor
    assert b"second" in results[7].stdout and b"+two" in results[4].stdout  # git still works
    assert plain_git("log", "--format=%s", cwd=repo).stdout.split() == ["second", "first"]


def test_the_status_line_reads_a_hostile_clone_and_runs_nothing(hostile: tuple[Path, Path]) -> None:
    repo, markers = hostile
    status = git_status(repo)
    assert (status.branch, status.unstaged) == ("main", 1)
    assert ran(markers) == []


def test_the_async_variant_runs_nothing(hostile: tuple[Path, Path]) -> None:
    repo, markers = hostile
    result = asyncio.run(run_git_async(["diff"], repo))
    assert result.returncode == 0 and b"+two" in result.stdout
    assert ran(markers) == []


def test_git_settings_in_navtuis_environment_are_ignored(
    hostile: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, markers = hostile
    clean = tmp_path / "clean"
    clean.mkdir()
    plain_git("init", "-q", cwd=clean)
    (clean / "f.txt").write_text("x\n")
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "core.fsmonitor")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", f"touch '{markers / 'env-fsmonitor'}'; false")
    monkeypatch.setenv("GIT_CONFIG_PARAMETERS", f"'core.pager'='touch {markers / 'env-pager'}'")
    monkeypatch.setenv("GIT_EXTERNAL_DIFF", f"touch '{markers / 'env-external'}'")
    monkeypatch.setenv("GIT_DIR", str(repo / ".git"))  # the hostile repository's config, read from elsewhere
    monkeypatch.setenv("GIT_PAGER", f"touch '{markers / 'env-git-pager'}'")
    monkeypatch.setenv("GIT_EXEC_PATH", str(tmp_path / "nowhere"))
    assert plain_git("status", cwd=clean, env={"GIT_DIR": str(repo / ".git")}).returncode == 0
    markers_before = ran(markers)
    assert "fsmonitor" in markers_before  # plain git with that GIT_DIR does run it
    for marker in markers.iterdir():
        marker.unlink()
    status = run_git(["status", "--porcelain=v1"], clean)
    assert status.returncode == 0 and status.stdout == b"?? f.txt\n"  # the clean repository, not GIT_DIR's
    assert run_git(["diff", "--no-index", "--", "f.txt", "f.txt"], clean).returncode == 0
    assert ran(markers) == []


def test_the_environment_keeps_identity_and_drops_the_rest() -> None:
    env = safe_git_env(
        {
            "PATH": "/bin",
            "HOME": "/h",
            "GIT_AUTHOR_NAME": "me",
            "GIT_DIR": "/x",
            "GIT_CONFIG_GLOBAL": "/y",
            "EDITOR": "vim",
            "SSH_ASKPASS": "/bin/ask",
            "GIT_SSH_COMMAND": "evil",
        },
        read_only=True,
    )
    assert env["PATH"] == "/bin" and env["HOME"] == "/h" and env["GIT_AUTHOR_NAME"] == "me"
    assert not {"GIT_DIR", "GIT_CONFIG_GLOBAL", "EDITOR", "SSH_ASKPASS", "GIT_SSH_COMMAND"} & set(env)
    assert env["GIT_OPTIONAL_LOCKS"] == "0" and env["GIT_EDITOR"] == ":" and env["GIT_TERMINAL_PROMPT"] == "0"
    assert safe_git_env({}, extra={"GIT_INDEX_FILE": "/tmp/i"})["GIT_INDEX_FILE"] == "/tmp/i"
    with pytest.raises(ValueError, match="GIT_CONFIG_COUNT would undo"):
        safe_git_env({}, extra={"GIT_CONFIG_COUNT": "1"})


def test_argv_pins_settings_before_the_command_and_drivers_by_name(hostile: tuple[Path, Path]) -> None:
    repo, _ = hostile
    drivers = repo_driver_keys(repo)
    assert sorted(drivers) == [
        "diff.evil.command",
        "diff.evil.textconv",
        "filter.evil.clean",
        "filter.evil.smudge",
        "merge.evil.driver",
    ]
    argv = safe_git_argv(["-C", "sub", "diff", "HEAD"], drivers)
    assert argv[0] == "git" and argv[-5:] == ["sub", "diff", "--no-ext-diff", "--no-textconv", "HEAD"]
    pins = [argv[i + 1] for i, a in enumerate(argv) if a == "-c"]
    assert {
        "core.fsmonitor=false",
        "core.hooksPath=/dev/null",
        "credential.helper=",
        "filter.evil.clean=",
        "filter.evil.required=false",
        "diff.evil.textconv=",
    } <= set(pins)
    assert safe_git_argv(["stash", "show", "-p"])[-4:] == ["show", "--no-ext-diff", "--no-textconv", "-p"]
    assert safe_git_argv(["status"], ["user.name", "alias.x"])[-1] == "status"  # only driver keys are pinned
    assert "user.name=" not in safe_git_argv(["status"], ["user.name"])


def _repo_with_hostile_submodule(tmp_path: Path, markers: Path) -> Path:
    """A superproject whose submodule's own config (``.git/modules/sub/config``) names a clean filter and a
    textconv; its file is touched so that a ``git status`` inside the submodule must hash it (the filter runs)."""
    markers.mkdir()
    sub = tmp_path / "sub-origin"
    sub.mkdir()
    plain_git("init", "-q", "-b", "main", cwd=sub)
    (sub / "a.txt").write_text("a\n")
    (sub / ".gitattributes").write_text("*.txt filter=subevil diff=subevil\n")
    plain_git("add", ".", cwd=sub)
    plain_git("commit", "-qm", "sub", cwd=sub)
    top = tmp_path / "top"
    top.mkdir()
    plain_git("init", "-q", "-b", "main", cwd=top)
    added = plain_git("-c", "protocol.file.allow=always", "submodule", "add", "-q", str(sub), "sub", cwd=top)
    assert added.returncode == 0, added.stderr
    plain_git("commit", "-qm", "top", cwd=top)
    config = top / ".git" / "modules" / "sub" / "config"
    assert config.is_file()
    plain_git("config", "--file", str(config), "filter.subevil.clean", f"touch '{markers / 'sub-clean'}'; cat", cwd=top)
    plain_git("config", "--file", str(config), "diff.subevil.textconv", f"touch '{markers / 'sub-textconv'}'; cat", cwd=top)  # fmt: skip
    (top / "sub" / "a.txt").write_text("b\n")  # the same size: only hashing it tells
    os.utime(top / "sub" / "a.txt", (1_600_000_000, 1_600_000_000))
    return top


def test_a_submodules_own_drivers_are_pinned_too(tmp_path: Path) -> None:
    markers = tmp_path / "markers"
    top = _repo_with_hostile_submodule(tmp_path, markers)
    assert plain_git("status", "--porcelain", cwd=top).returncode == 0
    assert ran(markers) == ["sub-clean"]  # plain git: the status inside the submodule ran its filter
    (markers / "sub-clean").unlink()
    os.utime(top / "sub" / "a.txt", (1_600_000_001, 1_600_000_001))
    assert {"filter.subevil.clean", "diff.subevil.textconv"} <= set(repo_driver_keys(top))
    status = run_git(["status", "--porcelain=v1"], top)
    assert status.returncode == 0 and status.stdout == b" M sub\n", status.stderr
    assert asyncio.run(run_git_async(["status", "--porcelain=v1"], top)).stdout == b" M sub\n"
    assert git_status(top).unstaged == 1
    assert ran(markers) == []


def test_a_users_diff_submodule_setting_does_not_reach_into_submodules(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    markers = tmp_path / "markers"
    top = _repo_with_hostile_submodule(tmp_path, markers)
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text("[diff]\n\tsubmodule = diff\n")
    monkeypatch.setenv("HOME", str(home))
    diff = run_git(["diff", "HEAD"], top)
    assert diff.returncode == 0 and b"Subproject commit" in diff.stdout, diff.stderr
    assert ran(markers) == []
