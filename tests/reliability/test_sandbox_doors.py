"""Issue 27's doors out of the sandbox, each a scenario that fails on a navtui without the fix (D1-D4), and
everyday git inside the sandbox.

- D1: a sandboxed command leaves code that git runs later (config, hooks, a hooks folder, templates, an archive
  unpacked into hooks, a redirected common dir) or that navtui loads later (.navtui/, .mcp.json, .env).
- D2: a command reads navtui's API keys from ``/proc/<navtui>/environ``.
- D3: ``kill -9`` of navtui leaves its commands running (``test_t02_escapees_do_not_outlive_...`` in
  test_tools.py, and ``tests/tools/shell/test_lifetime.py``).
- D4: ``read-only`` does not protect a workspace that lies inside a temp dir.
- D5: a command reaches a unix socket outside the workspace (the user's tmux server, session bus, Docker) and has
  what listens there run a program outside the sandbox (namespaces only: without them the door stays open).

Each runs with the namespaces (where this machine allows them, else skipped with the reason) and with the
fallback (``NAVTUI_SANDBOX_NAMESPACES=0``: changes undone after the command, the tree killed by the launcher).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from navtui.tools.approval import ApprovalPolicy, ApprovalResponse, DenyingApprover
from navtui.tools.sandbox.policy import namespace_support
from navtui.tools.shell.shell import ShellTool
from tests.fakes import FakeServer, Text, ToolCall
from tests.fakes.crash import child_env
from tests.hostile_git import plain_git
from tests.reliability.conftest import CANARY
from tests.tools.conftest import call
from tests.tools.sandbox.support import PY, needs_landlock, policy, sandboxed_context, unix_canary
from tests.tools.test_approval import ScriptedApprover

pytestmark = needs_landlock
shell = ShellTool()
MODEL = "qwen2.5-coder:7b"
IDENTITY = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@example.com"}  # fmt: skip


@pytest.fixture(params=["namespaces", "fallback"])
def mode(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "fallback":
        monkeypatch.setenv("NAVTUI_SANDBOX_NAMESPACES", "0")
    else:
        usable, why = namespace_support()
        if not usable:
            pytest.skip(f"namespaces are not available here: {why}")
    for key, value in IDENTITY.items():
        monkeypatch.setenv(key, value)
    return request.param


@pytest.fixture
def repo(ws: Path) -> Path:
    plain_git("init", "-q", "-b", "main", cwd=ws)
    (ws / "a.txt").write_text("one\n")
    plain_git("add", ".", cwd=ws)
    plain_git("commit", "-qm", "first", cwd=ws)
    return ws


async def run(ws: Path, tmp_path: Path, command: str, mode_name: str = "workspace-write", **kwargs):
    ctx = sandboxed_context(ws, tmp_path, policy(mode_name, ws, tmp_path, **kwargs.pop("policy", {})))
    try:
        return await call(shell, ctx, command=command, wait_ms=60_000)
    finally:
        ctx.jobs.kill_all_sync(grace=0.5)


def _hook_script(marker: Path) -> str:
    return f"#!/bin/sh\\ntouch {marker}\\n"


def _template(tmp_path: Path, marker: Path) -> Path:
    """A git template whose pre-commit hook writes the marker."""
    template = tmp_path / "template"
    (template / "hooks").mkdir(parents=True, exist_ok=True)
    hook = template / "hooks" / "pre-commit"
    hook.write_text(f"#!/bin/sh\ntouch {marker}\n")
    hook.chmod(0o755)
    return template


def _attacks(ws: Path, tmp_path: Path, marker: Path) -> dict[str, str]:
    template = tmp_path / "template"
    evil = tmp_path / "evil-common"
    return {
        "git-config": f"git config core.fsmonitor 'touch {marker}; false'",
        "hook-file": f"printf '{_hook_script(marker)}' > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit",
        "init-template": f"git init -q --template={template} .",
        "tar-into-hooks": f"tar -cf $TMPDIR/h.tar -C {template}/hooks pre-commit && tar -xf $TMPDIR/h.tar -C .git/hooks",
        "python-append": (
            f"{sys.executable} -c \"open('.git/config', 'a').write('[core]\\\\n\\\\tfsmonitor = touch {marker}\\\\n')\""
        ),
        "hooks-path-folder": f"printf '{_hook_script(marker)}' > githooks/pre-commit; chmod +x githooks/pre-commit",
        "config-worktree": f"printf '[core]\\n\\tfsmonitor = touch {marker}\\n' > .git/config.worktree",
        "common-dir": (
            f"mkdir -p {evil} && cp -r .git/objects .git/refs .git/HEAD {evil}/ && "
            f"printf '[core]\\n\\tfsmonitor = touch {marker}\\n' > {evil}/config && echo {evil} > .git/commondir"
        ),
        "mcp-json": """echo '{"mcpServers": {"x": {"command": "touch"}}}' > .mcp.json""",
        "navtui-settings": "mkdir -p .navtui && echo '{}' > .navtui/settings.json",
        "env-file": "echo SECRET=1 > .env.local",
        "deep-env-file": "mkdir -p svc/api && echo SECRET=1 > svc/api/.env.production",
        "deep-env-existing": "echo EVIL=1 >> app/config/.env",
        "submodule-config": f"git -C lib config filter.x.clean 'touch {marker}; cat'",
    }


ATTACKS = list(_attacks(Path("/w"), Path("/t"), Path("/m")))


@pytest.mark.parametrize("attack", ATTACKS)
async def test_d1_a_command_cannot_leave_code_for_git_or_navtui_to_run_later(
    repo: Path, tmp_path: Path, mode: str, attack: str
) -> None:
    marker = tmp_path / "ran"
    (repo / "githooks").mkdir()
    if attack == "hooks-path-folder":
        plain_git("config", "core.hooksPath", "githooks", cwd=repo)
    if attack == "config-worktree":
        plain_git("config", "extensions.worktreeConfig", "true", cwd=repo)
    if attack == "deep-env-existing":
        (repo / "app" / "config").mkdir(parents=True)
        (repo / "app" / "config" / ".env").write_text("KEY=1\n")
    if attack == "submodule-config":  # a submodule's git dir lives in .git/modules/<name>
        plain_git("init", "-q", "--separate-git-dir", str(repo / ".git" / "modules" / "lib"), "lib", cwd=repo)
    module_config = repo / ".git" / "modules" / "lib" / "config"
    module_before = module_config.read_bytes() if module_config.exists() else None
    _template(tmp_path, marker)
    config_before = (repo / ".git" / "config").read_bytes()
    hooks_before = sorted(p.name for p in (repo / ".git" / "hooks").iterdir())
    result = await run(repo, tmp_path, _attacks(repo, tmp_path, marker)[attack])
    # Nothing of it is left: the files are as they were, and the user's own git runs nothing.
    assert (repo / ".git" / "config").read_bytes() == config_before, result.text
    assert sorted(p.name for p in (repo / ".git" / "hooks").iterdir()) == hooks_before, result.text
    for created in (".git/config.worktree", ".git/commondir", ".mcp.json", ".navtui", ".env.local",
                    "githooks/pre-commit", "svc/api/.env.production"):  # fmt: skip
        assert not (repo / created).exists(), f"{created} is still there: {result.text}"
    if attack == "deep-env-existing":
        assert (repo / "app" / "config" / ".env").read_text() == "KEY=1\n", result.text
    assert (module_config.read_bytes() if module_config.exists() else None) == module_before, result.text
    for args in (("status",), ("commit", "-q", "--allow-empty", "-m", "user's commit")):
        done = plain_git(*args, cwd=repo, env=IDENTITY)
        assert done.returncode == 0, done.stderr
    assert not marker.exists(), f"git ran what the command left ({attack}): {result.text}"
    # Said plainly: either the write failed (read-only), or navtui undid it and says so.
    assert "Read-only file system" in result.text or "navtui undid" in result.text or result.is_error, result.text


def _nested_attacks(tmp_path: Path, marker: Path) -> dict[str, str]:
    evil = tmp_path / "systmp" / "evil"
    hook = f"printf '{_hook_script(marker)}' > sub/.git/hooks/pre-commit; chmod +x sub/.git/hooks/pre-commit"
    return {
        "init-then-hook": f"git init -q sub && {hook}",
        "init-then-config": f"git init -q sub && git -C sub config core.fsmonitor 'touch {marker}; false'",
        "init-then-include": (
            f"git init -q sub && printf '[core]\\n\\tfsmonitor = touch {marker}\\n' > sub/inc && "
            "git -C sub config include.path ../inc"
        ),
        "init-template": f"mkdir sub && git init -q --template={tmp_path / 'template'} sub",
        "pointer-file": (
            f"git init -q {evil} && git -C {evil} config core.fsmonitor 'touch {marker}; false' && "
            f"mkdir -p sub && echo 'gitdir: {evil}/.git' > sub/.git"
        ),
    }


NESTED = list(_nested_attacks(Path("/t"), Path("/m")))


@pytest.mark.parametrize("workspace_kind", ["repository", "plain folder"])
@pytest.mark.parametrize("attack", NESTED)
async def test_d1_a_git_dir_the_command_creates_carries_no_code_out(
    ws: Path, tmp_path: Path, mode: str, attack: str, workspace_kind: str
) -> None:
    """A git dir that did not exist before the command could not be bound read-only: what it holds that git would
    run (hooks, program settings, includes) is removed after the command, in both modes, and the result says so."""
    if workspace_kind == "repository":
        plain_git("init", "-q", "-b", "main", cwd=ws)
    marker = tmp_path / "ran"
    _template(tmp_path, marker)
    result = await run(ws, tmp_path, _nested_attacks(tmp_path, marker)[attack])
    assert not result.is_error, result.text
    sub = ws / "sub"
    (sub / "f.txt").write_text("x\n")
    if attack == "pointer-file":  # the pointer goes (the git dir it names may be anyone's), the user's git runs nothing
        assert (
            not (sub / ".git").exists() and "outside the workspace, whose hooks or settings run programs" in result.text
        )
        plain_git("status", cwd=sub)
        assert not marker.exists(), result.text
        return
    for args in (("status",), ("add", "f.txt"), ("commit", "-q", "-m", "user's commit")):
        done = plain_git(*args, cwd=sub, env=IDENTITY)
        assert done.returncode == 0, (args, done.stderr)
    assert not marker.exists(), f"git ran what the command left ({attack}): {result.text}"
    assert "in a git dir the command created; removed" in result.text, result.text
    assert (sub / ".git").exists()  # the repository itself stays: only what would run is gone


async def test_d1_a_plain_new_repository_is_left_alone(repo: Path, tmp_path: Path, mode: str) -> None:
    """Nor are the user's own hooks and settings touched when a command adds a worktree inside the workspace (its
    git dir names the main one as its common dir)."""
    hook = repo / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\nexit 0\n")
    hook.chmod(0o755)
    plain_git("config", "core.pager", "less -R", cwd=repo)
    config = (repo / ".git" / "config").read_bytes()
    command = (
        "git init -q sub && git -C sub config user.name me && echo '*.o' > sub/.gitignore && "
        "git worktree add -q -b side wt && git submodule status"
    )
    result = await run(repo, tmp_path, command)
    assert not result.is_error and "navtui undid" not in result.text, result.text
    assert plain_git("config", "user.name", cwd=repo / "sub").stdout.strip() == "me"
    assert (repo / "wt" / ".git").is_file() and hook.read_text() == "#!/bin/sh\nexit 0\n"
    assert (repo / ".git" / "config").read_bytes() == config


async def test_d1_everyday_git_works_inside_the_sandbox(repo: Path, tmp_path: Path, mode: str) -> None:
    remote = tmp_path / "remote.git"
    plain_git("clone", "-q", "--bare", str(repo), str(remote), cwd=tmp_path)
    plain_git("remote", "add", "origin", str(remote), cwd=repo)
    steps = [
        "git status --short",
        "echo two >> a.txt && git add a.txt && git commit -qm second",
        "git branch feature && git switch -q feature && echo f > f.txt && git add f.txt && git commit -qm feature",
        "git checkout -q main && echo three >> a.txt && git stash -q && git stash pop -q && git commit -qam third",
        "git merge -q --no-edit feature",
        "git switch -q feature && git rebase -q main && git switch -q main",
        f"git worktree add -q -b feature-wt {tmp_path}/systmp/wt",
        "git fetch -q origin && git log --oneline origin/main | wc -l",
        "git log --oneline | wc -l",
    ]
    result = await run(repo, tmp_path, " && ".join(steps))
    assert not result.is_error, result.text
    assert plain_git("log", "--format=%s", "-1", cwd=repo).stdout.startswith("Merge branch 'feature'")
    assert (tmp_path / "systmp" / "wt" / "a.txt").exists()
    assert (repo / ".git" / "worktrees" / "wt").is_dir()


def test_d2_a_command_cannot_read_navtuis_keys(fake_server: FakeServer, workspace: Path, mode: str) -> None:
    command = (
        "for f in /proc/$PPID/environ /proc/[0-9]*/environ; do tr '\\0' '\\n' < $f; done 2>/dev/null "
        "| grep -c TESTCANARY; echo scanned"
    )
    fake_server.script(ToolCall("shell", {"command": command}))
    fake_server.script(Text("done"))
    env = child_env({"ANTHROPIC_API_KEY": CANARY, "OPENAI_API_KEY": CANARY})
    argv = [sys.executable, "-m", "navtui", "-p", "ollama", "-b", fake_server.url, "-m", MODEL, "--approval", "yolo"]
    done = subprocess.run(
        [*argv, "--print", "look around"], cwd=workspace, env=env, capture_output=True, text=True, timeout=120,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    [result] = [m["content"] for m in fake_server.chat_requests[-1].json["messages"] if m["role"] == "tool"]
    assert "scanned" in result and result.splitlines()[0] == "0", result
    assert CANARY not in result


@pytest.mark.parametrize("guarded", [".navtui", ".git/hooks"])
async def test_d1_undoing_a_guarded_folder_turned_into_a_link_removes_nothing_outside(
    repo: Path, tmp_path: Path, mode: str, guarded: str
) -> None:
    """Without the namespaces the guard puts a guarded folder back after the command and first removes what was
    created in it. A command that moved the folder away and put a link to the home folder in its place had navtui
    itself (unsandboxed) remove everything in the home folder the baseline did not list: ~/.navtui/sessions went.
    With the namespaces the folder is a mount point and cannot be moved at all."""
    home = tmp_path / "home"
    (home / "sessions").mkdir(parents=True)
    (home / "sessions" / "s.jsonl").write_text("precious\n")
    (home / "notes.txt").write_text("mine\n")
    (repo / ".navtui").mkdir(exist_ok=True)
    (repo / ".navtui" / "settings.json").write_text('{"ui": {"theme": "light"}}')
    before = sorted(str(p.relative_to(repo)) for p in (repo / guarded).rglob("*"))
    await run(repo, tmp_path, f"mv {guarded} {guarded}.moved && ln -s {home} {guarded}; echo done")
    assert sorted(str(p.relative_to(home)) for p in home.rglob("*")) == ["notes.txt", "sessions", "sessions/s.jsonl"]
    assert not (repo / guarded).is_symlink() and (repo / guarded).is_dir()
    assert sorted(str(p.relative_to(repo)) for p in (repo / guarded).rglob("*")) == before


async def test_d1_a_hooks_link_in_a_new_git_dir_goes_and_what_it_points_to_stays(
    ws: Path, tmp_path: Path, mode: str
) -> None:
    """A git dir the command creates loses its hooks after the command. Its hooks folder as a link to ~/bin had
    navtui (unsandboxed) remove every file in ~/bin; the link itself is what is removed now."""
    scripts = tmp_path / "bin"
    scripts.mkdir()
    (scripts / "deploy").write_text("#!/bin/sh\necho mine\n")
    (scripts / "pre-commit").write_text("#!/bin/sh\necho mine\n")
    result = await run(ws, tmp_path, f"mkdir -p sub/.git && ln -s {scripts} sub/.git/hooks; echo done")
    assert sorted(p.name for p in scripts.iterdir()) == ["deploy", "pre-commit"]
    hooks = ws / "sub" / ".git" / "hooks"
    assert not hooks.is_symlink() and not hooks.exists(), result.text
    assert f"{ws}/sub/.git/hooks (a hook in a git dir the command created; removed)" in result.text


async def test_d4_read_only_protects_a_workspace_inside_a_temp_dir(tmp_path: Path, mode: str) -> None:
    systmp = tmp_path / "systmp"
    ws = systmp / "project"
    ws.mkdir(parents=True)
    (ws / "kept.txt").write_text("original\n")
    (systmp / "other").mkdir()
    ctx = sandboxed_context(ws, tmp_path, policy("read-only", ws, tmp_path))
    try:
        result = await call(
            shell,
            ctx,
            command=f"echo t > $TMPDIR/t && echo o > {systmp}/other/o && cat $TMPDIR/t {systmp}/other/o; echo x > kept.txt",
        )
    finally:
        ctx.jobs.kill_all_sync(grace=0.5)
    assert (ws / "kept.txt").read_text() == "original\n", result.text
    assert result.is_error and result.text.startswith("t\no\n"), result.text  # other temp dirs stay writable


def test_the_status_says_which_mode_is_in_force(ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NAVTUI_SANDBOX_NAMESPACES", "0")
    fallback = policy("workspace-write", ws, tmp_path)
    assert not fallback.namespaces and "NAVTUI_SANDBOX_NAMESPACES=0" in (fallback.warning or "")
    assert "checked after each command" in (fallback.warning or "")
    monkeypatch.delenv("NAVTUI_SANDBOX_NAMESPACES")
    usable, why = namespace_support()
    strong = policy("workspace-write", ws, tmp_path)
    assert strong.namespaces == usable and (strong.warning is None) == usable, why
    assert os.path.exists("/proc/self/ns/pid")


def _change_for(mode_name: str, marker: Path) -> tuple[str, str]:
    """A change the guard undoes in this mode, and the file it lands in: with namespaces git's config is
    read-only (the write fails), so a new .mcp.json stands in; without them the config change itself."""
    if mode_name == "fallback":
        return f"git config core.fsmonitor 'touch {marker}; false'", ".git/config"
    return """echo '{"mcpServers": {}}' > .mcp.json""", ".mcp.json"


@pytest.mark.parametrize("answer", ["keep", "undo", "headless", "yolo"])
async def test_the_user_may_keep_a_change_the_guard_undid(repo: Path, tmp_path: Path, mode: str, answer: str) -> None:
    marker = tmp_path / "ran"
    command, target = _change_for(mode, marker)
    before = (repo / target).read_bytes() if (repo / target).exists() else None
    ctx = sandboxed_context(repo, tmp_path, policy("workspace-write", repo, tmp_path))
    scripted = ScriptedApprover(ApprovalResponse(approved=answer == "keep", reason="not now"))
    ctx.approver = DenyingApprover() if answer == "headless" else scripted
    ctx.approval = ApprovalPolicy(mode="yolo" if answer == "yolo" else "write")
    try:
        result = await call(shell, ctx, command=command, wait_ms=60_000)
    finally:
        ctx.jobs.kill_all_sync(grace=0.5)
    after = (repo / target).read_bytes() if (repo / target).exists() else None
    if answer == "keep":
        [request] = scripted.requests
        assert request.keep_change and request.title == "Keep the command's change?" and request.danger
        assert target in request.reason and request.preview is not None
        assert ("fsmonitor" if mode == "fallback" else "mcpServers") in request.preview  # what the command wrote
        assert after != before and (b"fsmonitor" in after if mode == "fallback" else after == b'{"mcpServers": {}}\n')
        assert "the user chose to keep the change" in result.text, result.text
        return
    assert after == before, result.text
    assert "navtui undid" in result.text
    if answer == "undo":
        assert len(scripted.requests) == 1 and "the user chose to leave it undone. Their reason: not now" in result.text
    elif answer == "headless":
        assert "navtui is running without a prompt: the change stays undone" in result.text, result.text
    else:
        assert scripted.requests == [] and "not offered to the user in yolo mode" in result.text


async def test_without_namespaces_the_model_hears_once_why(repo: Path, tmp_path: Path, mode: str) -> None:
    ctx = sandboxed_context(repo, tmp_path, policy("workspace-write", repo, tmp_path))
    try:
        first = await call(shell, ctx, command="echo '{}' > .mcp.json", wait_ms=60_000)
        second = await call(shell, ctx, command="echo '{}' > .mcp.json; true", wait_ms=60_000)
    finally:
        ctx.jobs.kill_all_sync(grace=0.5)
    assert "navtui undid" in first.text and "navtui undid" in second.text
    said = "the stronger sandbox is not available (NAVTUI_SANDBOX_NAMESPACES=0 is set)"
    assert (said in first.text, said in second.text) == ((True, False) if mode == "fallback" else (False, False))


async def test_d5_a_command_cannot_reach_a_socket_outside_the_workspace(ws: Path, tmp_path: Path) -> None:
    """Landlock does not cover connect() to a unix socket by path, and such a socket is a door out: the user's tmux
    server ran `tmux new-window CMD` unconfined and outliving navtui, the session bus runs `systemd-run --user`, the
    Docker daemon a container with / mounted. With the namespaces every socket bound outside the workspace is
    covered before the command starts (connection refused); the workspace's own still answer."""
    usable, why = namespace_support()
    if not usable:
        pytest.skip(f"namespaces are not available here: {why}")
    (tmp_path / "run").mkdir()
    door, own = unix_canary(tmp_path / "run" / "agent.sock"), unix_canary(ws / "dev.sock")
    connect = f"{sys.executable} -S -c 'import socket,sys; socket.socket(socket.AF_UNIX).connect(sys.argv[1])'"
    try:
        result = await run(
            ws, tmp_path, f"{connect} {tmp_path}/run/agent.sock; echo door $?; {connect} dev.sock; echo own $?"
        )
    finally:
        door.close()
        own.close()
    assert "door 1" in result.text and "ConnectionRefusedError" in result.text and "own 0" in result.text, result.text
    assert (door.connections, own.connections) == (0, 1)


