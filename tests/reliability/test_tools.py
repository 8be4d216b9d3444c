"""Tool and process scenarios T01-T13: real commands, real process trees, the real CLI and app.

Every test here also checks I3 (conftest): no process carrying the test's marker survives it.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from navtui.core.messages import ToolResultMessage
from navtui.session.manager import SessionManager
from navtui.tools.shell.shell import ShellTool
from navtui.widgets.tool_card import ToolCard
from tests.app.conftest import (
    foreign_controls,
    main_screen,
    rendered_text,
    settle,
    terminal_output,
    transcript,
    wait_for,
)
from tests.fakes import FakeServer, Stall, Text, ToolCall
from tests.fakes.crash import child_env, run_navtui
from tests.run_main import run_main
from tests.tools.conftest import call

shell = ShellTool()
MODEL = "qwen2.5-coder:7b"


def gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return True
    return state in ("Z", "X")


def job_gone(ctx, job_id: str = "j1") -> bool:
    """No process of the job is left. Its processes' pids are those of its PID namespace (``$!`` means nothing
    out here), so they are found by the job's marker."""
    from navtui.tools.shell import procs

    job = ctx.jobs.get(job_id)
    assert job is not None
    return procs.find_processes([job.pid], job.marker) == []


def _headless(server: FakeServer, *args: str, cwd: Path, **kwargs) -> subprocess.CompletedProcess[str]:
    return run_navtui("-p", "ollama", "-b", server.url, "-m", MODEL, "--approval", "yolo", *args, cwd=cwd, **kwargs)


