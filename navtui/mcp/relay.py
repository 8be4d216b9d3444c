"""Between a stdio MCP server's stdout and navtui: every message longer than a cap is dropped while it is read.

    python -E -s -S .../mcp/relay.py LIMIT -- LAUNCHER_ARGS... -- COMMAND [ARGS...]

The MCP SDK reads a server's stdout a line (one JSON-RPC message) at a time and keeps the whole line, joining each
64 KB read onto what it holds so far: a 200 MB answer cost minutes of CPU and twice its size in memory before
navtui's own cut (32 KB for the model, the rest to a file) could apply. This process runs the server with its
stdout on a pipe and copies it to its own stdout (the SDK's pipe) message by message. A message longer than
``LIMIT`` bytes is not kept past its first 4 KB: the rest is read and dropped, and in its place goes a JSON-RPC
error for the request it answered (its ``id``, read from those first bytes), so the call ends at once with a
clear reason. A notification (no ``id``) that long is dropped with a line on stderr (the server's log).

The server inherits stdin and stderr as they are. It is started through the launcher (``LAUNCHER_ARGS`` are the
launcher and its policy, minus ``parent=``, which names this process), whose ``main`` runs in the forked child
(its module is imported here, not started as a third interpreter), so it dies with this process, and this
process exits with the server's status as soon as the server exits (a pidfd, not the pipe's end: a server's
children may hold the pipe). Like the launcher, it imports only the standard library and runs with ``-S``.
"""

import os
import signal
import sys

HEAD = 4096  # what is kept of an oversized message: enough for its "id", which comes first in every SDK's output
READ = 1 << 20


def top_level_id(head: bytes) -> bytes | None:
    """The raw JSON value of the top-level ``"id"`` member in ``head`` (the start of a JSON object), if whole."""
    depth, i, n = 0, 0, len(head)
    expect_key = False
    while i < n:
        c = head[i]
        if c == 0x22:  # a string
            j = i + 1
            while j < n and head[j] != 0x22:
                j += 2 if head[j] == 0x5C else 1
            if j >= n:
                return None
            if depth == 1 and expect_key and head[i : j + 1] == b'"id"':
                k = j + 1
                while k < n and head[k] in b" \t\r\n":
                    k += 1
                if k >= n or head[k] != 0x3A:
                    return None
                return _value_at(head, k + 1)
            i = j + 1
            expect_key = False
            continue
        if c in b"{[":
            depth += 1
            expect_key = c == 0x7B and depth == 1
        elif c in b"}]":
            depth -= 1
        elif c == 0x2C and depth == 1:
            expect_key = True
        i += 1
    return None


def _value_at(head: bytes, start: int) -> bytes | None:
    """A number or a string at ``start`` (the only kinds a JSON-RPC id takes), as its raw bytes."""
    i = start
    while i < len(head) and head[i] in b" \t\r\n":
        i += 1
    if i < len(head) and head[i] == 0x22:
        j = i + 1
        while j < len(head) and head[j] != 0x22:
            j += 2 if head[j] == 0x5C else 1
        return head[i : j + 1] if j < len(head) else None
    j = i
    while j < len(head) and head[j] in b"-0123456789":
        j += 1
    return head[i:j] if j > i and j < len(head) else None


def refusal(message_id: bytes, size: int, limit: int) -> bytes:
    text = (
        f"navtui did not read this answer: it is {size / (1 << 20):.1f} MB, and navtui reads at most "
        f"{limit // (1 << 20)} MB of one MCP message. Ask for less (a page, a range, a filter)."
    )
    return b'{"jsonrpc":"2.0","id":' + message_id + b',"error":{"code":-32603,"message":"' + text.encode() + b'"}}\n'