def _tmux(sock: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["tmux", "-S", str(sock), *args], capture_output=True, text=True, timeout=60)


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
async def test_d5_a_command_cannot_start_a_window_in_the_users_tmux(ws: Path, tmp_path: Path) -> None:
    usable, why = namespace_support()
    if not usable:
        pytest.skip(f"namespaces are not available here: {why}")
    sock, marker = tmp_path / "tmux-user" / "default", tmp_path / "escaped"
    sock.parent.mkdir(mode=0o700)
    assert (await asyncio.to_thread(_tmux, sock, "new-session", "-d", "sleep 600")).returncode == 0
    try:
        result = await run(ws, tmp_path, f"tmux -S {sock} new-window -d 'touch {marker}'; echo tmux $?")
        windows = await asyncio.to_thread(_tmux, sock, "list-windows")
    finally:
        await asyncio.to_thread(_tmux, sock, "kill-server")
    assert "tmux 1" in result.text, result.text
    assert len(windows.stdout.splitlines()) == 1 and not marker.exists()


async def test_d1_undoing_a_change_under_a_git_dir_turned_into_a_link_writes_nothing_there(
    repo: Path, tmp_path: Path, mode: str
) -> None:
    """Without the namespaces a command may move .git away and put a link to ~/.ssh in its place: putting .git/config
    back then removed ~/.ssh/config and wrote the repository's git config there (navtui does it, unsandboxed). A
    guarded path whose folder has become a link is left and named instead. (With the namespaces .git is a mount
    point: it cannot be moved.)"""
    ssh = tmp_path / "ssh"
    ssh.mkdir()
    (ssh / "config").write_text("Host *\n  IdentityFile ~/.ssh/id_ed25519\n")
    (ssh / "known_hosts").write_text("example.com ssh-ed25519 AAAA\n")
    before = {p.name: p.read_bytes() for p in ssh.iterdir()}
    result = await run(repo, tmp_path, f"mv .git .git.moved && ln -s {ssh} .git; echo done")
    assert {p.name: p.read_bytes() for p in ssh.iterdir()} == before, result.text
    if mode == "fallback":
        assert f"{repo}/.git/config (its folder is a link now; left as it is)" in result.text


