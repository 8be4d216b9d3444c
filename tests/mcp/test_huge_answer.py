"""A stdio server's answer larger than navtui reads (process.MAX_MESSAGE_BYTES) is refused while it is read.

The SDK kept a whole line and joined each 64 KB read onto it: a 200 MB answer held the call for minutes of CPU
(quadratic copying) and hundreds of MB before navtui's own 32 KB cut could apply. The relay between the server's
stdout and the SDK (navtui/mcp/relay.py) drops such a message past its first bytes and answers the call with an
error that says why; the server stays connected and its next call works.
"""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from navtui.core.errors import ToolError
from navtui.mcp import process
from navtui.mcp.config import user_config_path
from navtui.mcp.relay import top_level_id
from tests.mcp.conftest import write_servers
from tests.mcp.test_servers import Running

pytestmark = pytest.mark.skipif(not hasattr(os, "pidfd_open"), reason="Linux process handling")
SERVER = Path(__file__).with_name("big_answer_server.py")


async def big_server(workspace: Path, traces: Path, **env: str) -> Running:
    entry = {"command": sys.executable, "args": [str(SERVER)], "env": {"MCP_TEST_DIR": str(traces), **env}}
    write_servers(user_config_path(), {"big": entry})
    running = Running(workspace, "big")
    await running.manager.start()
    return running


@pytest.fixture
async def big(workspace: Path, traces: Path) -> AsyncIterator[Running]:
    running = await big_server(workspace, traces)
    yield running
    await running.manager.aclose()


async def test_a_200_mb_answer_is_refused_while_read_and_the_server_stays(big: Running) -> None:
    assert big.connection.state == "ready", big.connection.error
    with pytest.raises(ToolError) as refused:
        await big.run("big")
    said = str(refused.value)
    assert "The MCP server 'big' refused the call: navtui did not read this answer: it is 200.0 MB" in said, said
    assert f"at most {process.MAX_MESSAGE_BYTES >> 20} MB of one MCP message" in said
    assert big.connection.state == "ready"
    after = await big.run("small")  # the stream is in step: the next answer is its own
    assert not after.is_error and after.text == "fine"


async def test_an_oversized_notification_is_dropped_and_the_answer_after_it_arrives(
    workspace: Path, traces: Path
) -> None:
    running = await big_server(workspace, traces, MCP_TEST_BIG_MB="20", MCP_TEST_BIG_NOTIFY="1")
    try:
        result = await running.run("big")
        assert not result.is_error and result.text == "after the notice"
        log = running.connection.stderr_path
        assert log is not None and "dropped a message of 20,971,606 bytes without an id" in log.read_text()
    finally:
        await running.manager.aclose()


@pytest.mark.parametrize(
    ("head", "found"),
    [
        (b'{"jsonrpc":"2.0","id":7,"result":{"content":[{"text":"xx', b"7"),
        (b'{"jsonrpc": "2.0", "id" : "a\\"b", "result": {', b'"a\\"b"'),
        (b'{"result":{"id":3,"content":"xx', None),  # an "id" inside the result is not the message's
        (b'{"result":"has \\"id\\": 5","id":-2,"x', b"-2"),
        (b'{"jsonrpc":"2.0","id":12', None),  # cut in the middle of the number: not trusted
        (b'{"method":"notifications/message","params":{"data":"xx', None),
    ],
)
def test_the_id_of_an_oversized_message_is_read_at_the_top_level_only(head: bytes, found: bytes | None) -> None:
    assert top_level_id(head) == found


def test_the_relay_runs_the_launcher_in_its_own_child_without_starting_an_interpreter(tmp_path: Path) -> None:
    """The relay imports the launcher and runs its ``main`` after the fork: the interpreter named in the launcher's
    command line is never started (a third interpreter per server cost ~15 ms of every server's start), while the
    launcher's policy still applies and the server's output and exit status come through the relay."""
    import subprocess

    command, args = process.launch_command(sys.executable, ["-c", "import sys; print('up'); sys.exit(3)"])
    relay_at = args.index(str(process.RELAY))
    split = args.index("--", relay_at + 3)
    launcher = args[relay_at + 3 : split]
    assert launcher[0] == sys.executable and launcher[-1] == f"deathsig={int(process.signal.SIGKILL)}"
    missing = str(tmp_path / "no-such-python")
    argv = [command, *args[: relay_at + 3], missing, *launcher[1:], *args[split:]]
    done = subprocess.run(argv, capture_output=True, timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (3, b"up\n", b"")


def test_a_term_for_the_relay_reaches_the_server_and_the_relay_ends_after_it(tmp_path: Path) -> None:
    """The SDK stops a server that does not exit when its stdin closes (one stuck at start-up) with a TERM to its
    process group, and waits until the group is gone. The relay died at once and left the server, dying too, an
    orphan: a zombie that an init which never reaps (this machine's), or navtui as a subreaper, kept in the group,
    and every such stop waited out the SDK's 2 s more. The relay passes the TERM on and ends after the server,
    having reaped it."""
    import signal
    import subprocess

    from navtui.tools.shell import procs
    from tests.tools.shell.test_lifetime import read_pid

    procs.become_subreaper()  # as navtui is: an orphan comes to this process, which does not reap it
    pid_file = tmp_path / "pid"
    command, args = process.launch_command("sh", ["-c", f"echo $$ > {pid_file}; exec sleep 300"])
    relay = subprocess.Popen([command, *args], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    try:
        server = read_pid(pid_file)
        relay.send_signal(signal.SIGTERM)  # to the relay alone
        assert relay.wait(60) == -signal.SIGTERM  # it ends the way the server did
        assert not Path(f"/proc/{server}").exists()  # reaped by the relay, not an orphan left a zombie
    finally:
        relay.kill()
        relay.wait()