class Relay:
    """The copy: whole messages of at most ``limit`` bytes go out as they were read; longer ones are refused."""

    def __init__(self, limit: int, out: int) -> None:
        self.limit, self.out = limit, out
        self.pending = bytearray()  # the message being read, while it is within the limit
        self.head = b""  # the start of the message being dropped
        self.dropped = -1  # bytes of the message being dropped so far; -1 while none is

    def feed(self, chunk: bytes) -> None:
        start = 0
        while start < len(chunk):
            end = chunk.find(b"\n", start)
            piece = chunk[start:] if end < 0 else chunk[start:end]
            start = len(chunk) if end < 0 else end + 1
            if self.dropped >= 0:
                self.dropped += len(piece)
            elif len(self.pending) + len(piece) > self.limit:
                self.head = bytes(self.pending[:HEAD]) + piece[: max(0, HEAD - len(self.pending))]
                self.dropped = len(self.pending) + len(piece)
                self.pending = bytearray()
            else:
                self.pending += piece
            if end >= 0:
                self._end_of_message()

    def _end_of_message(self) -> None:
        if self.dropped < 0:
            self._write(bytes(self.pending) + b"\n")
            self.pending = bytearray()
            return
        message_id = top_level_id(self.head)
        if message_id is not None:
            self._write(refusal(message_id, self.dropped, self.limit))
        else:
            sys.stderr.write(f"navtui: dropped a message of {self.dropped:,} bytes without an id (over the limit)\n")
            sys.stderr.flush()
        self.head, self.dropped = b"", -1

    def _write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(self.out, view) :]


def _load_launcher(launcher: list):  # type: ignore[no-untyped-def]  # the launcher's module and its policy
    """The launcher script named in ``launcher`` (``python -E -s -S .../exec.py POLICY...``), imported here, and
    its policy arguments: the child runs its ``main`` after the fork instead of starting a third interpreter
    (which cost every server ~40 ms of start). It imports only the standard library, as this file does."""
    script = next(i for i, arg in enumerate(launcher) if arg.endswith(".py"))
    sys.path.insert(0, os.path.dirname(launcher[script]))
    module = __import__(os.path.basename(launcher[script])[:-3])
    return module, launcher[script + 1 :]


def _start(launcher: list, command: list, stdout: int) -> int:
    module, policy = _load_launcher(launcher)
    pid = os.fork()
    if pid == 0:  # this process has one thread: Python runs safely in the child until the launcher's exec
        code = 127
        try:
            os.dup2(stdout, 1)
            code = module.main([*policy, f"parent={os.getppid()}", "--", *command])
        finally:
            sys.stderr.flush()
            os._exit(code)
    return pid


def _exit_like(status: int) -> int:
    code = os.waitstatus_to_exitcode(status)
    if code < 0:  # killed by a signal: end the same way, so navtui reports what the server's end was
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
        return 128 - code
    return code


def _signal_server(pidfd: int, signum: int) -> None:
    """Pass a signal on to the server (a pidfd names it for good: once reaped, nothing gets it)."""
    try:
        signal.pidfd_send_signal(pidfd, signum)
    except OSError:  # it has ended already
        pass


def main(argv: list) -> int:
    import select

    split = argv.index("--", 2)
    limit, launcher, command = int(argv[0]), argv[2:split], argv[split + 1 :]
    read_end, write_end = os.pipe()
    pid = _start(launcher, command, write_end)
    os.close(write_end)
    relay = Relay(limit, sys.stdout.fileno())
    watch = os.pidfd_open(pid)
    # A TERM (the SDK's stop signals the whole group; a sweep signals each marked process) goes to the server, and
    # this process ends once the server has, reaping it. Dying first left the server an orphan: a zombie under an
    # init that may never reap it (micro-VMs, containers), and the SDK waited out its 2 s for the group to go.
    signal.signal(signal.SIGTERM, lambda signum, _frame: _signal_server(watch, signum))
    exited = False
    while True:
        ready, _, _ = select.select([read_end] if exited else [read_end, watch], [], [], 0 if exited else None)
        if watch in ready:  # the server ended: read what it wrote, without waiting on a child that holds the pipe
            exited = True
            os.set_blocking(read_end, False)
            continue
        if read_end not in ready:
            break
        try:
            chunk = os.read(read_end, READ)
        except BlockingIOError:
            break
        if not chunk:
            break
        try:
            relay.feed(chunk)
        except BrokenPipeError:  # navtui closed its end: nobody reads any more
            break
    _, status = os.waitpid(pid, 0)
    return _exit_like(status)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