async def test_d1_a_git_dir_turned_into_a_link_to_another_repository_keeps_that_ones_hooks(
    repo: Path, tmp_path: Path, mode: str
) -> None:
    """The link may point at the user's other repository: its hooks and its config.worktree are not this
    workspace's to remove."""
    other = tmp_path / "other"
    plain_git("init", "-q", str(other), cwd=tmp_path)
    (other / ".git" / "hooks" / "pre-commit").write_text("#!/bin/sh\nexit 0\n")
    (other / ".git" / "config.worktree").write_text("[core]\n")
    before = sorted(str(p.relative_to(other)) for p in other.rglob("*"))
    await run(repo, tmp_path, f"mv .git .git.moved && ln -s {other}/.git .git; echo done")
    assert sorted(str(p.relative_to(other)) for p in other.rglob("*")) == before
    assert (other / ".git" / "hooks" / "pre-commit").read_text() == "#!/bin/sh\nexit 0\n"


async def test_d6_a_command_cannot_leave_a_setuid_or_setgid_file(ws: Path, tmp_path: Path, mode: str) -> None:
    """``cp /bin/sh x; chmod u+s x`` left a program that runs as the user for anyone who can reach the workspace,
    long after navtui (no-new-privs covers only what runs inside the sandbox). Every way to set the bits is
    refused: chmod, install -m, creating a file with them; ordinary modes still work."""
    create = f"{PY} -c \"import os; os.close(os.open('made', os.O_CREAT | os.O_WRONLY, 0o6755))\""
    command = (
        f"cp /bin/sh x; chmod u+s x; chmod g+s x; chmod 4755 x; install -m 2755 /bin/sh y; {create}; "
        "touch plain; chmod 751 plain; mkdir d; chmod 2775 d; echo done"
    )
    result = await run(ws, tmp_path, command)
    assert "done" in result.text and "Operation not permitted" in result.text, result.text
    modes = {name: os.stat(ws / name).st_mode & 0o7777 for name in os.listdir(ws)}
    assert not [name for name, bits in modes.items() if bits & 0o6000], modes
    assert modes["plain"] == 0o751 and modes["x"] & 0o111  # ordinary bits still set


