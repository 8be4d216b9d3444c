"""shell and shell_status: output, exit codes, timeouts that leave no orphans, background jobs, env scrubbing."""

from __future__ import annotations

import asyncio
import os
import stat
import sys
from pathlib import Path

import pytest

from navtui.core.errors import ToolError
from navtui.tools.shell import procs
from navtui.tools.shell.shell import ShellStatusTool, ShellTool
from tests.tools.conftest import call, content

shell = ShellTool()
status = ShellStatusTool()
ROOT = Path(__file__).resolve().parents[3]


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def _pid_in(path: Path) -> int | None:
    text = path.read_text().strip() if path.exists() else ""
    return int(text) if text else None


def tree_gone(job) -> bool:
    """No process of the job is left (its children's pids are the PID namespace's own: look for its marker)."""
    return procs.find_processes([job.pid], job.marker) == []


def size_of(path: str) -> int:
    return os.stat(path).st_size


async def pid_from(path: Path) -> int:
    for _ in range(200):
        if (pid := _pid_in(path)) is not None:
            return pid
        await asyncio.sleep(0.02)
    raise AssertionError(f"{path} never got a pid")


async def test_output_and_exit_code(ws: Path, ctx) -> None:
    result = await call(shell, ctx, command="echo hello; echo oops >&2")
    assert not result.is_error
    assert result.text == "hello\noops\n[exit code 0 · " + result.text.split("· ")[1]
    details = result.details
    assert details["exit_code"] == 0 and details["status"] == "exited" and details["job"] == "j1"
    log = Path(details["output_path"])
    assert content(log) == "hello\noops\n" and stat.S_IMODE(os.stat(log).st_mode) == 0o600
    assert log.parent == ctx.artifacts_dir


async def test_failure_is_an_error_with_the_code(ctx) -> None:
    result = await call(shell, ctx, command="echo before; exit 3")
    assert result.is_error and "before" in result.text and "[exit code 3" in result.text
    missing = await call(shell, ctx, command="definitely-not-a-command-xyz")
    assert missing.is_error and "[exit code 127" in missing.text and "not found" in missing.text


async def test_runs_in_workspace_and_cwd_is_confined(ws: Path, ctx) -> None:
    (ws / "sub").mkdir()
    result = await call(shell, ctx, command="pwd", cwd="sub")
    assert result.text.startswith(str(ws / "sub"))
    with pytest.raises(ToolError, match="outside the workspace"):
        await call(shell, ctx, command="pwd", cwd="..")


async def test_partial_output_streams(ws: Path, ctx) -> None:
    chunks: list[str] = []

    def sink(text: str) -> None:
        chunks.append(text)
        (ws / "go").touch()  # the command prints "two" only after "one" reached us

    ctx.on_output = sink
    await call(shell, ctx, command="echo one; while [ ! -e go ]; do sleep 0.02; done; echo two")
    assert chunks[0] == "one\n" and "".join(chunks) == "one\ntwo\n"


async def test_long_output_keeps_head_and_tail_and_the_full_file(ctx) -> None:
    result = await call(shell, ctx, command="seq 1 100000")
    lines = result.text.splitlines()
    assert lines[0] == "1" and lines[-2] == "100000"
    assert "omitted of 100000 lines" in result.text and result.details["truncated"] is True
    assert len(result.text) < 40_000
    full = Path(result.details["output_path"])
    assert f"Full output: {full}" in result.text
    assert content(full).count("\n") == 100000


async def test_terminal_noise_is_cleaned_for_the_model(ctx) -> None:
    result = await call(shell, ctx, command=r"printf '\033[31mred\033[0m\n50%%\r100%%\n\033]52;c;ZXZpbA==\a end\n'")
    assert result.text.startswith("red\n100%\n end\n")


async def test_background_job_polled_to_completion(ws: Path, ctx) -> None:
    command = "echo waiting; while [ ! -e gate ]; do sleep 0.02; done; echo finished"
    started = await call(shell, ctx, command=command, wait_ms=500)
    assert not started.is_error and "background job j1" in started.text
    assert started.details["status"] == "running" and "waiting" in started.text
    running = await call(status, ctx, job="j1")
    assert "j1 running" in running.text
    (ws / "gate").touch()
    done = await call(status, ctx, job="j1", wait_ms=10_000)
    assert "j1 exit code 0" in done.text and "finished" in done.text and done.details["exit_code"] == 0
    output = await call(status, ctx, job="j1", action="output")
    assert "finished" in output.text


async def test_without_shell_status_on_offer_no_command_goes_to_the_background(ws: Path, ctx) -> None:
    """Qwen2.5-Coder 1.5B fills the optional wait_ms with 0: in the compact tool set (no shell_status) all 128 such
    commands in 11 eval runs went to the background, their output never seen."""
    ctx.offered = frozenset({"read", "write", "edit", "shell", "ls"})
    result = await call(shell, ctx, command="sleep 0.3; echo done", wait_ms=0)
    assert not result.is_error and result.details["status"] == "exited"
    assert result.text.startswith("done\n") and "shell_status" not in result.text and "background" not in result.text
    left = await call(shell, ctx, command="sleep 300 & echo started", wait_ms=0)
    assert "stopped 1 background process(es)" in left.text and "shell_status" not in left.text