def _in_process(server: FakeServer, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """A run that is not about the process (its jobs, its exit, its environment): called in this one."""
    return run_main("-p", "ollama", "-b", server.url, "-m", MODEL, "--approval", "yolo", *args, cwd=cwd)


def _tool_results(server: FakeServer) -> list[str]:
    """The tool results the model was sent, in order (Ollama wire format)."""
    last = server.chat_requests[-1].json["messages"]
    return [m["content"] for m in last if m["role"] == "tool"]


# ---------------------------------------------------------------------------------------------------- T01-T04
async def test_t01_a_timeout_kills_every_descendant(ws: Path, ctx) -> None:
    pidfile = ws / "grandchild.pid"
    command = f"sh -c 'sleep 1000 & sleep 1000 & wait' & sleep 300 & echo $! > {pidfile}; echo started; wait"
    result = await call(shell, ctx, command=command, timeout=1)
    assert result.is_error and result.details["status"] == "timed_out"
    assert "started" in result.text and "[timed out after 1 s" in result.text
    assert pidfile.read_text().strip() and job_gone(ctx)


async def test_t02_escapees_are_found_by_their_marker(ws: Path, ctx) -> None:
    pidfile = ws / "escapee.pid"
    command = (
        f"setsid sleep 300 & echo $! > {pidfile}; nohup sleep 301 >/dev/null 2>&1 & "
        "(sh -c 'sleep 302 &' &) ; sleep 300"  # the last one: a double fork
    )
    result = await call(shell, ctx, command=command, timeout=1)
    assert result.details["status"] == "timed_out"
    assert pidfile.read_text().strip() and job_gone(ctx)


def test_t02_escapees_do_not_outlive_a_navtui_killed_with_sigkill(
    fake_server: FakeServer, workspace: Path, no_orphans: str
) -> None:
    from tests.fakes.orphans import marked_processes

    command = "sleep 300 & setsid sleep 301 & nohup sleep 302 >/dev/null 2>&1 & echo up > up.txt; sleep 303"
    fake_server.script(ToolCall("shell", {"command": command, "wait_ms": 600_000}))
    args = ["-p", "ollama", "-b", fake_server.url, "-m", MODEL, "--approval", "yolo", "--print", "go"]
    process = subprocess.Popen(
        [sys.executable, "-m", "navtui", *args], cwd=workspace, env=child_env(), stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 30
        while not (workspace / "up.txt").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(marked_processes(no_orphans)) >= 4
    finally:
        process.kill()
        process.wait()
    # Nothing waits for the next start: the kernel stops the command's PID namespace with navtui (or, without
    # namespaces, the launcher kills its tree when navtui dies).
    deadline = time.monotonic() + 15
    while marked_processes(no_orphans) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert marked_processes(no_orphans) == []
    fake_server.script(Text("ok"))
    again = _in_process(fake_server, "--print", "hello", cwd=workspace)
    assert again.returncode == 0 and "left by an earlier run" not in again.stderr


@pytest.mark.parametrize(
    "command",
    [
        pytest.param("sleep 1000 & echo $! > bg.pid; echo done", id="background-child"),
        pytest.param("sh -c '(sleep 1000 & echo $! > bg.pid); echo done'", id="subshell-holding-the-output"),
    ],
)
async def test_t03_a_command_that_leaves_a_process_holding_its_output_returns_at_once(
    ws: Path, ctx, command: str
) -> None:
    result = await call(shell, ctx, command=command, wait_ms=20_000)
    assert not result.is_error and "done" in result.text and result.details["duration"] < 5
    assert "stopped 1 background process" in result.text
    assert (ws / "bg.pid").read_text().strip() and job_gone(ctx)


async def test_t04_commands_reading_stdin_get_end_of_file_not_a_hang(ctx) -> None:
    command = "cat; python3 -c 'input()' 2>&1 | tail -1; grep foo; echo after"
    result = await call(shell, ctx, command=command, wait_ms=20_000)
    assert result.details["status"] == "exited"
    assert "EOFError" in result.text and "after" in result.text


# ---------------------------------------------------------------------------------------------------- T06, T07
HOSTILE_OUTPUT = (
    r"head -c 1000000 /dev/urandom; echo; printf 'bad \377\376 utf8; nul \000 here; 50%%\r100%%\n'; "
    r"printf '\033[31mred\033[0m \033]52;c;ZXZpbA==\a \033]8;;http://evil.example\033\\link\033]8;;\033\\ end\n'"
)


async def test_t06_hostile_bytes_from_a_tool_reach_neither_the_terminal_nor_the_model_as_controls(
    make_app, fake_server
) -> None:
    fake_server.script(ToolCall("shell", {"command": HOSTILE_OUTPUT}))
    fake_server.script(Text("seen"))
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        main_screen(app).submit("run it")
        await settle(app, pilot)
        [card] = transcript(app).widgets_of(ToolCard)
        await pilot.press("ctrl+o")  # expanded: the output itself is drawn
        await settle(app, pilot)
        shown = rendered_text(card)
        assert "red" in shown and "end" in shown
        output = terminal_output(app)
        assert foreign_controls(output) == [] and "\x1b]52" not in output and "\x1b]8" not in output
    [result] = _tool_results(fake_server)
    assert "red " in result and "link end" in result and "100%" in result
    assert not any(ch in result for ch in "\x1b\x00\x07\r\x9b")  # the model gets plain text


MARKUP = "[/bold] [red]x[/red] [link=https://evil.example]y[/link] [@click=app.quit]z[/]"


async def test_t07_markup_in_model_text_file_names_and_contents_is_shown_literally(
    make_app, fake_server, workspace: Path
) -> None:
    name = "[bold]notes[@click=app.quit].md"
    (workspace / name).write_text(f"file says {MARKUP}\n")
    fake_server.script(Text(f"answer {MARKUP}\n\n"), ToolCall("read", {"path": name}))
    fake_server.script(Text("done"))
    app = make_app()
    async with app.run_test(size=(160, 40)) as pilot:
        main_screen(app).submit("go")
        await settle(app, pilot)
        await pilot.press("ctrl+o")
        await settle(app, pilot)
        view = transcript(app)
        screen_text = "\n".join(rendered_text(w) for w in view.children)
        assert f"answer {MARKUP}" in screen_text
        [card] = view.widgets_of(ToolCard)
        assert card.item.status == "success" and name in rendered_text(card)
        assert f"file says {MARKUP}" in rendered_text(card)
        assert app.is_running  # [@click=app.quit] did nothing


# ---------------------------------------------------------------------------------------------------- T08
# A long-lived job (a server would need the network, which the default sandbox blocks: see T12).
JOB = "python3 -c \"import time; print('Serving on 8000', flush=True); time.sleep(300)\""


def _as_started_from_a_terminal() -> None:
    """Default SIGHUP/SIGTERM in the child, as a shell in a terminal starts it.

    A suite run under ``nohup`` (or by a daemon that ignores SIGHUP) passes the ignored hang-up on to every child,
    and navtui rightly keeps it ignored then (nohup's contract), so the hang-up under test would never arrive.
    """
    for signum in (signal.SIGHUP, signal.SIGTERM):
        signal.signal(signum, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGHUP, signal.SIGTERM})


@pytest.mark.parametrize("ending", ["normal-exit", "SIGTERM", "SIGHUP"])
def test_t08_a_background_job_is_reported_and_dies_with_navtui(
    fake_server: FakeServer, workspace: Path, ending: str
) -> None:
    fake_server.script(ToolCall("shell", {"command": JOB, "wait_ms": 300}))
    fake_server.script(ToolCall("shell_status", {"job": "j1", "wait_ms": 300}))
    if ending == "normal-exit":
        fake_server.script(Text("the server runs"))
        run = _headless(fake_server, "--print", "start a server", cwd=workspace)
        assert run.returncode == 0, run.stderr
    else:
        fake_server.script(Stall(60))  # the model is thinking when the user's terminal goes away
        process = subprocess.Popen(
            [sys.executable, "-m", "navtui", "-p", "ollama", "-b", fake_server.url, "-m", MODEL, "--approval", "yolo",
             "--print", "start a server"],
            cwd=workspace, env=child_env(), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            preexec_fn=_as_started_from_a_terminal,
        )  # fmt: skip
        deadline = time.monotonic() + 30
        while len(fake_server.chat_requests) < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
        process.send_signal(signal.SIGTERM if ending == "SIGTERM" else signal.SIGHUP)
        process.communicate(timeout=30)
        assert process.returncode != 0
    results = _tool_results(fake_server)
    assert "background job j1" in results[0]
    assert "j1 running" in results[1] and "Serving on 8000" in results[1]  # state and last lines
    # After a restart the job is not reported as running.
    fake_server.script(ToolCall("shell_status", {"job": "j1"}))
    fake_server.script(Text("gone"))
    again = _in_process(fake_server, "--print", "is it up?", "-c", cwd=workspace)
    assert again.returncode == 0, again.stderr
    assert "No shell job 'j1'" in _tool_results(fake_server)[-1]


# ---------------------------------------------------------------------------------------------------- T09
async def test_t09_escape_during_a_command_kills_its_tree_and_records_an_interrupted_result(
    make_app, fake_server, workspace: Path
) -> None:
    fake_server.script(ToolCall("shell", {"command": "sleep 30 & echo $! > child.pid; sleep 30"}))
    fake_server.script(Text("understood, I will not re-run it"))
    app = make_app(ephemeral=False)
    async with app.run_test(size=(100, 32)) as pilot:
        main = main_screen(app)
        main.submit("wait a bit")
        await wait_for(pilot, lambda: (workspace / "child.pid").exists() and (workspace / "child.pid").read_text())
        await pilot.press("escape")
        await wait_for(pilot, lambda: not main.running, seconds=5)
        await wait_for(pilot, lambda: job_gone(app.runtime.ctx), seconds=5)  # TERM, then KILL after the grace
        history = app.runtime.agent.messages
        [result] = [m for m in history if isinstance(m, ToolResultMessage)]
        assert result.is_error and "Aborted by the user" in result.text
        path = app.runtime.session.path
        main.submit("why did you stop?")
        await settle(app, pilot)
    saved = SessionManager.open(path)
    recorded = [e.message for e in saved.entries if e.type == "message" and isinstance(e.message, ToolResultMessage)]  # type: ignore[union-attr]
    assert [r.text for r in recorded] == [result.text]
    last = fake_server.chat_requests[-1].json["messages"]
    [sent] = [m for m in last if m["role"] == "tool"]
    assert "Aborted by the user" in sent["content"]  # the model is told it did not finish, not to redo it


# ---------------------------------------------------------------------------------------------------- T10, T11
def test_t10_a_deleted_cwd_a_missing_command_and_a_denied_one_are_clear_errors(
    fake_server: FakeServer, workspace: Path
) -> None:
    (workspace / "gone").mkdir()
    (workspace / "x.sh").write_text("#!/bin/sh\necho hi\n")  # not executable
    fake_server.script(
        ToolCall("shell", {"command": "rmdir ../gone && echo removed", "cwd": "gone"}),
        ToolCall("shell", {"command": "pwd", "cwd": "gone"}),
        ToolCall("shell", {"command": "definitely-not-a-command-xyz"}),
        ToolCall("shell", {"command": "./x.sh"}),
    )
    fake_server.script(Text("all reported"))
    run = _in_process(fake_server, "--print", "try things", cwd=workspace)
    assert run.returncode == 0 and run.stdout.strip() == "all reported", run.stderr
    removed, missing_cwd, not_found, denied = _tool_results(fake_server)
    assert "removed" in removed
    assert "not an existing directory" in missing_cwd
    assert "not found" in not_found and "[exit code 127" in not_found
    assert "Permission denied" in denied and "[exit code 126" in denied


async def test_t11_secrets_in_the_environment_and_in_shell_startup_files_stay_out_of_commands(
    ctx, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    canaries = {
        "ANTHROPIC_API_KEY": "sk-ant-canary",
        "OPENAI_API_KEY": "sk-canary-openai",
        "NAVTUI_API_KEY": "canary-navtui",
        "OPENROUTER_API_KEY": "canary-openrouter",
        "NAVTUI_SECRET_TOKEN": "canary-navtui-secret",
        "GITHUB_TOKEN": "canary-gh",
        "DB_PASSWORD": "canary-db",
    }
    for name, value in canaries.items():
        monkeypatch.setenv(name, value)
    home = tmp_path / "home"
    home.mkdir()
    (home / ".bashrc").write_text("export FOO_TOKEN=canary-bashrc\n")
    (home / ".profile").write_text("export FOO_TOKEN=canary-profile\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("NAVTUI_HARMLESS", "visible")
    result = await call(shell, ctx, command="env")
    assert not any(value in result.text for value in canaries.values())
    assert "canary-bashrc" not in result.text and "canary-profile" not in result.text
    assert "NAVTUI_HARMLESS=visible" in result.text and "NAVTUI_JOB_ID=" in result.text
    assert "GIT_TERMINAL_PROMPT=0" in result.text and "PAGER=cat" in result.text


# ---------------------------------------------------------------------------------------------------- T12, T13
@pytest.fixture
def home_outside_tmp() -> Iterator[Path]:
    """A home directory outside /tmp (the sandbox lets commands write the system temp dirs)."""
    base = Path("/var/tmp")
    if not (base.is_dir() and os.access(base, os.W_OK)):
        pytest.skip("needs a writable /var/tmp: every other scratch place is a temp dir the sandbox allows")
    home = Path(tempfile.mkdtemp(prefix="navtui-t12-", dir=base))
    (home / ".ssh").mkdir()
    yield home
    shutil.rmtree(home, ignore_errors=True)


def test_t12_a_sandboxed_command_cannot_write_outside_or_reach_the_network(
    fake_server: FakeServer, workspace: Path, home_outside_tmp: Path
) -> None:
    import socket

    home = home_outside_tmp
    canary = socket.socket()
    canary.bind(("127.0.0.1", 0))
    canary.listen()
    canary.setblocking(False)
    port = canary.getsockname()[1]
    connect = f"python3 -c \"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=2)\""
    fake_server.script(
        ToolCall("shell", {"command": f"echo key > {home}/.ssh/x"}),
        ToolCall("shell", {"command": connect}),
        ToolCall("shell", {"command": "echo ok > inside.txt"}),
    )
    fake_server.script(Text("done"))
    try:
        run = _headless(
            fake_server, "--print", "go", "--sandbox", "workspace-write", cwd=workspace, env={"HOME": str(home)}
        )
        assert run.returncode == 0, run.stderr
        outside, network, inside = _tool_results(fake_server)
        assert not (home / ".ssh" / "x").exists() and "sandbox" in outside.lower()
        assert "sandbox" in network.lower()
        with pytest.raises(BlockingIOError):
            canary.accept()  # the canary server saw no connection
        assert (workspace / "inside.txt").read_text() == "ok\n" and "[exit code 0" in inside
    finally:
        canary.close()


def test_t13_a_missing_sandbox_is_said_at_start_never_silently_full_access(
    fake_server: FakeServer, workspace: Path
) -> None:
    fake_server.script(ToolCall("shell", {"command": "echo ran"}))
    fake_server.script(Text("done"))
    run = _headless(fake_server, "--print", "go", cwd=workspace, env={"NAVTUI_LANDLOCK_ABI": "0"})  # no Landlock
    assert run.returncode == 0, run.stderr
    assert "sandbox is not available" in run.stderr and "Landlock" in run.stderr and "unconfined" in run.stderr


# ---------------------------------------------------------------------------------------------------- X4
def _private_tmpfs_works(directory: Path) -> bool:
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(
        ["unshare", "-rm", "sh", "-c", f"mount -t tmpfs -o size=64k tmpfs '{directory}'"],
        capture_output=True,
        timeout=10,
    )
    return probe.returncode == 0


def test_x4_a_command_run_while_navtui_home_is_full_says_the_disk_is_full(
    fake_server: FakeServer, workspace: Path, navtui_home: Path
) -> None:
    if not _private_tmpfs_works(navtui_home):
        pytest.skip("needs unshare -rm and a tmpfs mount (user namespaces) to fill a disk safely")
    fake_server.script(ToolCall("shell", {"command": "echo hello"}))
    fake_server.script(Text("noted"))
    navtui = [sys.executable, "-m", "navtui", "-p", "ollama", "-b", fake_server.url, "-m", MODEL, "--approval",
              "yolo", "--print", "say hello"]  # fmt: skip
    fill = (
        'mount -t tmpfs -o size=256k tmpfs "$NAVTUI_HOME" && mkdir -p "$NAVTUI_HOME/artifacts" && '
        '(dd if=/dev/zero of="$NAVTUI_HOME/fill" bs=4096 2>/dev/null; true) && exec "$@"'
    )
    run = subprocess.run(
        ["unshare", "-rm", "sh", "-c", fill, "sh", *navtui],
        cwd=workspace, env=child_env(), capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    [result] = _tool_results(fake_server)
    assert "is full" in result and "free some space" in result
    # The answer is delivered, and losing the session is not silent: it is said, and the exit code is 1.
    assert run.stdout.strip() == "noted" and run.returncode == 1
    assert "The session could not be saved" in run.stderr and "the disk is full" in run.stderr