def test_d6_the_filter_refuses_only_set_id_bits(tmp_path: Path) -> None:
    """The filter alone, run by the kernel in a child: a plain open whose mode register holds the bits (no
    O_CREAT: the mode is ignored) and an ordinary chmod pass; a chmod with S_ISUID is refused."""
    import navtui.tools.sandbox.exec as launcher

    if os.uname().machine != "x86_64":
        pytest.skip("the raw openat call below uses x86_64's number")
    (tmp_path / "f").write_text("")
    code = (
        "import ctypes, os, sys\n"
        "sys.path.insert(0, sys.argv[1])\n"
        "import exec as launcher\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "libc.prctl(38, 1, 0, 0, 0)\n"  # no-new-privs, as confine() sets before
        "launcher.no_set_id_bits(libc)\n"
        "os.chdir(sys.argv[2])\n"
        "os.chmod('f', 0o755)\n"
        "print('open', libc.syscall(257, -100, b'f', os.O_RDONLY, 0o4755) >= 0)\n"  # openat(AT_FDCWD, ...)
        "try:\n    os.chmod('f', 0o4755)\nexcept PermissionError:\n    print('refused')\n"
    )
    done = subprocess.run(
        [sys.executable, "-S", "-c", code, str(Path(launcher.__file__).parent), str(tmp_path)],
        capture_output=True, text=True, timeout=30, check=False,
    )  # fmt: skip
    assert (done.returncode, done.stdout) == (0, "open True\nrefused\n"), done.stderr
    assert (tmp_path / "f").stat().st_mode & 0o7777 == 0o755