async def test_kill_stops_a_job_and_its_children(ws: Path, ctx) -> None:
    pidfile = ws / "child.pid"
    await call(shell, ctx, command=f"sleep 300 & echo $! > {pidfile}; sleep 300", wait_ms=0)
    await pid_from(pidfile)
    result = await call(status, ctx, job="j1", action="kill")
    assert result.details["status"] == "killed" and "killed after" in result.text
    assert tree_gone(ctx.jobs.get("j1"))


async def test_a_flood_of_output_is_stopped_at_the_limit(ctx) -> None:
    """The output file lies in navtui's home and had no limit: `yes` wrote ~2 GB a second there until the timeout.
    Past ``max_output`` the command is stopped at once (it ignores SIGTERM here), and the model is told why."""
    ctx.jobs.max_output = 8 << 20
    flood = "trap '' TERM; for i in $(seq 200); do head -c 1000000 /dev/zero | tr '\\0' x; sleep 0.01; done"
    result = await call(shell, ctx, command=flood, timeout=120)
    job = ctx.jobs.get("j1")
    assert job is not None and result.details["status"] == "output_limit", result.text[-300:]
    assert result.text.endswith(
        "s: its output passed 8 MB. Send a long output to a file and read parts of it, or cut it with head, tail or "
        "grep]"
    )
    assert 8 << 20 < size_of(result.details["output_path"]) < 100 << 20  # not the 200 MB it would write
    assert tree_gone(job) and "stopped after" in job.describe()


async def test_unknown_job_lists_the_known_ones(ctx) -> None:
    await call(shell, ctx, command="true")
    with pytest.raises(ToolError, match=r"No shell job 'j7'. Jobs in this session: j1 exit code 0"):
        await call(status, ctx, job="j7")


async def test_cancelling_the_call_kills_the_tree(ws: Path, ctx) -> None:
    pidfile = ws / "c.pid"
    task = asyncio.create_task(call(shell, ctx, command=f"sleep 300 & echo $! > {pidfile}; sleep 300"))
    await pid_from(pidfile)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    job = ctx.jobs.get("j1")
    assert job is not None and await job.wait(10)
    assert job.status == "killed" and tree_gone(job) and gone(job.pid)


async def test_kill_all_stops_every_job(ws: Path, ctx) -> None:
    for name in ("a", "b"):
        await call(shell, ctx, command=f"sleep 300 & echo $! > {ws / name}; sleep 300", wait_ms=0)
    for name in ("a", "b"):
        await pid_from(ws / name)
    await ctx.jobs.kill_all()
    assert all(tree_gone(job) for job in ctx.jobs.jobs.values())
    assert [job.status for job in ctx.jobs.jobs.values()] == ["killed", "killed"]


async def test_passthrough_setting_keeps_a_named_secret_but_never_a_provider_key(ctx, monkeypatch) -> None:
    from navtui.config.settings import Settings

    monkeypatch.setenv("GITHUB_TOKEN", "gh-visible")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-hidden")
    ctx.settings = Settings.model_validate({"tools": {"shell_env_passthrough": ["GITHUB_TOKEN", "ANTHROPIC_API_KEY"]}})
    result = await call(shell, ctx, command="env")
    assert "GITHUB_TOKEN=gh-visible" in result.text and "sk-ant-hidden" not in result.text


async def test_exit_cleanup_kills_jobs_when_navtui_exits(tmp_path: Path) -> None:
    """A process that exits normally, or by SIGTERM, takes its jobs (and their children) with it,
    even when nothing holds the job registry any more."""
    script = tmp_path / "host.py"
    script.write_text(
        "import sys, time\n"
        "from pathlib import Path\n"
        "from navtui.tools.shell.jobs import JobRegistry\n"
        "registry = JobRegistry()\n"
        "out = Path(sys.argv[1])\n"
        "registry.start(f'sleep 300 & echo $! > {out}; sleep 300', cwd=out.parent, env={'PATH': '/usr/bin:/bin'},\n"
        "               output_dir=out.parent / 'art', timeout=600)\n"
        "while not out.exists() or not out.read_text().strip():\n"
        "    time.sleep(0.02)\n"
        "print('ready', flush=True)\n"
        "if sys.argv[2] == 'wait':\n"
        "    time.sleep(300)\n"
        "if sys.argv[2] == 'drop':\n"
        "    import gc\n"
        "    del registry\n"
        "    gc.collect()\n"
    )
    root = ROOT
    for mode in ("exit", "wait", "drop"):
        pidfile = tmp_path / f"{mode}.pid"
        process = await asyncio.create_subprocess_exec(
            sys.executable, str(script), str(pidfile), mode, cwd=root, stdout=asyncio.subprocess.PIPE
        )
        assert process.stdout is not None
        assert (await asyncio.wait_for(process.stdout.readline(), 20)).strip() == b"ready"
        if mode == "wait":
            process.terminate()
        await asyncio.wait_for(process.wait(), 20)
        child = int(pidfile.read_text())
        for _ in range(100):  # the child was re-parented to init when the host died; let init reap it
            if not _running(child):
                break
            await asyncio.sleep(0.05)
        assert not _running(child), mode


def _running(pid: int) -> bool:
    """Alive and not a zombie (a host that died cannot reap its own orphans; init may take a moment)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")


def test_bad_arguments_are_tool_errors() -> None:
    with pytest.raises(ToolError, match=r"command: String should have at least 1 character"):
        shell.parse_args({"command": ""})
    with pytest.raises(ToolError, match=r"action: Input should be 'status', 'output', 'tail' or 'kill'"):
        status.parse_args({"job": "j1", "action": "restart"})
